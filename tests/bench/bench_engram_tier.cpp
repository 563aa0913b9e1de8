// The in-run Engram tier over a whole run: the Azure LLM inference conversation trace (19,366
// requests, one hour) through 8 TP1 replicas on one HGX H200 node (4 PCIe switches of 2 GPUs), with
// a V4.1-shaped Engram module (layers 1 and 14, 24 rows of 264 B per token per layer) in host DRAM.
//
// The step model is analytic (tests/bench/analytic_70b.hpp: a 70B-class dense model on an
// H200-class GPU) so the benchmark measures the simulator and the tier, not models/. Its Engram
// layers report the compute before them as windows and the expected distinct rows of a Zipf(1)
// popularity over 16 M-row sub-tables (models/engram_fetch.hpp's RowPopularity, tabulated by
// position count).
// Cases: the formula path (no tier) for reference; the in-run DRAM tier (every step's fetch is
// flows on the node fabric, no cache: analytic row counts); and, on the first 5,000 requests, with
// an 8 GiB HBM hot-row cache (LFU) driven by 16 sampled rows per layer per step (a spatial sample of
// 131,072 keys; its cost grows with steps x sampled rows, so the smoke run stays short).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hardware/hardware_loader.hpp"
#include "models/engram_fetch.hpp"
#include "sim/memory/node_fabric_params.hpp"
#include "tests/bench/analytic_70b.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

using bench::azure_conv_config;
using bench::Llama70BRoofline;

class Analytic70BEngram final : public StepTimeModel {
 public:
  Analytic70BEngram() {
    const RowPopularity pop(16e6, 1.0);
    distinct_.resize(kMaxTabulated + 1);
    for (int p = 1; p <= kMaxTabulated; ++p) distinct_[static_cast<std::size_t>(p)] = pop.expected_distinct(p);
  }
  StepCost step(const BatchShape& b) const override {
    StepCost c;
    c.compute = Time::from_seconds(Llama70BRoofline::seconds(b));
    c.host_overhead = Time::from_seconds(Llama70BRoofline::kOverhead);
    c.total = c.compute + c.host_overhead;
    return c;
  }
  std::size_t engram_layer_count() const override { return 2; }
  StepCost step_engram(const BatchShape& b, std::span<EngramLayerStep> layers) const override {
    const StepCost c = step(b);
    double positions = 0;
    for (const auto& p : b.prefill) positions += p.tokens;
    for (const auto& d : b.decode) positions += d.positions;
    const auto p = static_cast<int>(std::min<double>(positions, kMaxTabulated));
    const double distinct = p > 0 ? distinct_[static_cast<std::size_t>(p)] * positions / p : 0.0;
    for (int e = 0; e < 2; ++e) {
      EngramLayerStep& l = layers[static_cast<std::size_t>(e)];
      l.layer = kEngramLayers[e];
      l.positions = positions;
      l.window = Time::from_seconds(c.compute.seconds() * (kEngramLayers[e] + 0.5) / Llama70BRoofline::kLayers);
      l.lookups = positions * kRows;
      l.distinct_rows = distinct * kRows;
      l.host_rows = l.distinct_rows;
    }
    return c;
  }

 private:
  static constexpr int kMaxTabulated = 16384;
  static constexpr int kEngramLayers[2] = {1, 14};
  static constexpr double kRows = 24;  // rows per token per layer (one rank)
  std::vector<double> distinct_;
};

EngramTierParams dram_tier() {
  EngramTierParams p;
  p.tier = EngramTier::dram;
  p.shape.table_rows = {384006168, 384016682};
  p.shape.rows_per_token = 24;
  p.shape.subtables_per_rank = 24;
  p.row_bytes = Bytes(264.0);
  p.uva_efficiency = 0.8;
  p.node = node_fabric_params(load_node("hgx-h200"));
  return p;
}

void run_case(benchmark::State& state, const RunConfig& cfg) {
  double wall = 0, stall_share = 0, flows = 0, steps = 0, out_tput = 0, hit = 0, gbps = 0;
  for (auto _ : state) {
    const RunResult r = run_simulation(cfg);
    wall += r.wall_seconds;
    stall_share = r.summary.engram_stall_share;
    steps = static_cast<double>(r.summary.steps);
    out_tput = r.summary.output_throughput;
    if (r.engram_tier) {
      flows = static_cast<double>(r.engram_tier->flows);
      hit = r.engram_tier->hbm_hit_ratio();
      gbps = r.engram_tier->per_gpu_fetch_bandwidth() * 1e-9;
    }
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["wall_s"] = wall / n;
  state.counters["steps"] = steps;
  state.counters["flows"] = flows;
  state.counters["stall_share"] = stall_share;
  state.counters["output_tok_s"] = out_tput;
  state.counters["hbm_hit"] = hit;
  state.counters["gpu_fetch_GBps"] = gbps;
}

void BM_AzureConvFormula(benchmark::State& state) {
  const Analytic70BEngram model;
  run_case(state, azure_conv_config(model));
}
BENCHMARK(BM_AzureConvFormula)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AzureConvInRunDram(benchmark::State& state) {
  const Analytic70BEngram model;
  RunConfig cfg = azure_conv_config(model);
  cfg.engram_tier = dram_tier();
  run_case(state, cfg);
}
BENCHMARK(BM_AzureConvInRunDram)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AzureConvInRunDramHbmCache(benchmark::State& state) {
  const Analytic70BEngram model;
  RunConfig cfg = azure_conv_config(model);
  EngramTierParams tier = dram_tier();
  tier.hbm_cache = Bytes(8.0 * 1073741824.0);
  tier.hbm_policy = HotRowPolicy::lfu;
  tier.sample_rows_per_step = 16;
  cfg.engram_tier = tier;
  cfg.workload.max_requests = 5000;
  run_case(state, cfg);
}
BENCHMARK(BM_AzureConvInRunDramHbmCache)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
