// KV bytes per token: the GQA, MLA and CSA formulas and their TP sharding rules, both sides of the
// "one head per rank" limit.
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/card_loader.hpp"
#include "models/kv_size.hpp"

namespace engramsim {
namespace {

TEST(KvSize, GqaFormula) {
  const ModelCard c = load_model_card("llama-3.1-70b");
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(c).value(), 2.0 * 80 * 8 * 128 * 2);  // 327,680 B
}

TEST(KvSize, GqaSplitsHeadsDownToOnePerRank) {
  const ModelCard c = load_model_card("llama-3.1-70b");  // 8 KV heads
  const double whole = kv_bytes_per_token(c).value();
  EXPECT_DOUBLE_EQ(kv_size_per_gpu(c, 1, false).per_token.value(), whole);
  EXPECT_DOUBLE_EQ(kv_size_per_gpu(c, 4, false).per_token.value(), whole / 4);
  const KvSize at8 = kv_size_per_gpu(c, 8, false);
  EXPECT_DOUBLE_EQ(at8.per_token.value(), whole / 8);
  EXPECT_FALSE(at8.replicated_across_tp);
  const KvSize at16 = kv_size_per_gpu(c, 16, false);  // more ranks than heads: one head each
  EXPECT_DOUBLE_EQ(at16.per_token.value(), whole / 8);
  EXPECT_TRUE(at16.replicated_across_tp);
  // Data-parallel attention: whole KV for the GPU's own sequences.
  EXPECT_DOUBLE_EQ(kv_size_per_gpu(c, 8, true).per_token.value(), whole);
}

TEST(KvSize, MlaLatentIsReplicatedAcrossTp) {
  const ModelCard c = load_model_card("deepseek-v3");  // FP8 latent: (512 + 64) x 61 layers
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(c).value(), 576.0 * 61);
  const KvSize k = kv_size_per_gpu(c, 8, false);
  EXPECT_DOUBLE_EQ(k.per_token.value(), 576.0 * 61);
  EXPECT_TRUE(k.replicated_across_tp);
  EXPECT_FALSE(kv_size_per_gpu(c, 8, true).replicated_across_tp);
}

TEST(KvSize, CsaPagedLayoutChargesWholePagesOfTheWidestGroup) {
  const ModelCard c = load_model_card("deepseek-v4.1-flash");
  // SM100: pages of 128 states; 128 x 528 = 67,584 B (512-aligned) plus 128 x 68 = 8,704 B of indexer keys.
  // Ratio-2 sources 2, 8, 14 form the widest group: a block stride of 3 pages; a 256-token block of
  // that group and a 128-token block of the ratio-1 group (layer 20) per token: 3 / 256 blocks.
  const PagedKvCharge b = paged_kv_charge(c, 100);
  EXPECT_DOUBLE_EQ(b.block_stride.value(), 3.0 * (67584 + 8704));
  EXPECT_DOUBLE_EQ(b.blocks_per_token, 1.0 / 256 + 1.0 / 128);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(c, 100).value(), 3.0 * (67584 + 8704) * 3.0 / 256);
  // A 1M-token request: 4,096 + 8,192 blocks; one token more takes one more block of each group.
  EXPECT_EQ(b.blocks_for(1048576), 4096 + 8192);
  EXPECT_EQ(b.blocks_for(1048577), 4097 + 8193);
  // Other GPUs: 584 B states padded to 576 (74,752 -> 74,880) and 132 B FP8 keys (16,896 -> 17,280).
  const PagedKvCharge h = paged_kv_charge(c, 90);
  EXPECT_DOUBLE_EQ(h.block_stride.value(), 3.0 * (74880 + 17280));
  const KvSize k = kv_size_per_gpu(c, 4, false, 90);
  EXPECT_DOUBLE_EQ(k.per_token.value(), h.per_token().value());
  EXPECT_DOUBLE_EQ(k.per_sequence_fixed.value(), 128.0 * 40 * 576);
  EXPECT_TRUE(k.replicated_across_tp);
}

TEST(KvSize, CsaPagedLayoutNeedsTheSection) {
  ModelCard c = load_model_card("deepseek-v4.1-flash");
  c.kv.paged_layout.reset();
  EXPECT_THROW(paged_kv_charge(c, 100), std::invalid_argument);
}

TEST(KvSize, CsaWithoutLayoutOrOverrideCountsCompressedEntries) {
  ModelCard c = load_model_card("deepseek-v4.1-flash");
  c.kv.paged_layout.reset();
  c.kv.bytes_per_token = Bytes(890.0);
  EXPECT_DOUBLE_EQ(kv_size_per_gpu(c, 4, false).per_token.value(), 890.0);
  c.kv.bytes_per_token.reset();
  // Source layers 2, 8, 14 keep one entry per 2 tokens, layer 20 one per token; 512 FP8 bytes each.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(c).value(), 512.0 * (3 * 0.5 + 1.0));
  c.attention.compress_ratios[20] = 0;  // window only: no compressed entry
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(c).value(), 512.0 * 1.5);
}

TEST(KvSize, OverrideAppliesToGqaAndIsShardedLikeIt) {
  ModelCard c = load_model_card("llama-3.1-8b");
  c.kv.bytes_per_token = Bytes(1000.0);
  EXPECT_DOUBLE_EQ(kv_size_per_gpu(c, 2, false).per_token.value(), 500.0);
}

TEST(KvSize, RejectsZeroTp) {
  EXPECT_THROW(kv_size_per_gpu(load_model_card("llama-3.1-8b"), 0, false), std::invalid_argument);
}

}  // namespace
}  // namespace engramsim
