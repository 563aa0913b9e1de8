// The agentic replay at the acceptance scale: 3,600 s measured (after a 1,800 s grace) at
// concurrency 128 on one replica, long-context session trees with subagent groups, prefix caching
// under KV pressure. Reports wall time per run, requests, and the peak resident memory.
//
// The trees are made here (AgentX-shaped: a ~30k-token first prompt growing by ~3.8k new tokens a
// turn toward a few hundred thousand, ~1.4k-token outputs, second-scale gaps with a heavy tail,
// a subagent group every ~8 turns), and the step-time model is an analytic stand-in for one
// 4-GPU replica, so the benchmark measures the simulator, not models/ or the corpus reader.
//
// BM_AgenticReplayTightKv: the same replay on a pool of 12,000 blocks (768k tokens), where queue
// heads with long prompts wait for blocks step after step (the case the cached prefix lookup of
// replica_state.hpp is for); BM_AgenticReplayKvOffload adds a host KV-offload pool of 200,000 blocks.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>

#include "core/rng.hpp"
#include "sim/run/run_simulation.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

class AnalyticReplica final : public StepTimeModel {
 public:
  StepCost step(const BatchShape& b) const override {
    double ns = 6e6;  // weights read and launch overhead per step
    for (const auto& p : b.prefill) ns += p.tokens * 20e3 + static_cast<double>(p.cached) * p.tokens * 1e-3;
    for (const auto& d : b.decode) ns += d.positions * 40e3 + static_cast<double>(d.context) * 2.0;
    StepCost c;
    c.compute = c.total = Time::ns(static_cast<std::int64_t>(ns));
    return c;
  }
};

class BenchTrees final : public AgenticSessionSource {
 public:
  explicit BenchTrees(std::int32_t n) : n_(n) {}
  bool next(AgenticSession& out) override;
  std::string describe() const override { return "bench trees"; }

 private:
  AgenticCall make_call(RngStream& rng, Time& t, std::vector<std::uint64_t>& chain, std::uint64_t& next_id,
                        std::int32_t grow);
  std::int32_t n_;
  std::int32_t i_ = 0;
};

AgenticCall BenchTrees::make_call(RngStream& rng, Time& t, std::vector<std::uint64_t>& chain, std::uint64_t& next_id,
                                  std::int32_t grow) {
  AgenticCall c;
  const auto blocks = static_cast<std::size_t>(std::max<std::int32_t>(1, grow / 64));
  for (std::size_t b = 0; b < blocks && chain.size() < 15000; ++b) chain.push_back(next_id++);
  c.hash_ids = chain;
  c.input_tokens = static_cast<std::int32_t>(chain.size() * 64);
  c.output_tokens = std::max<std::int32_t>(1, static_cast<std::int32_t>(rng.exponential(1.0 / 1374.0)));
  c.start = t;
  c.api_time = Time::from_seconds(5.0 + c.output_tokens * 0.01);
  t += c.api_time + Time::from_seconds(std::min(3000.0, std::exp(rng.normal(1.6, 2.0))));
  return c;
}

bool BenchTrees::next(AgenticSession& out) {
  if (i_ >= n_) return false;
  RngStream rng(7, "bench/tree/" + std::to_string(i_++));
  out = AgenticSession{};
  out.id = "t" + std::to_string(i_);
  out.block_tokens = 64;
  std::vector<std::uint64_t> chain;
  std::uint64_t next_id = 1;
  Time t;
  const auto turns = 20 + rng.uniform_int(0, 60);
  for (std::int64_t k = 0; k < turns; ++k) {
    out.entries.emplace_back(
        make_call(rng, t, chain, next_id, k == 0 ? 30000 : static_cast<std::int32_t>(rng.exponential(1.0 / 3800.0))));
    if (k % 8 == 7) {
      AgenticSubagent g;
      g.agent_id = "g" + std::to_string(k);
      std::vector<std::uint64_t> sub(chain.begin(), chain.begin() + std::min<std::size_t>(chain.size(), 300));
      Time ts = t;
      for (int j = 0; j < 4; ++j) g.calls.push_back(make_call(rng, ts, sub, next_id, 4000));
      t = std::max(t, ts);
      out.entries.emplace_back(std::move(g));
    }
  }
  return true;
}

RunConfig replay_config(const StepTimeModel& model, std::int32_t lanes, std::int64_t kv_blocks = 90000) {
  RunConfig cfg;
  ReplicaParams rp;
  rp.step_model = &model;
  rp.kv = KvPoolParams{kv_blocks, 64, true};  // 90,000: ~5.8M tokens of KV
  rp.gpus = 4;
  rp.max_model_len = 1048576;
  cfg.replicas.push_back(rp);
  cfg.scheduler.name = "vllm";
  cfg.scheduler.max_num_batched_tokens = 8192;
  cfg.scheduler.max_num_seqs = 256;
  cfg.router = "session_affinity";
  cfg.seed = 42;
  AgenticWorkloadSpec a;
  a.sessions = [](std::uint64_t) { return std::make_unique<BenchTrees>(393); };
  a.replay.lanes = lanes;
  cfg.workload.agentic = a;
  return cfg;
}

void run_replay(benchmark::State& state, const RunConfig& cfg) {
  RunResult r;
  for (auto _ : state) {
    r = run_simulation(cfg);
    benchmark::DoNotOptimize(r.summary.completed);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["requests"] = static_cast<double>(r.requests.size());
  state.counters["measured"] = static_cast<double>(r.summary.num_requests);
  state.counters["sim_s"] = r.summary.duration_s;
  state.counters["steps"] = static_cast<double>(r.summary.steps);
  state.counters["hit_rate"] = r.summary.prefix_cache_hit_rate;
  state.counters["kv_evictions"] = static_cast<double>(r.summary.kv_evictions);
  state.counters["peak_rss_MiB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void BM_AgenticReplay(benchmark::State& state) {
  const AnalyticReplica model;
  run_replay(state, replay_config(model, static_cast<std::int32_t>(state.range(0))));
}
BENCHMARK(BM_AgenticReplay)->Arg(128)->Unit(benchmark::kSecond)->Iterations(1);

void BM_AgenticReplayTightKv(benchmark::State& state) {
  const AnalyticReplica model;
  run_replay(state, replay_config(model, static_cast<std::int32_t>(state.range(0)), 12000));
}
BENCHMARK(BM_AgenticReplayTightKv)->Arg(128)->Unit(benchmark::kSecond)->Iterations(1);

void BM_AgenticReplayKvOffload(benchmark::State& state) {
  const AnalyticReplica model;
  RunConfig cfg = replay_config(model, static_cast<std::int32_t>(state.range(0)), 12000);
  cfg.replicas[0].kv.offload_blocks = 200000;
  cfg.replicas[0].offload_link = KvOffloadLink{Bytes(64.0 * 20480.0), Bandwidth(55e9), Time::us(1.5)};
  run_replay(state, cfg);
}
BENCHMARK(BM_AgenticReplayKvOffload)->Arg(128)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
