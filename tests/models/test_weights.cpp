// Weight inventory: element counts per group against hand arithmetic, the self-check against
// published parameter counts, Engram table sizes, and the sharding rules on both sides of each limit.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "models/card_loader.hpp"
#include "models/weights.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

namespace fs = std::filesystem;

bool has_group(const LayerWeights& l, const std::string& name) {
  for (const auto& g : l.groups)
    if (g.name == name) return true;
  return false;
}

const WeightGroup& find_group(const LayerWeights& l, const std::string& name) {
  for (const auto& g : l.groups)
    if (g.name == name) return g;
  throw std::runtime_error("no weight group " + name + " in layer " + std::to_string(l.index));
}

TEST(Weights, EveryCardMatchesItsPublishedParameterCount) {
  int checked = 0;
  for (const auto& e : fs::directory_iterator(engramsim::test::source_root() + "/models/cards")) {
    if (e.path().extension() != ".yaml") continue;
    const ModelCard c = load_model_card(e.path().string());
    if (c.published_params == 0) continue;
    const WeightInventory inv = build_weight_inventory(c);
    EXPECT_LT(std::abs(inv.published_params_deviation()), 0.02)
        << c.name << ": inventory " << inv.backbone_params() << " vs published " << c.published_params;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(Weights, DeviationIsSignedAndZeroWithoutPublishedCount) {
  ModelCard c = load_model_card("llama-3.1-8b");
  const std::int64_t n = build_weight_inventory(c).backbone_params();
  c.published_params = n;
  EXPECT_DOUBLE_EQ(build_weight_inventory(c).published_params_deviation(), 0.0);
  c.published_params = n * 2;
  EXPECT_DOUBLE_EQ(build_weight_inventory(c).published_params_deviation(), -0.5);
  c.published_params = 0;
  EXPECT_DOUBLE_EQ(build_weight_inventory(c).published_params_deviation(), 0.0);
}

TEST(Weights, Llama31_8bGroupsByHand) {
  const WeightInventory inv = build_weight_inventory(load_model_card("llama-3.1-8b"));
  ASSERT_EQ(inv.layers().size(), 32u);
  const LayerWeights& l = inv.layer(5);
  EXPECT_EQ(find_group(l, "attn.q").elements, 4096LL * 4096);
  EXPECT_EQ(find_group(l, "attn.kv").elements, 4096LL * 2 * 8 * 128);
  EXPECT_EQ(find_group(l, "attn.kv").shard_units, 8);
  EXPECT_EQ(find_group(l, "attn.o").elements, 4096LL * 4096);
  EXPECT_EQ(l.elements_of(WeightKind::dense_ffn), 3LL * 4096 * 14336);
  EXPECT_FALSE(l.moe);
  EXPECT_DOUBLE_EQ(l.bytes_per_expert().value(), 0.0);
  EXPECT_DOUBLE_EQ(find_group(l, "attn.q").bytes().value(), 4096.0 * 4096 * 2);
  EXPECT_THROW(inv.layer(32), std::out_of_range);
}

// A tied embedding is one matrix: stored once (as the head the step reads), counted once.
TEST(Weights, TiedEmbeddingIsStoredOnce) {
  ModelCard c = load_model_card("qwen3-4b");
  ASSERT_TRUE(c.tie_word_embeddings);
  const WeightInventory tied = build_weight_inventory(c);
  c.tie_word_embeddings = false;
  const WeightInventory untied = build_weight_inventory(c);
  const std::int64_t table = 151936LL * 2560;
  EXPECT_EQ(untied.backbone_params() - tied.backbone_params(), table);
  int heads = 0;
  for (const auto& g : tied.model_groups()) {
    EXPECT_NE(g.kind, WeightKind::embedding) << g.name;
    if (g.kind == WeightKind::lm_head) {
      EXPECT_EQ(g.elements, table);
      ++heads;
    }
  }
  EXPECT_EQ(heads, 1);
}

TEST(Weights, V41LayersCarryTheirSpecialModules) {
  const WeightInventory inv = build_weight_inventory(load_model_card("deepseek-v4.1-flash"));
  // Engram fusion only in layers 1 and 14; compressor on kv-source layers; indexer on index-source layers.
  for (int i = 0; i < 40; ++i) {
    const LayerWeights& l = inv.layer(i);
    EXPECT_EQ(l.engram, i == 1 || i == 14) << i;
    EXPECT_EQ(l.elements_of(WeightKind::engram_fusion) > 0, i == 1 || i == 14) << i;
    EXPECT_EQ(has_group(l, "attn.compressor"), i == 2 || i == 8 || i == 14 || i == 20) << i;
    EXPECT_EQ(has_group(l, "attn.indexer"),
              i == 2 || i == 8 || i == 14 || i == 20 || i == 24 || i == 28 || i == 32 || i == 36)
        << i;
    EXPECT_TRUE(l.moe);
  }
  const LayerWeights& l = inv.layer(0);
  EXPECT_EQ(l.num_experts, 384);
  EXPECT_EQ(l.top_k, 6);
  const std::int64_t experts = 384LL * 3 * 5120 * 2304;
  EXPECT_EQ(l.elements_of(WeightKind::routed_experts), experts);
  // MXFP4: half a byte plus one 1-byte scale per 32 elements.
  EXPECT_DOUBLE_EQ(l.bytes_of(WeightKind::routed_experts).value(), experts * (0.5 + 1.0 / 32));
  EXPECT_DOUBLE_EQ(l.bytes_per_expert().value(), 3.0 * 5120 * 2304 * (0.5 + 1.0 / 32));
  // The single KV head is held whole by every rank.
  EXPECT_EQ(find_group(l, "attn.kv").sharding, ShardingClass::replicated);
  EXPECT_EQ(find_group(l, "attn.q_b").sharding, ShardingClass::tp_sharded);
  EXPECT_EQ(find_group(l, "attn.o_a").shard_units, 8);
  // Fusion: W_V + 4 W_K from 24 x 256 = 6144 memory dims to 5120.
  EXPECT_EQ(inv.layer(1).elements_of(WeightKind::engram_fusion), 5LL * 6144 * 5120);
}

TEST(Weights, V41EngramTables) {
  const WeightInventory inv = build_weight_inventory(load_model_card("deepseek-v4.1-flash"));
  const EngramTables& t = inv.engram();
  EXPECT_EQ(t.total_rows(), 768022850);
  EXPECT_DOUBLE_EQ(t.bytes_per_token_position().value(), 12672.0);  // 48 rows x 264 B
  EXPECT_NEAR(t.total_bytes().gib(), 188.8, 0.05);
  EXPECT_NEAR(t.payload_bytes().gib(), 183.1, 0.05);
  EXPECT_EQ(t.parameters(), 768022850LL * 256);
}

TEST(Weights, V41DrafterIsAbout14BAndReplicated) {
  const WeightInventory inv = build_weight_inventory(load_model_card("deepseek-v4.1-flash"));
  EXPECT_TRUE(inv.drafter_replicated());
  ASSERT_EQ(inv.drafter_layers().size(), 3u);
  EXPECT_EQ(inv.drafter_layers()[0].num_experts, 128);
  EXPECT_EQ(inv.drafter_layers()[0].top_k, 3);
  EXPECT_NEAR(static_cast<double>(inv.drafter_params()) / 14e9, 1.0, 0.05);
  // Drafter layers never carry Engram modules or CSA source-layer extras.
  for (const auto& l : inv.drafter_layers()) {
    EXPECT_FALSE(l.engram);
    EXPECT_EQ(l.elements_of(WeightKind::attn_indexer), 0);
  }
}

TEST(Weights, V3DenseThenMoeAndMtpSharded) {
  const WeightInventory inv = build_weight_inventory(load_model_card("deepseek-v3"));
  EXPECT_FALSE(inv.layer(2).moe);
  EXPECT_TRUE(inv.layer(3).moe);
  EXPECT_EQ(inv.layer(2).elements_of(WeightKind::dense_ffn), 3LL * 7168 * 18432);
  EXPECT_EQ(inv.layer(3).elements_of(WeightKind::routed_experts), 256LL * 3 * 7168 * 2048);
  EXPECT_EQ(find_group(inv.layer(3), "attn.kv_a").elements, 7168LL * (512 + 64));
  EXPECT_EQ(find_group(inv.layer(3), "attn.kv_a").sharding, ShardingClass::replicated);
  // FP8 with one FP32 scale per 128 x 128 block.
  EXPECT_DOUBLE_EQ(find_group(inv.layer(3), "attn.o").scale_bytes_per_element, 4.0 / 16384);
  EXPECT_FALSE(inv.drafter_replicated());
  // MTP: one MoE block plus the merge projection; the hub's 14B also counts embedding/head copies.
  const double with_copies = static_cast<double>(inv.drafter_params()) + 2.0 * 129280 * 7168;
  EXPECT_NEAR(with_copies / 14e9, 1.0, 0.05);
}

TEST(Weights, EngramPaperModelsShareTheBackbone) {
  const WeightInventory a = build_weight_inventory(load_model_card("engram-27b"));
  const WeightInventory b = build_weight_inventory(load_model_card("engram-40b"));
  EXPECT_EQ(a.backbone_params(), b.backbone_params());
  // Table parameters: 5.79B and 18.53B (facts §1.5).
  EXPECT_NEAR(static_cast<double>(a.engram().parameters()) / 1e9, 5.79, 0.01);
  EXPECT_NEAR(static_cast<double>(b.engram().parameters()) / 1e9, 18.53, 0.01);
  EXPECT_EQ(a.engram().rows_per_token_per_layer, 16);
  const WeightInventory d = build_weight_inventory(load_model_card("engram-offload-dense-4b"));
  EXPECT_EQ(d.engram().parameters(), 100000000000LL);  // the 100B-parameter layer
  EXPECT_EQ(d.engram().layers, (std::vector<int>{1}));
}

// --- sharding rules -----------------------------------------------------------------------------

WeightGroup group(ShardingClass s, std::int64_t units) {
  WeightGroup g;
  g.elements = 1000;
  g.sharding = s;
  g.shard_units = units;
  return g;
}

TEST(Sharding, ReplicatedIsWhole) {
  EXPECT_DOUBLE_EQ(shard_fraction(group(ShardingClass::replicated, 0), {8, 1, false}), 1.0);
}

TEST(Sharding, TpShardedSplitsDownToOneUnitPerRank) {
  const auto g = group(ShardingClass::tp_sharded, 8);  // 8 heads
  EXPECT_DOUBLE_EQ(shard_fraction(g, {1, 1, false}), 1.0);
  EXPECT_DOUBLE_EQ(shard_fraction(g, {4, 1, false}), 2.0 / 8);
  EXPECT_DOUBLE_EQ(shard_fraction(g, {8, 1, false}), 1.0 / 8);
  EXPECT_DOUBLE_EQ(shard_fraction(g, {16, 1, false}), 1.0 / 8);  // cannot go below one head
  EXPECT_DOUBLE_EQ(shard_fraction(group(ShardingClass::tp_sharded, 6), {4, 1, false}), 2.0 / 6);  // ceil
  EXPECT_DOUBLE_EQ(shard_fraction(group(ShardingClass::tp_sharded, 0), {16, 1, false}), 1.0 / 16);
}

TEST(Sharding, DataParallelAttentionKeepsTpGroupsWholeButNotExperts) {
  EXPECT_DOUBLE_EQ(shard_fraction(group(ShardingClass::tp_sharded, 8), {8, 8, true}), 1.0);
  EXPECT_DOUBLE_EQ(shard_fraction(group(ShardingClass::ep_sharded, 384), {8, 8, true}), 48.0 / 384);
}

TEST(Sharding, ExpertsSpreadWholeAcrossEpGroups) {
  const auto g = group(ShardingClass::ep_sharded, 55);
  EXPECT_DOUBLE_EQ(shard_fraction(g, {8, 1, false}), 1.0 / 8);        // TP inside every expert
  EXPECT_DOUBLE_EQ(shard_fraction(g, {8, 8, false}), 7.0 / 55);       // ceil(55 / 8) = 7 experts per GPU
  EXPECT_DOUBLE_EQ(shard_fraction(g, {8, 2, false}), 28.0 / 55 / 4);  // 28 experts per group of 4 GPUs
  EXPECT_DOUBLE_EQ(shard_fraction(group(ShardingClass::ep_sharded, 384), {8, 8, false}), 1.0 / 8);
}

TEST(Sharding, ReplicateAllOverridesTheClass) {
  EXPECT_DOUBLE_EQ(shard_fraction(group(ShardingClass::ep_sharded, 128), {8, 8, false}, true), 1.0);
}

TEST(Sharding, RejectsBadLayouts) {
  const auto g = group(ShardingClass::tp_sharded, 8);
  EXPECT_THROW(shard_fraction(g, {0, 1, false}), std::invalid_argument);
  EXPECT_THROW(shard_fraction(g, {4, 3, false}), std::invalid_argument);
  EXPECT_THROW(shard_fraction(g, {4, 0, false}), std::invalid_argument);
  EXPECT_NO_THROW(shard_fraction(g, {4, 4, false}));
}

}  // namespace
}  // namespace engramsim
