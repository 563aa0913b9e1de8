// The host KV-offload tier on an AgentX replay: with a GPU KV pool too small for the live
// contexts, evicted prefixes are recomputed; a host pool turns those recomputes into loads over the
// host link and raises throughput. Also: without a pool nothing changes and no offload metric is
// written.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/metrics/result_writers.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/workload/agentx_generator.hpp"

namespace engramsim::sim {
namespace {

// Prefill dominates: 20 us per computed token plus attention over the cached context; decode 30 us
// per position. Loaded tokens cost nothing here but their host-link time (the replica adds it).
class PrefillHeavyModel final : public StepTimeModel {
 public:
  StepCost step(const BatchShape& b) const override {
    double ns = 4e6;
    for (const auto& p : b.prefill) ns += p.tokens * 20e3 + static_cast<double>(p.cached) * p.tokens * 2e-4;
    for (const auto& d : b.decode) ns += d.positions * 30e3 + static_cast<double>(d.context) * 1.0;
    StepCost c;
    c.compute = c.total = Time::ns(static_cast<std::int64_t>(ns));
    return c;
  }
};

RunConfig config(const StepTimeModel& model, std::int64_t offload_blocks) {
  RunConfig cfg;
  ReplicaParams rp;
  rp.step_model = &model;
  rp.kv = KvPoolParams{40000, 64, true, offload_blocks};  // 2.56M tokens of GPU KV
  rp.gpus = 4;
  rp.max_model_len = 1048576;
  // 64 tokens x 40 KiB per token per GPU over a 50 GB/s link, 10 us per transfer.
  rp.offload_link = KvOffloadLink{Bytes(64.0 * 40960.0), Bandwidth(50e9), Time::us(10)};
  cfg.replicas.push_back(rp);
  cfg.scheduler.name = "vllm";
  cfg.scheduler.max_num_batched_tokens = 8192;
  cfg.router = "sticky_session";
  cfg.seed = 42;
  AgenticWorkloadSpec a;
  a.sessions = [](std::uint64_t) { return make_agentx_generator(AgentxGeneratorParams{42, 24}); };
  a.replay.lanes = 16;
  a.replay.duration = Time::from_seconds(600.0);
  a.replay.grace = Time::from_seconds(300.0);
  cfg.workload.agentic = a;
  return cfg;
}

TEST(AgentxKvOffload, HostPoolTurnsRecomputedPrefixesIntoLoadsAndRaisesThroughput) {
  const PrefillHeavyModel model;
  const RunResult gpu_only = run_simulation(config(model, 0));
  const RunResult offload = run_simulation(config(model, 400000));  // 25.6M tokens of host KV
  const Summary& g = gpu_only.summary;
  const Summary& o = offload.summary;
  RecordProperty("recomputed_prefix_tokens_gpu_only", std::to_string(g.recomputed_prefix_tokens));
  RecordProperty("recomputed_prefix_tokens_offload", std::to_string(o.recomputed_prefix_tokens));
  RecordProperty("tput_per_gpu_gpu_only", std::to_string(g.tput_per_gpu));
  RecordProperty("tput_per_gpu_offload", std::to_string(o.tput_per_gpu));
  RecordProperty("host_prefix_hit_rate", std::to_string(o.host_prefix_hit_rate));
  std::cout << "gpu only: hit " << g.prefix_cache_hit_rate << " recomputed " << g.recomputed_prefix_tokens
            << " tput/GPU " << g.tput_per_gpu << " evictions " << g.kv_evictions << " completed " << g.completed
            << " ideal " << g.ideal_prefix_hit_rate << " recomputed after preemption " << g.recomputed_tokens << "\n"
            << "offload:  hit " << o.prefix_cache_hit_rate << " (GPU " << o.gpu_prefix_hit_rate << ", host "
            << o.host_prefix_hit_rate << ") recomputed " << o.recomputed_prefix_tokens << " tput/GPU " << o.tput_per_gpu
            << " loaded " << o.kv_offload_loaded_gb << " GB in " << o.kv_offload_load_s << " s, written "
            << o.kv_offload_written_gb << " GB, completed " << o.completed << "\n";
  ASSERT_GT(g.kv_evictions, 0);              // the GPU pool is under pressure
  ASSERT_GT(g.recomputed_prefix_tokens, 0);  // and evicted prefixes are recomputed
  EXPECT_FALSE(g.kv_offload);
  EXPECT_TRUE(o.kv_offload);
  EXPECT_GT(o.kv_offload_loaded_blocks, 0);
  EXPECT_GT(o.kv_offload_written_blocks, 0);
  EXPECT_GT(o.host_prefix_hit_rate, 0.0);
  EXPECT_NEAR(o.gpu_prefix_hit_rate + o.host_prefix_hit_rate, o.prefix_cache_hit_rate, 1e-12);
  EXPECT_LT(o.recomputed_prefix_tokens, g.recomputed_prefix_tokens / 2);
  EXPECT_GT(o.prefix_cache_hit_rate, g.prefix_cache_hit_rate);
  EXPECT_GT(o.tput_per_gpu, g.tput_per_gpu);
  EXPECT_GT(o.kv_offload_load_s, 0.0);
  // Loads are bytes / bandwidth plus latency: at least the bytes' time on one link of four.
  EXPECT_GE(o.kv_offload_load_s, o.kv_offload_loaded_gb * 1e9 / 4.0 / 50e9 * 0.999);
}

TEST(AgentxKvOffload, SummaryJsonCarriesOffloadKeysOnlyWithAPool) {
  const PrefillHeavyModel model;
  RunConfig cfg = config(model, 0);
  cfg.workload.agentic->replay.duration = Time::from_seconds(60.0);
  std::ostringstream a, b;
  write_summary_json(run_simulation(cfg).summary, {}, a);
  EXPECT_EQ(a.str().find("host_prefix_hit_rate"), std::string::npos);
  cfg.replicas[0].kv.offload_blocks = 1000;
  write_summary_json(run_simulation(cfg).summary, {}, b);
  EXPECT_NE(b.str().find("\"host_prefix_hit_rate\""), std::string::npos);
  EXPECT_NE(b.str().find("\"kv_offload_loaded_gb\""), std::string::npos);
}

}  // namespace
}  // namespace engramsim::sim
