// The GPU presets' gemm_efficiency against published GEMM benchmarks: B200 (models/data/blackwell-gemm)
// and MI300X / MI325X (models/data/cdna3-gemm). Each preset's share per precision is the documented
// fit of its rows, and every row is priced as the step model prices a dense projection (work.cpp:
// weights plus BF16 activations in and out, tokens as the FLOP key, one kernel), the error printed per
// row and held to the bounds below.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
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
  std::string table, gpu;
  Precision precision = Precision::bf16;
  double n = 0, k = 0, m = 0, tflops = 0;
};

// The rows of models/data/FOLDER/gemm_tflops.csv (table, gpu, precision, n, k, m, tflops).
std::vector<Row> gemm_rows(const std::string& folder) {
  const test::CsvTable t("models/data/" + folder + "/gemm_tflops.csv");
  std::vector<Row> rows;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const auto p = precision_from_string(t.text(i, "precision"));
    EXPECT_TRUE(p.has_value()) << folder << " row " << i + 2 << ": precision " << t.text(i, "precision");
    if (!p) continue;
    rows.push_back({t.text(i, "table"), t.text(i, "gpu"), *p, t.number(i, "n"), t.number(i, "k"), t.number(i, "m"),
                    t.number(i, "tflops")});
  }
  return rows;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// A row priced as the step model prices a dense projection of unknown depth (OpWork::gemm_k 0): these
// are library benchmarks at large K, whose rate is what gemm_efficiency states; a GPU preset's
// gemm_k_overhead (fitted to another table, test_gemm_overlap_fit.cpp) is not applied to them.
OpSeconds priced(const Row& r, const HardwareRates& hw, const Efficiencies& eff, const CollectiveModel& net) {
  OpWork w;
  w.name = "gemm";
  w.op_class = OpClass::gemm;
  w.precision = r.precision;
  w.flops = Flops(2.0 * r.m * r.n * r.k);
  // NVFP4 carries one FP8 scale per 16 weights; the FP8 rows scale per channel (negligible).
  const double weight_bytes = bytes_per_element(r.precision) + (r.precision == Precision::fp4 ? 1.0 / 16.0 : 0.0);
  w.hbm_bytes = Bytes(r.n * r.k * weight_bytes + r.m * (r.n + r.k) * 2.0);
  w.weight_bytes = Bytes(r.n * r.k * weight_bytes);
  w.flops_key = r.m;
  w.kernels = 1;
  return op_seconds(w, hw, eff, net);
}

double measured_seconds(const Row& r) { return 2.0 * r.m * r.n * r.k / (r.tflops * 1e12); }

// The fit that sets a preset: at M >= 1024 the FLOP term dominates, so a row's share of the
// default curve is achieved / (nominal peak x curve(M)); the preset value is the median per GPU and
// precision, and the preset must hold it within 0.01.
constexpr double kComputeBoundRows = 1024;

void expect_presets_fit(const std::vector<Row>& rows) {
  const Efficiencies eff = default_efficiencies();
  std::map<std::string, std::map<Precision, std::vector<double>>> share;
  for (const Row& r : rows) {
    if (r.m < kComputeBoundRows) continue;
    const HardwareRates hw(load_gpu(r.gpu));
    share[r.gpu][r.precision].push_back(r.tflops * 1e12 /
                                        (hw.peak_flops(r.precision) * eff.of(OpClass::gemm).flops.at(r.m)));
  }
  for (const auto& [gpu, by_precision] : share) {
    const HardwareRates hw(load_gpu(gpu));
    for (const auto& [p, v] : by_precision) {
      const double fit = median(v);
      std::printf("%s %s: %zu compute-bound rows, share of the default curve %.3f (preset %.3f)\n", gpu.c_str(),
                  to_string(p), v.size(), fit, hw.gemm_efficiency(p));
      EXPECT_NEAR(hw.gemm_efficiency(p), fit, 0.01)
          << "hardware/gpus/" << gpu << ".yaml gemm_efficiency " << to_string(p);
    }
  }
}

TEST(GemmShareFit, B200PresetIsTheFitOfThePublishedRows) {
  const std::vector<Row> rows = gemm_rows("blackwell-gemm");
  ASSERT_EQ(rows.size(), 66u) << "models/data/blackwell-gemm/gemm_tflops.csv";
  expect_presets_fit(rows);
  // The narrower the format, the smaller the share of its nominal peak the kernels reach.
  const HardwareRates hw(load_gpu("b200"));
  EXPECT_LT(hw.gemm_efficiency(Precision::fp4), hw.gemm_efficiency(Precision::fp8));
  EXPECT_LT(hw.gemm_efficiency(Precision::fp8), hw.gemm_efficiency(Precision::bf16));
}

