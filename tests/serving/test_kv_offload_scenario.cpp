// The scenario key of the host KV-offload pool (deployment.scheduler.kv_offloading_size): its pool
// size in blocks, its place in the node's host-memory accounting, the link the replica prices its
// copies with, and the errors at the key.
#include <gtest/gtest.h>

#include <cmath>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/engram_host_path.hpp"
#include "scenario/build/scenario_build.hpp"
#include "scenario/schema/scenario.hpp"
#include "tests/support/config_error.hpp"

namespace engramsim::sim {

using namespace engramsim::scenario;
namespace {

std::string scenario(const std::string& replicas, const std::string& scheduler_extra,
                     const std::string& attention = "tensor") {
  return "name: k\nmodel: deepseek-v4.1-flash\nnode: hgx-b200\nseed: 3\ndeployment:\n  replicas: " + replicas +
         "\n  tp: 4\n  attention: " + attention +
         "\n  engram: {tier: dram}\n"
         "  scheduler: {block_size: 64, max_num_seqs: 64, max_num_batched_tokens: 4096" +
         scheduler_extra +
         "}\n"
         "workload:\n  kind: closed_loop\n  concurrency: 8\n  num_requests: 16\n"
         "  input: {distribution: fixed, tokens: 512}\n  output: {distribution: fixed, tokens: 32}\n";
}

BuiltScenario build(const std::string& text) {
  return build_scenario(parse_scenario(ConfigNode::load_string(text, "k.yaml")));
}

TEST(KvOffloadScenario, OffByDefault) {
  const BuiltScenario b = build(scenario("1", ", enable_prefix_caching: true"));
  EXPECT_EQ(b.kv_offload_blocks_per_replica, 0);
  EXPECT_EQ(b.run.replicas[0].kv.offload_blocks, 0);
  EXPECT_EQ(b.host_memory.kv_offload_pools.value(), 0.0);
  EXPECT_EQ(scenario::scenario_json(b).find("kv_offload_pool"), std::string::npos);
}

TEST(KvOffloadScenario, SizesThePoolAndCountsItInHostMemory) {
  const BuiltScenario off = build(scenario("2", ", enable_prefix_caching: true"));
  const BuiltScenario b = build(scenario("2", ", enable_prefix_caching: true, kv_offloading_size: 64GiB"));
  const double block = b.footprint.per_gpu.kv_bytes_per_token.value() * 64.0 * 4.0;  // TP attention: x TP
  EXPECT_DOUBLE_EQ(b.kv_block_bytes_per_replica.value(), block);
  EXPECT_EQ(b.kv_offload_blocks_per_replica, static_cast<std::int64_t>(std::floor(64.0 * 1073741824.0 / block)));
  ASSERT_EQ(b.run.replicas.size(), 2u);
  EXPECT_EQ(b.run.replicas[1].kv.offload_blocks, b.kv_offload_blocks_per_replica);
  // Both replicas sit on the one node: two pools, taken from the page cache.
  EXPECT_DOUBLE_EQ(b.host_memory.kv_offload_pools.gib(), 128.0);
  EXPECT_NEAR(b.host_memory.page_cache_capacity.gib(), off.host_memory.page_cache_capacity.gib() - 128.0, 1e-9);
  const auto& h = b.host_memory;
  EXPECT_DOUBLE_EQ(
      h.page_cache_capacity.value(),
      page_cache_capacity({h.capacity, h.reserve, h.pinned_engram, h.row_caches, h.kv_offload_pools}).value());
  // Copies: one GPU's share of a block over that GPU's host link, with the preset's latency.
  const NodeSpec node = load_node("hgx-b200");
  const KvOffloadLink& l = b.run.replicas[0].offload_link;
  EXPECT_DOUBLE_EQ(l.block_bytes_per_gpu.value(), block / 4.0);
  EXPECT_DOUBLE_EQ(l.bandwidth.value(), node.gpu.host_link_bandwidth.value());
  EXPECT_EQ(l.latency, node.host_link_latency);
  EXPECT_NE(scenario::scenario_json(b).find("\"kv_offload_pool\""), std::string::npos);
}

TEST(KvOffloadScenario, UnderDataParallelAttentionABlockLivesOnOneGpu) {
  const std::string key = ", enable_prefix_caching: true, kv_offloading_size: 64GiB";
  const BuiltScenario tensor = build(scenario("1", key));
  const BuiltScenario data = build(scenario("1", key, "data"));
  ASSERT_TRUE(data.footprint.dp_attention);
  EXPECT_DOUBLE_EQ(data.kv_block_bytes_per_replica.value(), data.footprint.per_gpu.kv_bytes_per_token.value() * 64.0);
  EXPECT_DOUBLE_EQ(data.run.replicas[0].offload_link.block_bytes_per_gpu.value(),
                   data.kv_block_bytes_per_replica.value() / 4.0);  // spread over the four links
  EXPECT_FALSE(tensor.footprint.dp_attention);
}

TEST(KvOffloadScenario, OnePoolPerReplicaPlacedOnTheNode) {
  const BuiltScenario b = build(scenario("1", ", enable_prefix_caching: true, kv_offloading_size: 64GiB"));
  EXPECT_DOUBLE_EQ(b.host_memory.kv_offload_pools.gib(), 64.0);
}

TEST(KvOffloadScenario, PoolsBeyondHostDramAreInfeasible) {
  // 2 x 1 TiB of pools beside two pinned copies of the tables on a 2 TB host.
  try {
    build(scenario("2", ", enable_prefix_caching: true, kv_offloading_size: 1TiB"));
    FAIL() << "two 1 TiB pools cannot fit";
  } catch (const InfeasibleScenario& e) {
    EXPECT_NE(std::string(e.what()).find("KV-offload pools"), std::string::npos) << e.what();
  }
}

TEST(KvOffloadScenario, ErrorsAtTheKey) {
  const auto message = [](const std::string& extra) {
    return test::config_error_of([&] { build(scenario("1", extra)); }, "no error");
  };
  const std::string no_prefix = message(", kv_offloading_size: 64GiB");
  EXPECT_NE(no_prefix.find("kv_offloading_size"), std::string::npos) << no_prefix;
  EXPECT_NE(no_prefix.find("enable_prefix_caching"), std::string::npos) << no_prefix;
  const std::string bare = message(", enable_prefix_caching: true, kv_offloading_size: 64");
  EXPECT_NE(bare.find("kv_offloading_size"), std::string::npos) << bare;
  const std::string negative = message(", enable_prefix_caching: true, kv_offloading_size: -1GiB");
  EXPECT_NE(negative.find("kv_offloading_size"), std::string::npos) << negative;
}

}  // namespace
}  // namespace engramsim::sim
