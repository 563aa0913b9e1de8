// A whole serving run: the Azure LLM inference conversation trace (19,366 requests, one hour)
// through 8 replicas of a 70B-class dense model, under vLLM-style continuous batching (arg 0) or
// TensorRT-LLM's no-evict admission with decode steps padded to CUDA-graph sizes (arg 1).
// BM_AzureConvDisaggregated: the same trace and GPUs as 2 prefill + 6 decode replicas, every
// request's KV moved as a flow on the cluster fabric (one-GPU nodes, 50 GB/s NICs).
//
// The step-time model is analytic (tests/bench/analytic_70b.hpp: a roofline of a Llama-3-70B-shaped
// model on one H200-class GPU) so the benchmark measures the simulator, not the models/ library.
// Reports wall time per run and events per second.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "tests/bench/analytic_70b.hpp"
#include "tests/fabric/fabric_nodes.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

using bench::Llama70BRoofline;

class Analytic70B final : public StepTimeModel {
 public:
  StepCost step(const BatchShape& b) const override {
    StepCost c;
    c.compute = Time::from_seconds(Llama70BRoofline::seconds(b) + Llama70BRoofline::kOverhead);
    c.host_overhead = Time::from_seconds(Llama70BRoofline::kOverhead);
    c.total = c.compute;
    return c;
  }
};

// vLLM, or TensorRT-LLM with decode steps padded to its CUDA-graph sizes.
RunConfig azure_conv_config(const StepTimeModel& model, bool trtllm) {
  RunConfig cfg = bench::azure_conv_config(model);
  if (trtllm)
    for (ReplicaParams& rp : cfg.replicas)
      rp.decode_padding = make_decode_padding({1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512}, 256, 8192, 0, 1);
  cfg.scheduler.name = trtllm ? "trtllm" : "vllm";
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

void BM_AzureConvDisaggregated(benchmark::State& state) {
  const Analytic70B model;
  RunConfig cfg = azure_conv_config(model, false);
  DisaggregationParams d;
  d.prefill_replicas.assign(cfg.replicas.begin(), cfg.replicas.begin() + 2);
  cfg.replicas.erase(cfg.replicas.begin(), cfg.replicas.begin() + 2);
  d.prefill_scheduler = cfg.scheduler;
  d.transfer.bytes_per_token = Bytes(327680);  // 70B-class GQA: 80 layers x 8 KV heads x 128 x 2 x 2 B
  d.transfer.prefill = {"a", fabric::testing::one_gpu_nic_node(), 0, 1, KvLayout::replicated};
  d.transfer.decode = {"b", fabric::testing::one_gpu_nic_node(), 0, 1, KvLayout::replicated};
  d.transfer.setup = Time::ms(5);
  cfg.disaggregation = d;
  std::uint64_t events = 0;
  double wall = 0, transfers = 0, transfer_ms = 0;
  for (auto _ : state) {
    const RunResult r = run_simulation(cfg);
    events += r.events;
    wall += r.wall_seconds;
    transfers = static_cast<double>(r.disaggregation->transfers);
    transfer_ms = r.summary.mean_kv_transfer_ms;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(events) / n;
  state.counters["wall_s"] = wall / n;
  state.counters["transfers"] = transfers;
  state.counters["mean_transfer_ms"] = transfer_ms;
}
BENCHMARK(BM_AzureConvDisaggregated)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