TEST(GemmShareFit, Cdna3PresetsAreTheFitOfThePublishedRows) {
  const std::vector<Row> rows = gemm_rows("cdna3-gemm");
  ASSERT_EQ(rows.size(), 17u) << "models/data/cdna3-gemm/gemm_tflops.csv";
  expect_presets_fit(rows);
  // MI300X sustains a lower clock under dense matrix load than MI325X (AMD's MAF tables: ~1.2 against
  // ~1.45 GHz at the same 2.1 GHz boost), so every precision reaches a smaller share of the same peak.
  const HardwareRates mi300x(load_gpu("mi300x"));
  const HardwareRates mi325x(load_gpu("mi325x"));
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp8})
    EXPECT_LT(mi300x.gemm_efficiency(p), mi325x.gemm_efficiency(p)) << to_string(p);
}

// MI300X's large FP8 GEMMs (M >= 4,096 and N, K >= 1,024: AMD's MAF shape and Azure's square and
// mixed shapes) are compute-bound, and the model prices each within 20 %. The smaller Azure rows are
// printed by the fit, not held: at 1,024 rows a GEMM takes under 10 us and launch cost dominates.
TEST(GemmShareFit, Mi300xLargeFp8RowsWithin20Percent) {
  const Efficiencies eff = default_efficiencies();
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(400));
  const HardwareRates hw(load_gpu("mi300x"));
  for (const Row& r : gemm_rows("cdna3-gemm")) {
    if (r.gpu != "mi300x" || r.precision != Precision::fp8 || r.m < 4096 || r.n < 1024 || r.k < 1024) continue;
    const double err = priced(r, hw, eff, net).total / measured_seconds(r) - 1.0;
    std::printf("%-22s M %6.0f N %6.0f K %6.0f: %+6.1f%%\n", r.table.c_str(), r.m, r.n, r.k, 100 * err);
    EXPECT_LT(std::abs(err), 0.20) << r.table << " M " << r.m;
  }
}

TEST(GemmShareFit, StepModelPricesThePublishedB200Rows) {
  const std::vector<Row> rows = gemm_rows("blackwell-gemm");
  ASSERT_FALSE(rows.empty());
  const Efficiencies eff = default_efficiencies();
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(400));
  std::map<std::string, std::vector<double>> compute_errs, mid_errs;
  std::printf("%-26s %-5s %6s %10s %10s %8s  bound\n", "table", "prec", "M", "measured", "model", "error");
  for (const Row& r : rows) {
    const HardwareRates hw(load_gpu(r.gpu));
    const OpSeconds s = priced(r, hw, eff, net);
    const double measured_s = measured_seconds(r);
    const double err = s.total / measured_s - 1.0;
    std::printf("%-26s %-5s %6.0f %8.1f us %8.1f us %+7.1f%%  %s\n", r.table.c_str(), to_string(r.precision), r.m,
                measured_s * 1e6, s.total * 1e6, 100 * err, to_string(s.bound));
    const std::string key = std::string(to_string(r.precision));
    if (r.m >= kComputeBoundRows)
      compute_errs[key].push_back(err);
    else if (r.m >= 128)
      mid_errs[key].push_back(err);
  }
  // Compute-bound rows, the fit's own: centred within 10 % per precision (the op also pays the 1.5 us
  // launch gap, 4-8 % of these 15-40 us kernels) and each row within 20 %.
  for (const auto& [p, errs] : compute_errs) {
    EXPECT_LT(std::abs(median(errs)), 0.10) << p;
    for (double e : errs) EXPECT_LT(std::abs(e), 0.20) << p;
  }
  // 128 <= M < 1024, where serving decode batches sit, not fitted. BF16 within 20 % of every row.
  // The CUTLASS FP8 and NVFP4 kernels of these benchmarks never finish in under ~6 us and ~11 us
  // (an untuned small-M configuration; FlashInfer issue 1732 reports the same NVFP4 kernel reading
  // weights at 1.8 of 8 TB/s), a floor the model does not have: there it is faster, by up to 40 %
  // (FP8) and 65 % (NVFP4), and never slower by more than 10 %.
  for (const auto& [p, errs] : mid_errs) {
    const double bound = p == "fp4" ? 0.65 : p == "fp8" ? 0.40 : 0.20;
    for (double e : errs) {
      EXPECT_LT(std::abs(e), bound) << p;
      EXPECT_LT(e, p == "bf16" ? 0.20 : 0.10) << p;
    }
  }
}

}  // namespace
}  // namespace engramsim
