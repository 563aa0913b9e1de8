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

TEST(KvSize, CsaUsesTheCardOverrideAndWindow) {
  const ModelCard c = load_model_card("deepseek-v4.1-flash");
  const KvSize k = kv_size_per_gpu(c, 4, false);
  EXPECT_DOUBLE_EQ(k.per_token.value(), 890.0);
  EXPECT_DOUBLE_EQ(k.per_sequence_fixed.value(), 128.0 * 40 * 576);
  EXPECT_TRUE(k.replicated_across_tp);
}

TEST(KvSize, CsaWithoutOverrideCountsCompressedEntries) {
  ModelCard c = load_model_card("deepseek-v4.1-flash");
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
