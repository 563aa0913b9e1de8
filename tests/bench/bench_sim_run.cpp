// A whole serving run: the Azure LLM inference conversation trace (19,366 requests, one hour)
// through 8 replicas of a 70B-class dense model, under vLLM-style continuous batching (arg 0) or
// TensorRT-LLM's no-evict admission with decode steps padded to CUDA-graph sizes (arg 1).
//
// The step-time model is defined here (analytic roofline of a Llama-3-70B-shaped model on one
// H200-class GPU: FP8 weights, BF16 GQA KV cache) so the benchmark measures the simulator, not the
// models/ library. Reports wall time per run and events per second.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "sim/run/run_simulation.hpp"
#include "sim/workload/trace_format.hpp"
#include "tests/support/test_paths.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

class Analytic70B final : public StepTimeModel {
 public:
  StepCost step(const BatchShape& b) const override {
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
    const double t = std::max(flops / (kPeakFlops * 0.6), bytes / (kHbmBw * 0.8)) + kOverhead;
    StepCost c;
    c.compute = Time::from_seconds(t);
    c.host_overhead = Time::from_seconds(kOverhead);
    c.total = c.compute;
    return c;
  }

 private:
  static constexpr double kParams = 70.6e9;
  static constexpr double kLayers = 80, kHidden = 8192;
  static constexpr double kKvBytesPerToken = 80 * 2 * 8 * 128 * 2;  // layers x K,V x kv heads x dim x BF16
  static constexpr double kPeakFlops = 1979e12;                     // dense FP8
  static constexpr double kHbmBw = 4.8e12;
  static constexpr double kOverhead = 0.5e-3;
};

RunConfig azure_conv_config(const StepTimeModel& model, bool trtllm) {
  RunConfig cfg;
  for (int i = 0; i < 8; ++i) {
    ReplicaParams rp;
    rp.step_model = &model;
    rp.kv = KvPoolParams{11000, 16, false};  // ~58 GB of BF16 KV per GPU
    rp.gpus = 1;
    if (trtllm) rp.decode_padding = make_decode_padding({1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512}, 256, 8192, 0, 1);
    cfg.replicas.push_back(rp);
  }
  cfg.scheduler.max_num_batched_tokens = 8192;
  cfg.scheduler.max_num_seqs = 256;
  cfg.scheduler.name = trtllm ? "trtllm" : "vllm";
  cfg.router = "least_outstanding";
  cfg.price_per_gpu_hour = MoneyRate(2.5);
  cfg.workload.source = [](std::uint64_t) {
    return open_trace(engramsim::test::source_root() + "/scenarios/traces/AzureLLMInferenceTrace_conv.csv", "azure");
  };
  return cfg;
}

void BM_AzureConv8Replicas(benchmark::State& state) {
  const Analytic70B model;
  const RunConfig cfg = azure_conv_config(model, state.range(0) == 1);
  std::uint64_t events = 0, steps = 0;
  double completed = 0, wall = 0, out_tput = 0, p99_ttft = 0;
  for (auto _ : state) {
    const RunResult r = run_simulation(cfg);
    events += r.events;
    steps += r.summary.steps;
    completed = static_cast<double>(r.summary.completed);
    wall += r.wall_seconds;
    out_tput = r.summary.output_throughput;
    p99_ttft = r.summary.ttft.p99;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(events) / n;
  state.counters["steps"] = static_cast<double>(steps) / n;
  state.counters["completed"] = completed;
  state.counters["wall_s"] = wall / n;
  state.counters["output_tok_s"] = out_tput;
  state.counters["p99_ttft_ms"] = p99_ttft;
  state.SetLabel(cfg.scheduler.name);
}
BENCHMARK(BM_AzureConv8Replicas)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
