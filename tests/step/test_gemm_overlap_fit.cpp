// The CDNA3 presets' gemm_bandwidth_efficiency and gemm_overlap against the measurement they are
// fitted to: the tuned FP8 GEMM times AMD published for Llama-3.1 70B and 405B shapes on MI300X
// (models/data/cdna3-fp8-small-m: N x K from TP1 to TP8, M from 1 to 16,384). Each row is priced as
// the step model prices a dense projection (weights plus BF16 activations in and out, tokens as the
// FLOP key, one kernel). Two fits, on disjoint rows (README in that folder):
//  1. bandwidth: rows of at most 16 tokens whose weight stream the model prices above its math term
//     and at 20 us or more (so neither the math nor the launch gap sets the time); a row's share is
//     the model's memory time at share 1 over its measured time less the launch gap;
//  2. overlap: with that share, rows where both the weight stream (the weights' share of the memory
//     term) and the math at the kernels' full rate (the GEMM curve's top) matter: the shorter at least a quarter of the
//     longer term, the longer 20 us or more; a row's overlap is 1 - how much of the shorter its measured time adds.
// Each preset is the median of its rows and must hold it within 0.02.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "hardware/hardware_loader.hpp"
#include "models/collectives.hpp"
#include "models/efficiency.hpp"
#include "models/op_cost.hpp"
#include "tests/support/csv_table.hpp"

