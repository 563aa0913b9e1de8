// What the whole-run benchmarks share: an analytic step time of a Llama-3-70B-shaped model on one
// H200-class GPU (roofline: FP8 weights, BF16 GQA KV cache), defined here so that a benchmark
// measures the simulator and not models/, and the Azure LLM inference conversation trace (19,366
// requests, one hour) through 8 TP1 replicas.
#pragma once

#include <algorithm>

#include "sim/run/run_simulation.hpp"
#include "sim/workload/trace_format.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim::sim::bench {

struct Llama70BRoofline {
  static constexpr double kParams = 70.6e9;
  static constexpr double kLayers = 80, kHidden = 8192;
  static constexpr double kKvBytesPerToken = 80 * 2 * 8 * 128 * 2;  // layers x K,V x kv heads x dim x BF16
  static constexpr double kPeakFlops = 1979e12;                     // dense FP8
  static constexpr double kHbmBw = 4.8e12;
  static constexpr double kOverhead = 0.5e-3;  // host time per step, seconds

  // The step's GPU time in seconds: the larger of its FLOPs at 60% of peak and its bytes at 80% of
  // the HBM bandwidth.
  static double seconds(const BatchShape& b) {
    double tokens = 0, ctx_tokens = 0, attn_flops = 0;
    for (const auto& p : b.prefill) {
      tokens += p.tokens;
      ctx_tokens += static_cast<double>(p.cached) + p.tokens;
      attn_flops += 4.0 * kLayers * kHidden * p.tokens * (p.cached + 0.5 * p.tokens);
    }
    for (const auto& d : b.decode) {
      tokens += d.positions;
      ctx_tokens += d.context + d.positions;
      attn_flops += 4.0 * kLayers * kHidden * d.positions * d.context;
    }
    const double flops = 2.0 * kParams * tokens + attn_flops;
    const double bytes = kParams * 1.0 /* FP8 */ + ctx_tokens * kKvBytesPerToken;
    return std::max(flops / (kPeakFlops * 0.6), bytes / (kHbmBw * 0.8));
  }
};

// The Azure conversation trace on 8 replicas of `model` (1 GPU each, ~58 GB of BF16 KV per GPU),
// least-outstanding routing, 8,192 batched tokens and 256 sequences per step.
inline RunConfig azure_conv_config(const StepTimeModel& model) {
  RunConfig cfg;
  for (int i = 0; i < 8; ++i) {
    ReplicaParams rp;
    rp.step_model = &model;
    rp.kv = KvPoolParams{11000, 16, false};
    rp.gpus = 1;
    cfg.replicas.push_back(rp);
  }
  cfg.scheduler.max_num_batched_tokens = 8192;
  cfg.scheduler.max_num_seqs = 256;
  cfg.router = "least_outstanding";
  cfg.price_per_gpu_hour = MoneyRate(2.5);
  cfg.workload.source = [](std::uint64_t) {
    return open_trace(engramsim::test::source_root() + "/scenarios/traces/AzureLLMInferenceTrace_conv.csv", "azure");
  };
  return cfg;
}

}  // namespace engramsim::sim::bench
