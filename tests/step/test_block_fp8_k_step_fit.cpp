// The sglang-rocm engine preset's block_fp8_gemm_k_step against the measurement it is fitted to: the
// block-scaled FP8 dense GEMMs of one DeepSeek-R1 decode layer under SGLang v0.5.9 on 8 x MI325X at
// 64 tokens, from a profile of the InferenceX configuration (models/data/sglang-rocm-kernels). Each
// kernel's time is its walk over K, one 128-deep scale block at a time; the preset carries the median
// time per step. The step model then floors exactly the GEMMs SGLang runs block-scaled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"
#include "tests/support/csv_table.hpp"

namespace engramsim {
namespace {

struct Kernel {
  std::string gemm;
  double k = 0.0, k_steps = 0.0, avg_us = 0.0;
};

std::vector<Kernel> kernels() {
  return test::CsvTable("models/data/sglang-rocm-kernels/block_fp8_gemm.csv")
      .map([](const test::CsvTable& t, std::size_t i) {
        return Kernel{t.text(i, "gemm"), t.number(i, "k"), t.number(i, "k_steps"), t.number(i, "avg_us")};
      });
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

TEST(BlockFp8KStepFit, SglangRocmPresetCarriesTheMedianStepOfItsKernels) {
  const std::vector<Kernel> rows = kernels();
  ASSERT_EQ(rows.size(), 5u);
  std::vector<double> per_step;
  for (const Kernel& r : rows) {
    EXPECT_DOUBLE_EQ(r.k_steps, std::ceil(r.k / 128.0)) << r.gemm;
    per_step.push_back(r.avg_us / r.k_steps);
  }
  const double fit_us = median(per_step);
  const HostOverhead preset = load_engine("sglang-rocm");
  EXPECT_NEAR(preset.block_fp8_gemm_k_step.seconds() * 1e6, fit_us, 0.005);
  // Stated before the fit: every kernel within 15 % of its K steps times the median.
  for (const Kernel& r : rows) {
    const double model_us = r.k_steps * fit_us;
    std::printf("%-14s K %5.0f: %2.0f steps, measured %5.1f us, %5.1f us at %.3f us a step (%+.0f%%)\n", r.gemm.c_str(),
                r.k, r.k_steps, r.avg_us, model_us, fit_us, 100.0 * (model_us / r.avg_us - 1.0));
    EXPECT_LE(std::fabs(model_us / r.avg_us - 1.0), 0.15) << r.gemm;
  }
}

// Per-layer time of each op of a DeepSeek-V3 decode step (8 sequences) on 8 x MI325X, TP8 EP1.
std::vector<OpReport> decode_ops(const HostOverhead& engine) {
  RooflineOptions o;
  o.layout = ParallelLayout{8, 1, false};
  o.host = engine;
  const RooflineStepModel m(load_model_card("deepseek-v3"), load_node("mi325x-8"), o);
  return m.breakdown({{}, std::vector<DecodeSeq>(8, DecodeSeq{1536, 1})}).ops;
}

double op_us(const std::vector<OpReport>& ops, const char* name, int layer) {
  for (const OpReport& op : ops)
    if (op.layer == layer && op.name == name) return op.total.seconds() * 1e6;
  ADD_FAILURE() << "no op " << name << " in layer " << layer;
  return 0.0;
}

TEST(BlockFp8KStepFit, TheFloorLandsOnTheGemmsSglangRunsBlockScaled) {
  const HostOverhead with_floor = load_engine("sglang-rocm");
  HostOverhead without_floor = with_floor;
  without_floor.block_fp8_gemm_k_step = Time::zero();
  const std::vector<OpReport> rocm = decode_ops(with_floor);
  const std::vector<OpReport> plain = decode_ops(without_floor);
  const double step_us = load_engine("sglang-rocm").block_fp8_gemm_k_step.seconds() * 1e6;
  const double gap_us = default_efficiencies().kernel_overhead.seconds() * 1e6;
  // The fused query/KV down-projection walks the 7,168-wide hidden state (56 steps), the query
  // up-projection the 1,536-wide latent (12), the output projection 16,384 / 8 inputs (16), the dense
  // FFN of layer 0 gate-up over 7,168 and down over 18,432 / 8 (56 + 18), each plus its launch gaps.
  EXPECT_NEAR(op_us(rocm, "attn.q_a", 0), 56 * step_us + gap_us, 1e-6);
  EXPECT_NEAR(op_us(rocm, "attn.q_b", 0), 12 * step_us + gap_us, 1e-6);
  EXPECT_NEAR(op_us(rocm, "attn.o", 0), 16 * step_us + gap_us, 1e-6);
  EXPECT_NEAR(op_us(rocm, "ffn.dense", 0), (56 + 18) * step_us + 2 * gap_us, 1e-6);
  // The KV down-projection shares the query's walk, the KV up-projection runs as BF16 batched GEMMs,
  // and the MoE block (routed and shared experts, router) keeps the engine's MoE kernels.
  for (const char* name : {"attn.kv_a", "attn.kv_b", "attn.decode", "attn.all_reduce"})
    EXPECT_DOUBLE_EQ(op_us(rocm, name, 0), op_us(plain, name, 0)) << name;
  for (const char* name : {"moe.router", "moe.experts", "moe.shared"})
    EXPECT_DOUBLE_EQ(op_us(rocm, name, 3), op_us(plain, name, 3)) << name;
  // Without the engine's step time every op keeps the kernel floor.
  EXPECT_LT(op_us(plain, "attn.q_a", 0), 10.0);
}

}  // namespace
}  // namespace engramsim