namespace engramsim {
namespace {

struct Row {
  double n = 0, k = 0, m = 0, us = 0;
};

// The rows of models/data/cdna3-fp8-small-m/gemm_us.csv (n, k, m, us).
std::vector<Row> rows() {
  return test::CsvTable("models/data/cdna3-fp8-small-m/gemm_us.csv").map([](const test::CsvTable& t, std::size_t i) {
    return Row{t.number(i, "n"), t.number(i, "k"), t.number(i, "m"), t.number(i, "us")};
  });
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

OpWork fp8_projection(const Row& r) {
  OpWork w;
  w.name = "gemm";
  w.op_class = OpClass::gemm;
  w.precision = Precision::fp8;
  w.flops = Flops(2.0 * r.m * r.n * r.k);
  w.hbm_bytes = Bytes(r.n * r.k + r.m * (r.n + r.k) * 2.0);
  w.weight_bytes = Bytes(r.n * r.k);
  w.flops_key = r.m;
  w.kernels = 1;
  w.gemm_k = r.k;
  return w;
}

// The step model's terms for a row on MI300X with the two shares (and the K overhead) replaced.
OpSeconds priced(const Row& r, double bandwidth, double overlap, double k_overhead) {
  GpuSpec spec = load_gpu("mi300x");
  spec.gemm_bandwidth_efficiency = bandwidth;
  spec.gemm_overlap = overlap;
  spec.gemm_k_overhead = k_overhead;
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(400));
  return op_seconds(fp8_projection(r), HardwareRates(spec), default_efficiencies(), net);
}

constexpr double kStreamRows = 16;        // bandwidth fit: at most this many tokens
constexpr double kStreamSeconds = 20e-6;  // bandwidth fit: memory term at least this long
constexpr double kBothMatter = 0.25;      // overlap fit: the shorter term at least this share of the longer
constexpr double kComputeRows = 4096;  // K-overhead fit: at least this many tokens (the math is 4x the stream or more)
constexpr double kWideN =
    7168;  // K-overhead fit: output width at least this (no partial last wave of tiles to speak of)

// Per memory-bound row, the share of the bandwidth curves that reproduces the measurement.
std::vector<double> row_bandwidth_shares() {
  std::vector<double> out;
  for (const Row& r : rows()) {
    const OpSeconds s = priced(r, 1.0, 1.0, 0.0);
    if (r.m <= kStreamRows && s.memory > s.compute && s.memory >= kStreamSeconds)
      out.push_back(s.memory / (r.us * 1e-6 - s.overhead));
  }
  return out;
}

// Per compute-bound row of a wide shape (priced at `bandwidth` and `overlap`), the K overhead that
// reproduces the measurement (bisection: the op's time grows with it).
std::vector<double> row_k_overheads(double bandwidth, double overlap) {
  std::vector<double> out;
  for (const Row& r : rows()) {
    if (r.m < kComputeRows || r.n < kWideN) continue;
    const double target = r.us * 1e-6;
    if (priced(r, bandwidth, overlap, 0.0).total >= target) {
      out.push_back(0.0);
      continue;
    }
    double lo = 0.0, hi = 65536.0;
    for (int i = 0; i < 60; ++i) {
      const double mid = 0.5 * (lo + hi);
      (priced(r, bandwidth, overlap, mid).total < target ? lo : hi) = mid;
    }
    out.push_back(0.5 * (lo + hi));
  }
  return out;
}

// Per row where both terms matter (priced at `bandwidth` and `k_overhead`), the share of the shorter
// term hidden under the longer that reproduces the measurement, clamped to [0, 1].
std::vector<double> row_overlaps(double bandwidth, double k_overhead) {
  GpuSpec spec = load_gpu("mi300x");
  spec.gemm_bandwidth_efficiency = bandwidth;
  spec.gemm_k_overhead = k_overhead;
  const Efficiencies eff = default_efficiencies();
  const HardwareRates hw(spec);
  const double full_rate = tensor_peak(hw, eff, Precision::fp8, OpClass::gemm) * eff.of(OpClass::gemm).flops.top();
  std::vector<double> out;
  for (const Row& r : rows()) {
    const OpSeconds s = priced(r, bandwidth, 1.0, k_overhead);
    const double math =
        2.0 * r.m * r.n * r.k / (full_rate * k_depth_share(hw, eff, OpClass::gemm, Precision::fp8, r.k));
    const double stream = s.memory * r.n * r.k / fp8_projection(r).hbm_bytes.value();
    const double hi = std::max(s.compute, s.memory), lo = std::min(math, stream);
    if (!(lo >= kBothMatter * hi) || hi < kStreamSeconds) continue;
    const double exposed = (r.us * 1e-6 - s.overhead - hi) / exposed_seconds(math, stream);
    out.push_back(1.0 - std::clamp(exposed, 0.0, 1.0));
  }
  return out;
}

TEST(GemmOverlapFit, Mi300xPresetsAreTheFitOfThePublishedRows) {
  ASSERT_EQ(rows().size(), 427u) << "models/data/cdna3-fp8-small-m/gemm_us.csv";
  const GpuSpec gpu = load_gpu("mi300x");
  const std::vector<double> bw = row_bandwidth_shares();
  const double bw_fit = median(bw);
  std::printf("mi300x fp8: %zu memory-bound rows, bandwidth share fit %.3f (preset %.3f)\n", bw.size(), bw_fit,
              gpu.gemm_bandwidth_efficiency);
  ASSERT_GE(bw.size(), 20u);
  EXPECT_NEAR(gpu.gemm_bandwidth_efficiency, bw_fit, 0.02) << "hardware/gpus/mi300x.yaml gemm_bandwidth_efficiency";
  const std::vector<double> k0 = row_k_overheads(gpu.gemm_bandwidth_efficiency, gpu.gemm_overlap);
  const double k0_fit = median(k0);
  std::printf("mi300x fp8: %zu compute-bound rows of wide shapes, K overhead fit %.0f (preset %.0f)\n", k0.size(),
              k0_fit, gpu.gemm_k_overhead);
  ASSERT_GE(k0.size(), 10u);
  EXPECT_NEAR(gpu.gemm_k_overhead, k0_fit, 0.10 * k0_fit) << "hardware/gpus/mi300x.yaml gemm_k_overhead";
  const std::vector<double> ov = row_overlaps(gpu.gemm_bandwidth_efficiency, gpu.gemm_k_overhead);
  const double ov_fit = median(ov);
  std::printf("mi300x fp8: %zu rows with both terms material, overlap fit %.3f (preset %.3f)\n", ov.size(), ov_fit,
              gpu.gemm_overlap);
  ASSERT_GE(ov.size(), 40u);
  EXPECT_NEAR(gpu.gemm_overlap, ov_fit, 0.02) << "hardware/gpus/mi300x.yaml gemm_overlap";
}

// Every decode-sized row (M 16-512, the batches the serving cases run) priced with the presets'
// shares. Held: the rows whose weight stream the model prices at 20 us or more (the fits' own
// domain), their median error within 10 % and three in four within 25 %; at full shares (the other
// GPUs' default) the same rows come out faster. The smaller shapes (N x K up to 21M weights: the
// 70B's TP8 QKV, output and down projections) are printed, not held: their kernels walk K serially
// and never finish faster than ~6 us at K = 1,024 and ~13 us at K = 8,192, a floor the op cost does
// not carry for per-tensor FP8, so the model stays fast there by up to half.
TEST(GemmOverlapFit, DecodeRowsWithThePresetShares) {
  const GpuSpec gpu = load_gpu("mi300x");
  std::vector<double> all, held, full;
  std::printf("%6s %6s %6s %10s %9s %9s\n", "N", "K", "M", "measured", "presets", "full");
  for (const Row& r : rows()) {
    if (r.m < 16 || r.m > 512) continue;
    const OpSeconds p = priced(r, gpu.gemm_bandwidth_efficiency, gpu.gemm_overlap, gpu.gemm_k_overhead);
    const double a = p.total * 1e6;
    const double b = priced(r, 1.0, 1.0, 0.0).total * 1e6;
    std::printf("%6.0f %6.0f %6.0f %7.1f us %+8.1f%% %+8.1f%%\n", r.n, r.k, r.m, r.us, 100 * (a / r.us - 1),
                100 * (b / r.us - 1));
    all.push_back(a / r.us - 1.0);
    full.push_back(b / r.us - 1.0);
    if (p.memory >= kStreamSeconds) held.push_back(a / r.us - 1.0);
  }
  ASSERT_GE(held.size(), 40u);
  EXPECT_LT(std::abs(median(held)), 0.10);
  EXPECT_LT(median(full), median(all));
  std::size_t within = 0;
  for (double e : held) within += std::abs(e) < 0.25 ? 1 : 0;
  std::printf("%zu of %zu rows streaming 20 us or more within 25 %%, their median %+.1f %%, all rows' %+.1f %%\n",
              within, held.size(), 100 * median(held), 100 * median(all));
  EXPECT_GE(static_cast<double>(within), 0.75 * static_cast<double>(held.size()));
}

// Prefill-sized rows (M 1,024 and more) of the wide shapes, priced with every preset term. Held
// (stated before the K overhead was fitted): median |error| within 10 % and three in four within
// 25 %. The narrow shapes (N 1,280 and 2,304: the TP8 QKV projections) are printed, not held: at
// these M they fill few tiles of 304 compute units per wave, which the model does not count.
TEST(GemmOverlapFit, PrefillRowsOfWideShapesWithEveryPresetTerm) {
  const GpuSpec gpu = load_gpu("mi300x");
  std::vector<double> held, narrow;
  for (const Row& r : rows()) {
    if (r.m < 1024) continue;
    const double e =
        priced(r, gpu.gemm_bandwidth_efficiency, gpu.gemm_overlap, gpu.gemm_k_overhead).total * 1e6 / r.us - 1.0;
    (r.n >= kWideN ? held : narrow).push_back(e);
  }
  ASSERT_GE(held.size(), 20u);
  std::vector<double> mag;
  for (double e : held) mag.push_back(std::abs(e));
  std::size_t within = 0;
  for (double e : mag) within += e < 0.25 ? 1 : 0;
  std::printf(
      "%zu wide rows of M >= 1,024: median |error| %.1f %%, %zu within 25 %%; %zu narrow rows: median %+.1f %%\n",
      held.size(), 100 * median(mag), within, narrow.size(), 100 * median(narrow));
  EXPECT_LT(median(mag), 0.10);
  EXPECT_GE(static_cast<double>(within), 0.75 * static_cast<double>(held.size()));
}

}  // namespace
}  // namespace engramsim
