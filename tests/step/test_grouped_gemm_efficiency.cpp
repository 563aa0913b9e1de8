// The default grouped-GEMM (routed expert) efficiencies against published fused-MoE kernel times
// (models/data/fused-moe-kernels): every row priced as the step model prices `moe.experts`
// (work.cpp: distinct experts touched under uniform routing, tokens per active expert as the FLOP
// key, four kernels), the error printed per row, and the fit held to the bounds below.
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

namespace engramsim {
namespace {

struct Row {
  std::string table, gpu, dtype;
  double experts = 0, inter = 0, hidden = 0, topk = 0, m = 0, us = 0;
};

std::vector<Row> kernel_rows() {
  const std::string path =
      std::string(ENGRAMSIM_SOURCE_ROOT) + "/models/data/fused-moe-kernels/fused_moe_kernel_times.csv";
  std::FILE* f = std::fopen(path.c_str(), "r");
  std::vector<Row> rows;
  if (f == nullptr) return rows;
  char line[512];
  (void)std::fgets(line, sizeof line, f);  // header
  while (std::fgets(line, sizeof line, f) != nullptr) {
    char table[64], gpu[32], dtype[16];
    Row r;
    if (std::sscanf(line, "%63[^,],%31[^,],%15[^,],%lf,%lf,%lf,%lf,%lf,%lf", table, gpu, dtype, &r.experts, &r.inter,
                    &r.hidden, &r.topk, &r.m, &r.us) != 9)
      continue;
    r.table = table;
    r.gpu = gpu;
    r.dtype = dtype;
    rows.push_back(r);
  }
  std::fclose(f);
  return rows;
}

// Seconds the step model charges for one MoE layer's routed experts of `r` on one GPU.
OpSeconds price(const Row& r, const Efficiencies& eff, const CollectiveModel& net) {
  const HardwareRates hw(load_gpu(r.gpu));
  const double weight_bytes = r.dtype == "fp8" ? 1.0 : 2.0;
  const double per_expert = 3.0 * r.inter * r.hidden;  // gate, up, down
  const double share = -std::expm1(r.m * std::log1p(-r.topk / r.experts));
  const double distinct = r.experts * share;
  OpWork w;
  w.name = "moe.experts";
  w.op_class = OpClass::grouped_gemm;
  w.precision = r.dtype == "fp8" ? Precision::fp8 : Precision::bf16;
  w.flops = Flops(2.0 * r.m * r.topk * per_expert);
  w.hbm_bytes = Bytes(distinct * per_expert * weight_bytes + r.m * r.topk * 2.0 * (2.0 * r.hidden + 3.0 * r.inter));
  w.flops_key = r.m * r.topk / distinct;
  w.kernels = 4;
  return op_seconds(w, hw, eff, net);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

TEST(GroupedGemmEfficiency, DefaultsFollowPublishedFusedMoeKernels) {
  const std::vector<Row> rows = kernel_rows();
  ASSERT_EQ(rows.size(), 46u) << "models/data/fused-moe-kernels/fused_moe_kernel_times.csv";
  const Efficiencies eff = default_efficiencies();
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(400));
  // Three regimes by tokens in the batch: small (M < 16, a few experts, launch- and tail-bound),
  // decode (16 <= M <= 512, every expert touched, bound by reading the weights) and prefill
  // (M > 512, compute-bound).
  std::map<std::string, std::vector<double>> small, decode, prefill;
  std::printf("%-24s %5s %10s %10s %8s  bound\n", "table", "M", "measured", "model", "error");
  for (const Row& r : rows) {
    const OpSeconds s = price(r, eff, net);
    const double err = s.total / (r.us * 1e-6) - 1.0;
    std::printf("%-24s %5.0f %8.1f us %8.1f us %+7.1f%%  %s\n", r.table.c_str(), r.m, r.us, s.total * 1e6, 100 * err,
                to_string(s.bound));
    (r.m < 16 ? small : r.m <= 512 ? decode : prefill)[r.table].push_back(err);
  }
  for (const auto& [table, errs] : decode) {
    const auto pct = [](const std::vector<double>& v) {
      return v.empty() ? std::string("   n/a") : std::to_string(static_cast<int>(std::lround(100 * median(v)))) + " %";
    };
    std::printf("%-24s median error: small M %s, decode %s, prefill %s\n", table.c_str(), pct(small[table]).c_str(),
                pct(errs).c_str(), pct(prefill[table]).c_str());
    // Decode batches, the regime of the serving cases: centred on every table, each row within a
    // fifth. The expert weights are read at the default grouped-GEMM bandwidth within about 10 %.
    EXPECT_LT(std::abs(median(errs)), 0.10) << table;
    for (double e : errs) EXPECT_LT(std::abs(e), 0.20) << table;
  }
  // Small batches: the model never charges more than the kernels took (the published Triton kernels
  // pay up to 150 us of launch and tail for a handful of small experts, which the per-kernel overhead
  // does not claim to model).
  for (const auto& [table, errs] : small)
    for (double e : errs) EXPECT_LT(e, 0.15) << table;
  // Prefill batches: these Triton kernels reach 0.3-0.5 of the dense peak; the default compute curve
  // follows DeepGEMM's grouped kernels (0.41-0.66 of the FP8 peak on H800), so the model is faster here, never
  // slower.
  for (const auto& [table, errs] : prefill)
    for (double e : errs) EXPECT_LT(e, 0.05) << table;
}

}  // namespace
}  // namespace engramsim
