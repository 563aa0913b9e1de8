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
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

struct Row {
  std::string table, gpu, dtype;
  double experts = 0, inter = 0, hidden = 0, topk = 0, m = 0, us = 0;
};

std::vector<Row> kernel_rows() {
  const std::string path = engramsim::test::source_root() + "/models/data/fused-moe-kernels/fused_moe_kernel_times.csv";
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

// Bytes per weight element of a table's dtype, scales included: NVFP4 carries one FP8 scale per 16
// elements, MXFP8 one UE8M0 scale per 32; per-tensor FP8 and BF16 none worth counting.
double weight_bytes_of(const std::string& dtype) {
  if (dtype == "fp4") return 0.5 + 1.0 / 16.0;
  if (dtype == "mxfp8") return 1.0 + 1.0 / 32.0;
  if (dtype == "fp8") return 1.0;
  return 2.0;
}

Precision precision_of(const std::string& dtype) {
  if (dtype == "fp4") return Precision::fp4;
  if (dtype == "fp8" || dtype == "mxfp8") return Precision::fp8;
  return Precision::bf16;
}

// Seconds the step model charges for one MoE layer's routed experts of `r` on one GPU.
OpSeconds price(const Row& r, const Efficiencies& eff, const CollectiveModel& net) {
  const HardwareRates hw(load_gpu(r.gpu));
  const double weight_bytes = weight_bytes_of(r.dtype);
  const double per_expert = 3.0 * r.inter * r.hidden;  // gate, up, down
  const double share = -std::expm1(r.m * std::log1p(-r.topk / r.experts));
  const double distinct = r.experts * share;
  OpWork w;
  w.name = "moe.experts";
  w.op_class = OpClass::grouped_gemm;
  w.precision = precision_of(r.dtype);
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

// The DeepSeek-V3 block-scaled FP8 tables (vLLM pull request 13932) are held apart, below.
bool block_scaled(const Row& r) { return r.table.rfind("dsv3-fp8block", 0) == 0; }
// So are FlashInfer's TensorRT-LLM MoE kernels at DeepSeek-V3's EP8 shard on B300 (pull requests
// 4985 and 5301), which also time routing, finalize and activation quantization.
bool blackwell_ep8(const Row& r) { return r.table.rfind("dsv3-ep8-b300", 0) == 0; }

// The CSV's rows split into the three populations the tests below hold to different bounds.
enum class Population { per_tensor, block_scaled_hopper, blackwell_ep8 };
std::vector<Row> rows_of(Population p) {
  std::vector<Row> rows = kernel_rows();
  EXPECT_EQ(rows.size(), 129u) << "models/data/fused-moe-kernels/fused_moe_kernel_times.csv";
  const auto outside = [p](const Row& r) {
    const Population of = block_scaled(r)    ? Population::block_scaled_hopper
                          : blackwell_ep8(r) ? Population::blackwell_ep8
                                             : Population::per_tensor;
    return of != p;
  };
  rows.erase(std::remove_if(rows.begin(), rows.end(), outside), rows.end());
  return rows;
}

TEST(GroupedGemmEfficiency, DefaultsFollowPublishedFusedMoeKernels) {
  std::vector<Row> rows = rows_of(Population::per_tensor);
  ASSERT_EQ(rows.size(), 46u);
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

TEST(GroupedGemmEfficiency, BlockScaledFp8KernelsAtDeepSeekShapesAreSlowerThanTheModel) {
  // vLLM's fused MoE with DeepSeek-V3's experts (256, top-8, hidden 7168, 128x128-block FP8) on
  // H100, DeepGEMM's contiguous grouped kernel and the Triton kernel, TP1 to TP8, 128 to 2048
  // tokens (4 to 64 rows per expert). These public kernels read the expert weights at 0.11-0.53 of
  // HBM bandwidth where the default grouped-GEMM curve reaches 0.8: the model is faster than every
  // row, by 1.5x to 5.6x (full-size experts, TP1, as under expert parallelism: 1.5x to 2.1x with
  // DeepGEMM). This pins that known gap (docs/validation.md, the TensorRT-LLM MoE cases):
  // a change to the grouped-GEMM defaults shows up here.
  const std::vector<Row> rows = rows_of(Population::block_scaled_hopper);
  ASSERT_EQ(rows.size(), 48u);
  const Efficiencies eff = default_efficiencies();
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(400));
  std::map<std::string, std::vector<double>> ratio;  // measured / model
  for (const Row& r : rows) {
    const OpSeconds s = price(r, eff, net);
    const double weights = r.experts * 3.0 * r.inter * r.hidden;  // FP8, every expert touched
    const double measured_s = r.us * 1e-6;
    std::printf("%-26s %5.0f rows/expert %4.0f  %8.1f us  model %8.1f us  x%.2f  weights at %.2f of HBM\n",
                r.table.c_str(), r.m, r.m * r.topk / r.experts, r.us, s.total * 1e6, measured_s / s.total,
                weights / measured_s / 3.35e12);
    ratio[r.table].push_back(measured_s / s.total);
  }
  for (const auto& [table, v] : ratio) {
    std::printf("%-26s measured / model: median x%.2f\n", table.c_str(), median(v));
    for (double x : v) {
      EXPECT_GT(x, 1.1) << table;
      EXPECT_LT(x, 6.0) << table;
    }
  }
}

TEST(GroupedGemmEfficiency, BlackwellTensorRtLlmMoeAtDeepSeekEp8Shard) {
  // One EP8 rank of DeepSeek-V3's MoE (32 local experts of 256, hidden 7168, intermediate 2048,
  // top-8, so one local row per token on average: experts 32, top-k 1 in the table) on B300,
  // FlashInfer's TensorRT-LLM kernels in BF16, MXFP8 and NVFP4, 1 to 16,384 tokens. The measured
  // times include routing, finalize and activation quantization, which the model charges to
  // moe.router and the neighbouring elementwise ops, so the model is expected to fall a few
  // microseconds short of each row. Three regimes, pinned so that a change to the grouped-GEMM
  // defaults shows up here (docs/validation.md, the TensorRT-LLM MoE cases):
  // - decode batches, 16 to 512 tokens (bound by reading the local experts' weights): BF16 within
  //   10 % of the model, MXFP8 and NVFP4 2-40 % slower (the fixed routing and quantization
  //   kernels weigh more as the weights shrink);
  // - under 16 tokens, a few experts: the fixed kernels dominate, 1.4-2.7x the model;
  // - NVFP4 from 1,024 tokens (32 and more rows per expert): about twice the model. The kernel
  //   steps from 0.17 to 0.29 ms between 512 and 1,024 tokens while the weights read stay the same.
  const std::vector<Row> rows = rows_of(Population::blackwell_ep8);
  ASSERT_EQ(rows.size(), 35u);
  const Efficiencies eff = default_efficiencies();
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(400));
  std::map<std::string, std::vector<double>> decode;
  for (const Row& r : rows) {
    const OpSeconds s = price(r, eff, net);
    const double ratio = r.us * 1e-6 / s.total;  // measured / model
    std::printf("%-28s %6.0f tokens  %8.1f us  model %8.1f us  x%.2f  %s\n", r.table.c_str(), r.m, r.us, s.total * 1e6,
                ratio, to_string(s.bound));
    if (r.m < 16) {
      EXPECT_GT(ratio, 1.3) << r.table << " at " << r.m;
      EXPECT_LT(ratio, 3.0) << r.table << " at " << r.m;
    } else if (r.m <= 512) {
      decode[r.dtype].push_back(ratio);
      EXPECT_GT(ratio, 0.85) << r.table << " at " << r.m;
      EXPECT_LT(ratio, 1.45) << r.table << " at " << r.m;
    } else {
      ASSERT_EQ(r.dtype, "fp4");
      EXPECT_GT(ratio, 1.7) << r.table << " at " << r.m;
      EXPECT_LT(ratio, 2.4) << r.table << " at " << r.m;
    }
  }
  ASSERT_EQ(decode.size(), 3u);
  EXPECT_LT(std::abs(median(decode["bf16"]) - 1.0), 0.10);
  EXPECT_LT(median(decode["mxfp8"]), 1.20);
  EXPECT_LT(median(decode["fp4"]), 1.30);
}

}  // namespace
}  // namespace engramsim
