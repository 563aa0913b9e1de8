// Work decomposition: every op formula against a hand-computed case (the arithmetic is in the
// comments), on small cards built here so the numbers stay checkable, plus the real V4.1 and V3
// cards for their special shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "models/card_loader.hpp"
#include "models/weights.hpp"
#include "models/work.hpp"

namespace engramsim {
namespace {

// A 2-layer dense GQA model: hidden 1024, 8 heads x 128, 2 KV heads, FFN 4096, vocab 1000, BF16.
ModelCard tiny_gqa() {
  ModelCard c;
  c.name = "tiny-gqa";
  c.num_layers = 2;
  c.hidden_size = 1024;
  c.vocab_size = 1000;
  c.max_context = 4096;
  c.dense_intermediate = 4096;
  c.attention.kind = AttentionKind::gqa;
  c.attention.num_heads = 8;
  c.attention.num_kv_heads = 2;
  c.attention.head_dim = 128;
  c.kv.precision = Precision::bf16;
  return c;
}

const OpWork& op_named(const std::vector<OpWork>& ops, const char* name) {
  for (const auto& o : ops)
    if (std::strcmp(o.name, name) == 0) return o;
  throw std::runtime_error(std::string("no op ") + name);
}

bool has_op(const std::vector<OpWork>& ops, const char* name) {
  for (const auto& o : ops)
    if (std::strcmp(o.name, name) == 0) return true;
  return false;
}

struct Batch {
  std::vector<PrefillChunk> prefill;
  std::vector<DecodeSeq> decode;
  BatchShape shape() const { return {prefill, decode}; }
};

TEST(Work, GqaProjectionAndAttentionTp1) {
  const ModelCard c = tiny_gqa();
  const WorkModel m(c, build_weight_inventory(c), ParallelLayout{1, 1, false});
  Batch b;
  b.decode = {{100, 1}, {300, 1}};
  const StepWork w = m.decompose(b.shape());
  const auto& l0 = w.layers[0].ops;
  // attn.q: 1024 x (8 x 128) = 1,048,576 weights. FLOPs 2 x 2 tokens x 1,048,576 = 4,194,304.
  // Bytes: 1,048,576 x 2 B = 2,097,152 weights + 2 tokens x (1024 in + 1024 out) x 2 B = 8,192.
  const OpWork& q = op_named(l0, "attn.q");
  EXPECT_DOUBLE_EQ(q.flops.value(), 4194304.0);
  EXPECT_DOUBLE_EQ(q.hbm_bytes.value(), 2097152.0 + 8192.0);
  EXPECT_DOUBLE_EQ(q.flops_key, 2.0);
  // Decode attention: queries at positions 101 and 301 attend to all earlier keys: 402 pairs.
  // FLOPs 4 x 8 heads x 128 x 402 = 1,646,592. KV: 402 entries x (2 x 2 heads x 128 x 2 B = 1024 B).
  const OpWork& att = op_named(l0, "attn.decode");
  EXPECT_DOUBLE_EQ(att.flops.value(), 1646592.0);
  EXPECT_DOUBLE_EQ(att.hbm_bytes.value(), 402.0 * 1024.0);
  EXPECT_EQ(att.op_class, OpClass::attention_decode);
  EXPECT_DOUBLE_EQ(att.flops_key, 4.0);  // 8 query heads per 2 KV heads x 1 position
  // Dense FFN: 3 x 1024 x 4096 = 12,582,912 weights; FLOPs 2 x 2 x 12,582,912 = 50,331,648.
  EXPECT_DOUBLE_EQ(op_named(l0, "ffn.dense").flops.value(), 50331648.0);
  // No prefill in this step: the prefill attention op carries no work.
  EXPECT_DOUBLE_EQ(op_named(l0, "attn.prefill").flops.value(), 0.0);
  EXPECT_FALSE(has_op(l0, "attn.all_reduce"));
  // LM head on the 2 decode positions: 1000 x 1024 weights, FLOPs 2 x 2 x 1,024,000.
  EXPECT_DOUBLE_EQ(op_named(w.post, "lm_head").flops.value(), 4096000.0);
}

TEST(Work, GqaTensorParallelSplitsHeadsAndAddsAllReduces) {
  const ModelCard c = tiny_gqa();
  const WorkModel m(c, build_weight_inventory(c), ParallelLayout{2, 1, false});
  Batch b;
  b.decode = {{100, 1}, {300, 1}};
  const StepWork w = m.decompose(b.shape());
  const auto& l0 = w.layers[0].ops;
  // Half the query heads per rank: 2,097,152 FLOPs; one KV head per rank: 512 B per entry.
  EXPECT_DOUBLE_EQ(op_named(l0, "attn.q").flops.value(), 2097152.0);
  EXPECT_DOUBLE_EQ(op_named(l0, "attn.decode").flops.value(), 1646592.0 / 2);
  EXPECT_DOUBLE_EQ(op_named(l0, "attn.decode").hbm_bytes.value(), 402.0 * 512.0);
  // All-reduce of 2 tokens x 1024 x 2 B = 4096 B after attention and after the FFN, over 2 ranks.
  const OpWork& ar = op_named(l0, "attn.all_reduce");
  EXPECT_EQ(ar.collective, CollectiveKind::all_reduce);
  EXPECT_DOUBLE_EQ(ar.collective_bytes.value(), 4096.0);
  EXPECT_EQ(ar.collective_ranks, 2);
  EXPECT_DOUBLE_EQ(op_named(l0, "ffn.all_reduce").collective_bytes.value(), 4096.0);
  // Logits gather: each rank sends its 500-entry shard of 2 logit rows in BF16 to 1 peer: 2,000 B.
  EXPECT_DOUBLE_EQ(op_named(w.post, "logits.gather").collective_bytes.value(), 2000.0);
}

TEST(Work, DataParallelAttentionSplitsSequences) {
  const ModelCard c = tiny_gqa();
  const WorkModel m(c, build_weight_inventory(c), ParallelLayout{2, 1, true});
  Batch b;
  b.decode = {{100, 1}, {300, 1}};
  const StepWork w = m.decompose(b.shape());
  const auto& l0 = w.layers[0].ops;
  // Whole weights, half the tokens: attn.q FLOPs 2 x 1 token x 1,048,576; attention pairs halved
  // with all 8 heads and 2 KV heads per rank.
  EXPECT_DOUBLE_EQ(op_named(l0, "attn.q").flops.value(), 2097152.0);
  EXPECT_DOUBLE_EQ(op_named(l0, "attn.q").hbm_bytes.value(), 2097152.0 + 1.0 * 2048 * 2);
  EXPECT_DOUBLE_EQ(op_named(l0, "attn.decode").flops.value(), 1646592.0 / 2);
  EXPECT_DOUBLE_EQ(op_named(l0, "attn.decode").hbm_bytes.value(), 402.0 * 1024.0 / 2);
  EXPECT_FALSE(has_op(l0, "attn.all_reduce"));
}

TEST(Work, PrefillChunkCausalPairs) {
  const ModelCard c = tiny_gqa();
  const WorkModel m(c, build_weight_inventory(c), ParallelLayout{1, 1, false});
  Batch b;
  b.prefill = {{4, 10}};
  const StepWork w = m.decompose(b.shape());
  // Queries at positions 11..14 attend to 11+12+13+14 = 50 keys; the chunk reads 14 KV entries.
  const OpWork& att = op_named(w.layers[1].ops, "attn.prefill");
  EXPECT_DOUBLE_EQ(att.flops.value(), 4.0 * 8 * 128 * 50);
  EXPECT_DOUBLE_EQ(att.hbm_bytes.value(), 14.0 * 1024.0);
  EXPECT_DOUBLE_EQ(att.flops_key, 4.0);  // tokens per chunk
  // One logit row per chunk.
  EXPECT_DOUBLE_EQ(w.stats.at(0, kLogits), 1.0);
  EXPECT_DOUBLE_EQ(w.stats.at(0, kTokens), 4.0);
}

TEST(Work, SlidingWindowCapsAttendedKeys) {
  ModelCard c = tiny_gqa();
  c.attention.sliding_window = 8;
  const WorkModel m(c, build_weight_inventory(c), ParallelLayout{1, 1, false});
  // Long context, 3 positions (speculative verify): 3 x 8 pairs, 8 entries read.
  // Short context 2, 3 positions: queries at 3, 4, 5 -> 3 + 4 + 5 = 12 pairs, 5 entries.
  Batch b;
  b.decode = {{100, 3}, {2, 3}};
  // Prefill of 10 tokens from scratch: 1+2+...+8 + 8 + 8 = 52 pairs, 8 entries.
  b.prefill = {{10, 0}};
  const BatchStats s = m.summarize(b.shape());
  EXPECT_DOUBLE_EQ(s.at(0, geometry_slot(0, kDecodePairs)), 24.0 + 12.0);
  EXPECT_DOUBLE_EQ(s.at(0, geometry_slot(0, kDecodeKv)), 8.0 + 5.0);
  EXPECT_DOUBLE_EQ(s.at(0, geometry_slot(0, kPrefillPairs)), 52.0);
  EXPECT_DOUBLE_EQ(s.at(0, geometry_slot(0, kPrefillKv)), 8.0);
  EXPECT_DOUBLE_EQ(s.at(0, kDecodePosPerSeq), 3.0);
  EXPECT_DOUBLE_EQ(s.at(0, kTokens), 16.0);
}

class V41 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { card_ = new ModelCard(load_model_card("deepseek-v4.1-flash")); }
  static void TearDownTestSuite() { delete card_; }
  static ModelCard* card_;
};
ModelCard* V41::card_ = nullptr;

TEST_F(V41, CompressedAttentionAndIndexer) {
  const WorkModel m(*card_, build_weight_inventory(*card_), ParallelLayout{2, 1, false});
  // Geometries: layers 0-1 window only; 2-19 window 128 + ratio 2 top-512; 20-39 ratio 1 top-512.
  ASSERT_EQ(m.geometries().size(), 3u);
  Batch b;
  b.decode = {{8192, 6}};
  const StepWork w = m.decompose(b.shape());
  // Layer 2 (ratio 2, top-512, builds KV, runs the indexer): 6 queries x (128 window + 512
  // selected) = 3,840 pairs; FLOPs 4 x 32 heads per rank x 512 x 3,840 = 251,658,240.
  // KV: each query gathers its own 640 entries x 512 B (FP8), whole on each rank: 3,840 x 512 B.
  const auto& l2 = w.layers[2].ops;
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.decode").flops.value(), 4.0 * 32 * 512 * 3840);
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.decode").hbm_bytes.value(), 3840.0 * 512);
  // Indexer: queries at 8193..8198 score (8192 x 6 + 21) / 2 = 24,586.5 compressed entries:
  // FLOPs 2 x 32 x 128 x 24,586.5; keys (8198 / 2) x (128 FP8 + 4 B scale), read once for the six
  // queries; FP32 logits 4 B per pair written, then read by the top-k.
  const OpWork& idx = op_named(l2, "attn.indexer_scan");
  EXPECT_DOUBLE_EQ(idx.flops.value(), 2.0 * 32 * 128 * 24586.5);
  EXPECT_DOUBLE_EQ(idx.hbm_bytes.value(), 4099.0 * 132 + 24586.5 * 4);
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.indexer_topk").hbm_bytes.value(), 24586.5 * 4);
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.indexer_topk").flops.value(), 0.0);
  // A decode-only step gathers no prompt keys or workspace.
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.indexer_k_gather").hbm_bytes.value(), 0.0);
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.prefill_gather").hbm_bytes.value(), 0.0);
  // Layer 3 reuses layer 2's selection: no indexer. Layer 0: window only, 6 x 128 pairs.
  EXPECT_FALSE(has_op(w.layers[3].ops, "attn.indexer_scan"));
  EXPECT_FALSE(has_op(w.layers[3].ops, "attn.indexer_topk"));
  EXPECT_DOUBLE_EQ(op_named(w.layers[0].ops, "attn.decode").flops.value(), 4.0 * 32 * 512 * 6 * 128);
  // Layer 20 (ratio 1): 6 x (128 + 512) pairs as well; indexer over (8192 x 6 + 21) entries.
  EXPECT_DOUBLE_EQ(op_named(w.layers[20].ops, "attn.indexer_scan").flops.value(), 2.0 * 32 * 128 * 49173.0);
}

// FlashMLA's sparse kernels take 64 or 128 query heads: at TP4 a rank's 16 heads run as 64, so
// the attention FLOPs are those of 64 heads and the gathered KV is unchanged; at TP1 the 64 heads
// need no padding, and beyond the largest count the heads run as they are.
TEST_F(V41, SparseAttentionRunsTheRanksHeadsPadded) {
  const SparseAttentionKernels flashmla{{64, 128}};
  EXPECT_DOUBLE_EQ(flashmla.padded(16), 64.0);
  EXPECT_DOUBLE_EQ(flashmla.padded(64), 64.0);
  EXPECT_DOUBLE_EQ(flashmla.padded(65), 128.0);
  EXPECT_DOUBLE_EQ(flashmla.padded(256), 256.0);
  EXPECT_DOUBLE_EQ(SparseAttentionKernels{}.padded(16), 16.0);
  const WeightInventory weights = build_weight_inventory(*card_);
  const WorkModel plain(*card_, weights, ParallelLayout{4, 1, false});
  const WorkModel padded(*card_, weights, ParallelLayout{4, 1, false}, {}, flashmla);
  Batch b;
  b.decode = {{8192, 6}};
  b.prefill = {{4096, 8192}};
  const StepWork a = plain.decompose(b.shape());
  const StepWork p = padded.decompose(b.shape());
  for (const char* op : {"attn.decode", "attn.prefill"}) {
    EXPECT_DOUBLE_EQ(op_named(p.layers[2].ops, op).flops.value(), 4.0 * op_named(a.layers[2].ops, op).flops.value())
        << op;
    EXPECT_DOUBLE_EQ(op_named(p.layers[2].ops, op).hbm_bytes.value(), op_named(a.layers[2].ops, op).hbm_bytes.value())
        << op;
  }
  const WorkModel whole(*card_, weights, ParallelLayout{1, 1, false}, {}, flashmla);
  const WorkModel whole_plain(*card_, weights, ParallelLayout{1, 1, false});
  EXPECT_DOUBLE_EQ(op_named(whole.decompose(b.shape()).layers[2].ops, "attn.decode").flops.value(),
                   op_named(whole_plain.decompose(b.shape()).layers[2].ops, "attn.decode").flops.value());
}

TEST_F(V41, IndexerScalesWithContextAndQueries) {
  const WorkModel m(*card_, build_weight_inventory(*card_), ParallelLayout{4, 1, false});
  auto layer_op = [&](std::int32_t context, std::int32_t positions, int seqs, int layer, const char* name) {
    Batch b;
    b.decode.assign(static_cast<std::size_t>(seqs), DecodeSeq{context, positions});
    return op_named(m.decompose(b.shape()).layers[static_cast<std::size_t>(layer)].ops, name);
  };
  // Layer 20 (ratio 1): a query at q scores q entries. Doubling the context from 150k to 300k adds
  // 6 x 150,000 pairs per sequence to the scoring FLOPs and the logits, and 150,000 keys.
  const OpWork a = layer_op(150000, 6, 1, 20, "attn.indexer_scan");
  const OpWork b = layer_op(300000, 6, 1, 20, "attn.indexer_scan");
  EXPECT_DOUBLE_EQ(b.flops.value() - a.flops.value(), 2.0 * 32 * 128 * 6 * 150000);
  EXPECT_DOUBLE_EQ(b.hbm_bytes.value() - a.hbm_bytes.value(), 150000.0 * 132 + 6 * 150000.0 * 4);
  // Six verify positions share the key read but each writes its own logits row.
  const OpWork one = layer_op(300005, 1, 1, 20, "attn.indexer_scan");
  EXPECT_DOUBLE_EQ(one.hbm_bytes.value(), 300006.0 * 132 + 300006.0 * 4);
  const double pairs6 = 6.0 * 300000 + 21;
  EXPECT_DOUBLE_EQ(b.hbm_bytes.value(), 300006.0 * 132 + pairs6 * 4);
  // Under tensor-parallel attention the indexer is replicated: 64 sequences cost each rank 64 x one.
  EXPECT_DOUBLE_EQ(layer_op(300000, 6, 64, 20, "attn.indexer_topk").hbm_bytes.value(), 64.0 * pairs6 * 4);
  // Ratio 2 (layer 2): half the entries.
  EXPECT_DOUBLE_EQ(layer_op(300000, 6, 1, 2, "attn.indexer_topk").hbm_bytes.value(), pairs6 / 2 * 4);
}

TEST_F(V41, SparseDecodeGatherIsCappedByTopK) {
  const WorkModel m(*card_, build_weight_inventory(*card_), ParallelLayout{4, 1, false});
  auto decode_bytes = [&](std::int32_t context, int layer) {
    Batch b;
    b.decode = {{context, 1}};
    return op_named(m.decompose(b.shape()).layers[static_cast<std::size_t>(layer)].ops, "attn.decode")
        .hbm_bytes.value();
  };
  // Layer 2 (ratio 2): a query at q = 1,022 selects 511 compressed entries, below the top-512 cap;
  // at q = 1,024 it reaches the cap, and longer contexts read no more. Window: 128 entries.
  EXPECT_DOUBLE_EQ(decode_bytes(1021, 2), (128.0 + 511) * 512);
  EXPECT_DOUBLE_EQ(decode_bytes(1023, 2), (128.0 + 512) * 512);
  EXPECT_DOUBLE_EQ(decode_bytes(300000, 2), (128.0 + 512) * 512);
  // Window-only layer 0: below the window a query reads its whole context, above it 128 entries.
  EXPECT_DOUBLE_EQ(decode_bytes(99, 0), 100.0 * 512);
  EXPECT_DOUBLE_EQ(decode_bytes(300000, 0), 128.0 * 512);
}

TEST_F(V41, PrefillOverLongCachedPrefix) {
  const WorkModel m(*card_, build_weight_inventory(*card_), ParallelLayout{4, 1, false});
  Batch b;
  b.prefill = {{1000, 100000}};
  const StepWork w = m.decompose(b.shape());
  const auto& l2 = w.layers[2].ops;
  // Layer 2 (ratio 2, window 128): the chunk dequantizes all (100,000 + 1,000) / 2 compressed
  // entries and the window of 128 + 1,000 chunk tokens: 51,628 entries x (512 B + 512 x 2 B).
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.prefill_gather").hbm_bytes.value(), 51628.0 * (512 + 1024));
  // Indexer: the chunk's keys are copied out of the paged cache (read and write 132 B each), then
  // its 1,000 queries score sum_{j=1..1000} (100,000 + j) / 2 = 50,250,250 pairs.
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.indexer_k_gather").hbm_bytes.value(), 50500.0 * 2 * 132);
  const double pairs = (1000.0 * 100000 + 500500) / 2;
  const OpWork& scan = op_named(l2, "attn.indexer_prefill_scan");
  EXPECT_DOUBLE_EQ(scan.flops.value(), 2.0 * 32 * 128 * pairs);
  EXPECT_DOUBLE_EQ(scan.hbm_bytes.value(), 50500.0 * 132 + pairs * 4);
  // Its FLOP efficiency is keyed by the query rows one key block meets: 1,000 tokens x 32 heads.
  EXPECT_DOUBLE_EQ(scan.flops_key, 32000.0);
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.indexer_prefill_topk").hbm_bytes.value(), pairs * 4);
  // The decode kernels have nothing to do.
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.indexer_scan").hbm_bytes.value(), 0.0);
  EXPECT_DOUBLE_EQ(op_named(l2, "attn.indexer_topk").hbm_bytes.value(), 0.0);
  // Window-only layer 0 gathers only the window: both sides of its cap.
  EXPECT_DOUBLE_EQ(op_named(w.layers[0].ops, "attn.prefill_gather").hbm_bytes.value(), 1128.0 * 1536);
  Batch short_prefix;
  short_prefix.prefill = {{1000, 50}};
  EXPECT_DOUBLE_EQ(op_named(m.decompose(short_prefix.shape()).layers[0].ops, "attn.prefill_gather").hbm_bytes.value(),
                   1050.0 * 1536);
  // Prompts stop at the 20-layer encoder: no indexer work at layer 20.
  EXPECT_DOUBLE_EQ(op_named(w.layers[20].ops, "attn.indexer_scan").flops.value(), 0.0);
  EXPECT_FALSE(has_op(w.layers[20].ops, "attn.indexer_prefill_scan"));
}

TEST_F(V41, MixedStepSharesOneForward) {
  // vLLM runs a step's decodes and its prompt chunk in one forward: the indexer of an index layer
  // scores both in the same op, so the chunk's cost lands on the decodes of its step.
  const WorkModel m(*card_, build_weight_inventory(*card_), ParallelLayout{4, 1, false});
  Batch decode_only, prompt_only, mixed;
  decode_only.decode.assign(8, DecodeSeq{200000, 6});
  prompt_only.prefill = {{8000, 200000}};
  mixed.decode = decode_only.decode;
  mixed.prefill = prompt_only.prefill;
  auto op = [&](const Batch& b, const char* name) { return op_named(m.decompose(b.shape()).layers[2].ops, name); };
  for (const char* name : {"attn.indexer_scan", "attn.indexer_topk", "attn.indexer_prefill_scan",
                           "attn.indexer_prefill_topk", "attn.indexer_k_gather", "attn.prefill_gather"}) {
    SCOPED_TRACE(name);
    EXPECT_DOUBLE_EQ(op(mixed, name).flops.value(),
                     op(decode_only, name).flops.value() + op(prompt_only, name).flops.value());
    EXPECT_DOUBLE_EQ(op(mixed, name).hbm_bytes.value(),
                     op(decode_only, name).hbm_bytes.value() + op(prompt_only, name).hbm_bytes.value());
  }
  // Decode rows are keyed by heads x positions per sequence, prompt rows by heads x chunk tokens.
  EXPECT_DOUBLE_EQ(op(mixed, "attn.indexer_scan").flops_key, 32.0 * 6);
  EXPECT_DOUBLE_EQ(op(mixed, "attn.indexer_prefill_scan").flops_key, 32.0 * 8000);
  EXPECT_GT(op(prompt_only, "attn.indexer_prefill_scan").flops.value(),
            op(decode_only, "attn.indexer_scan").flops.value());
}

TEST_F(V41, ShortContextUsesExactSums) {
  const WorkModel m(*card_, build_weight_inventory(*card_), ParallelLayout{1, 1, false});
  Batch b;
  b.decode = {{100, 1}};
  const BatchStats s = m.summarize(b.shape());
  // Geometry 1 (ratio 2): the query at 101 sees min(128, 101) = 101 window keys and
  // min(512, 101 / 2) = 50.5 compressed entries (continuous).
  EXPECT_NEAR(s.at(0, geometry_slot(1, kDecodePairs)), 151.5, 1e-9);
  EXPECT_NEAR(s.at(0, geometry_slot(1, kIndexPairs)), 50.5, 1e-9);
}

TEST_F(V41, ExpertsTouchedAndPrefillHalf) {
  const auto inv = build_weight_inventory(*card_);
  const WorkModel m(*card_, inv, ParallelLayout{2, 1, false});
  Batch b;
  b.decode.assign(64, DecodeSeq{8192, 6});
  const BatchStats s = m.summarize(b.shape());
  // 384 positions choosing 6 of 384 experts: share touched = 1 - (1 - 6/384)^384 = 0.997635.
  EXPECT_NEAR(s.at(0, kMoeDistinct), 1.0 - std::pow(1.0 - 6.0 / 384.0, 384.0), 1e-12);
  EXPECT_NEAR(s.at(0, kMoeDistinct), 0.997635, 1e-6);
  // Balanced routing: 384 x 6 rows reach every expert.
  ParallelLayout balanced{2, 1, false};
  balanced.expert_balance.routing = ExpertRouting::balanced;
  EXPECT_DOUBLE_EQ(WorkModel(*card_, inv, balanced).summarize(b.shape()).at(0, kMoeDistinct), 1.0);
  const StepWork w = m.decompose(b.shape());
  // Expert weights read per rank at TP2 (EP1: every expert split over 2 ranks):
  // 384 x 0.997635 x bytes_per_expert / 2, plus routed activations.
  const OpWork& ex = op_named(w.layers[5].ops, "moe.experts");
  const double per_expert = inv.layer(5).bytes_per_expert().value();
  const double act = 384.0 * 6 * 2.0 * (2.0 * 5120 + 3.0 * 2304 / 2);
  EXPECT_NEAR(ex.hbm_bytes.value(), 384.0 * s.at(0, kMoeDistinct) * per_expert / 2 + act, 1.0);
  // FLOPs: 2 x 384 tokens x 6 x (3 x 5120 x 2304) / 2 ranks.
  EXPECT_DOUBLE_EQ(ex.flops.value(), 2.0 * 384 * 6 * 3.0 * 5120 * 2304 / 2);
  EXPECT_EQ(ex.precision, Precision::fp4);

  // A prompt chunk runs only the 20 encoder layers (card.prefill_layers).
  Batch p;
  p.prefill = {{1000, 0}};
  const StepWork pw = m.decompose(p.shape());
  EXPECT_GT(op_named(pw.layers[19].ops, "attn.q_a").flops.value(), 0.0);
  EXPECT_DOUBLE_EQ(op_named(pw.layers[20].ops, "attn.q_a").flops.value(), 0.0);
  EXPECT_DOUBLE_EQ(pw.layers[14].engram_positions, 1000.0);
  // Engram lookups per rank: 24 rows x 1000 positions / 2 ranks.
  EXPECT_DOUBLE_EQ(pw.layers[14].engram_lookups_per_rank, 12000.0);
}

TEST_F(V41, DsparkDrafterRunsOncePerStepOverDraftedPositions) {
  const WorkModel m(*card_, build_weight_inventory(*card_), ParallelLayout{2, 1, false});
  Batch b;
  b.decode.assign(4, DecodeSeq{1000, 6});
  const StepWork w = m.decompose(b.shape());
  // 4 sequences x 5 drafted positions in one block pass.
  EXPECT_DOUBLE_EQ(w.stats.at(2, kTokens), 20.0);
  EXPECT_DOUBLE_EQ(w.drafter_passes, 1.0);
  ASSERT_FALSE(w.drafter.empty());
  // Without speculative positions the drafter does nothing.
  Batch plain;
  plain.decode.assign(4, DecodeSeq{1000, 1});
  const StepWork pw = m.decompose(plain.shape());
  for (const auto& o : pw.drafter) {
    EXPECT_DOUBLE_EQ(o.flops.value(), 0.0) << o.name;
    EXPECT_DOUBLE_EQ(o.hbm_bytes.value(), 0.0) << o.name;
  }
}

TEST(WorkV3, MlaAbsorbedDecodeAndMtpPasses) {
  const ModelCard c = load_model_card("deepseek-v3");
  const WorkModel m(c, build_weight_inventory(c), ParallelLayout{8, 8, true});
  Batch b;
  b.decode.assign(8, DecodeSeq{4000, 2});
  const StepWork w = m.decompose(b.shape());
  // DP attention: all 128 heads per rank, 1/8 of the pairs. Absorbed MLA: 2 x 128 x (2 x 512 + 64)
  // FLOPs per pair; pairs = 8 seqs x (4001 + 4002) = 64,024 -> per rank 8,003.
  const OpWork& att = op_named(w.layers[10].ops, "attn.decode");
  EXPECT_DOUBLE_EQ(att.flops.value(), 2.0 * 128 * (2 * 512 + 64) * 64024.0 / 8);
  // Latent entries: (512 + 64) x KV bytes per entry, 8 x 4002 entries split over 8 ranks.
  EXPECT_DOUBLE_EQ(att.hbm_bytes.value(), 576.0 * bytes_per_element(c.kv.precision) * 8 * 4002 / 8);
  // EP all-to-all per rank: 16 positions / 8 ranks = 2 tokens x 8 experts x 7/8 leave the rank x
  // 7168 hidden, dispatched in FP8 (1 B) and combined in BF16 (2 B).
  EXPECT_DOUBLE_EQ(op_named(w.layers[10].ops, "moe.dispatch").collective_bytes.value(), 2.0 * 8 * 7.0 / 8 * 7168);
  EXPECT_DOUBLE_EQ(op_named(w.layers[10].ops, "moe.combine").collective_bytes.value(), 2.0 * 8 * 7.0 / 8 * 7168 * 2);
  // Dense prefix (first 3 layers) has a dense FFN.
  EXPECT_TRUE(has_op(w.layers[0].ops, "ffn.dense"));
  EXPECT_TRUE(has_op(w.layers[3].ops, "moe.experts"));
  // MTP drafts one token per pass, one pass per drafted position (here 1).
  EXPECT_DOUBLE_EQ(w.drafter_passes, 1.0);
  EXPECT_DOUBLE_EQ(w.stats.at(2, kTokens), 8.0);
}

// MLA's prompt chunks up-project their cached context (kv_b over the cached latents): a GEMM whose
// rows are the cached tokens, not the chunk's new ones. A one-token chunk over 1,023 cached tokens
// (the decode side's admission of a request whose KV came from a prefill pool) does the same work
// at the same GEMM shape as a 512-token chunk over that context.
TEST(WorkV3, MlaContextUpProjectionIsAGemmOverTheCachedRows) {
  const ModelCard c = load_model_card("deepseek-v3");
  for (const bool dp : {false, true}) {
    const WorkModel m(c, build_weight_inventory(c), ParallelLayout{8, 8, dp});
    Batch one, many, two;
    one.prefill = {PrefillChunk{1, 1023}};
    many.prefill = {PrefillChunk{512, 1023}};
    two.prefill = {PrefillChunk{1, 1000}, PrefillChunk{1, 3000}};
    const OpWork a = op_named(m.decompose(one.shape()).layers[10].ops, "attn.kv_b_context");
    const OpWork b = op_named(m.decompose(many.shape()).layers[10].ops, "attn.kv_b_context");
    EXPECT_DOUBLE_EQ(a.flops.value(), b.flops.value()) << "dp " << dp;
    EXPECT_DOUBLE_EQ(a.flops_key, 1023.0) << "dp " << dp;
    EXPECT_DOUBLE_EQ(b.flops_key, 1023.0) << "dp " << dp;
    // Several chunks: the mean cached context per chunk; under data-parallel attention, of the
    // chunks on the busiest rank (each chunk here goes to a rank of its own, the first is busiest).
    const OpWork t = op_named(m.decompose(two.shape()).layers[10].ops, "attn.kv_b_context");
    EXPECT_DOUBLE_EQ(t.flops_key, dp ? 1000.0 : 2000.0) << "dp " << dp;
  }
}

TEST(Work, BlockFp8KStepsCountTheKWalkOfDenseBlockScaledGemms) {
  // DeepSeek-V3 at TP8: 128-deep K steps of the GEMMs on block-scaled FP8 weights outside the MoE
  // block; the KV down-projection shares the query's walk, the KV up-projection is absorbed.
  const ModelCard v3 = load_model_card("deepseek-v3");
  const WorkModel m(v3, build_weight_inventory(v3), ParallelLayout{8, 1, false});
  Batch b;
  b.decode = {{1024, 1}};
  const StepWork w = m.decompose(b.shape());
  const auto steps = [&](int layer, const char* name) { return op_named(w.layers[layer].ops, name).block_fp8_k_steps; };
  EXPECT_DOUBLE_EQ(steps(0, "attn.q_a"), 56.0);   // 7,168 / 128
  EXPECT_DOUBLE_EQ(steps(0, "attn.q_b"), 12.0);   // 1,536 / 128
  EXPECT_DOUBLE_EQ(steps(0, "attn.o"), 16.0);     // 128 heads x 128 / 8 ranks / 128
  EXPECT_DOUBLE_EQ(steps(0, "ffn.dense"), 74.0);  // 56 + 18,432 / 8 / 128
  // GEMM depths on a rank: the input width, the rank's share for the output projection, and for the
  // FFN 3 / (2 / 7,168 + 1 / 2,304) (gate-up over the hidden size, down over 18,432 / 8).
  const auto depth = [&](int layer, const char* name) { return op_named(w.layers[layer].ops, name).gemm_k; };
  EXPECT_DOUBLE_EQ(depth(0, "attn.q_a"), 7168.0);
  EXPECT_DOUBLE_EQ(depth(0, "attn.o"), 2048.0);
  EXPECT_DOUBLE_EQ(depth(0, "ffn.dense"), 3.0 / (2.0 / 7168.0 + 1.0 / 2304.0));
  EXPECT_DOUBLE_EQ(depth(0, "attn.decode"), 0.0);
  for (const char* name : {"attn.kv_a", "attn.kv_b"}) EXPECT_DOUBLE_EQ(steps(0, name), 0.0) << name;
  for (const char* name : {"moe.router", "moe.shared", "moe.experts"}) EXPECT_DOUBLE_EQ(steps(3, name), 0.0) << name;
  // BF16 weights walk nothing.
  const ModelCard c = tiny_gqa();
  const WorkModel bf16(c, build_weight_inventory(c), ParallelLayout{1, 1, false});
  const StepWork plain = bf16.decompose(b.shape());
  for (const OpWork& op : plain.layers[0].ops) EXPECT_DOUBLE_EQ(op.block_fp8_k_steps, 0.0) << op.name;
}

TEST(Work, PerTensorFp8ProjectionsQuantizeTheirInputsUnlessTheProducerDoes) {
  // tiny_gqa with per-tensor FP8 attention and FFN weights at TP2, 3 decode tokens. Inputs per token
  // on a rank: attention 1,024 (the normed hidden state, once for q and kv), output projection
  // 8 heads x 128 / 2 = 512, gate-up 1,024, down 4,096 / 2 = 2,048; each read in BF16 (2 B) and
  // written in FP8 (1 B).
  ModelCard c = tiny_gqa();
  c.precisions.attention = Precision::fp8;
  c.precisions.dense_ffn = Precision::fp8;
  Batch b;
  b.decode = {{100, 1}, {200, 1}, {300, 1}};
  const WorkModel separate(c, build_weight_inventory(c), ParallelLayout{2, 1, false});
  const auto ops = separate.decompose(b.shape()).layers[0].ops;
  EXPECT_DOUBLE_EQ(op_named(ops, "attn.input_quant").hbm_bytes.value(), 3.0 * 1024 * 3);
  EXPECT_DOUBLE_EQ(op_named(ops, "attn.o.input_quant").hbm_bytes.value(), 3.0 * 512 * 3);
  EXPECT_DOUBLE_EQ(op_named(ops, "ffn.input_quant").hbm_bytes.value(), 3.0 * 1024 * 3);
  EXPECT_DOUBLE_EQ(op_named(ops, "ffn.down.input_quant").hbm_bytes.value(), 3.0 * 2048 * 3);
  EXPECT_EQ(op_named(ops, "attn.input_quant").op_class, OpClass::elementwise);
  EXPECT_EQ(op_named(ops, "attn.input_quant").kernels, 1);
  // Fused into the norm and the activation: only the output projection's input keeps its kernel.
  const WorkModel fused(c, build_weight_inventory(c), ParallelLayout{2, 1, false}, {true, true, false});
  const auto f = fused.decompose(b.shape()).layers[0].ops;
  EXPECT_TRUE(has_op(f, "attn.o.input_quant"));
  for (const char* name : {"attn.input_quant", "ffn.input_quant", "ffn.down.input_quant"})
    EXPECT_FALSE(has_op(f, name)) << name;
  // FP4 weights write half a byte per element: 2.5 B per input element.
  c.precisions.dense_ffn = Precision::fp4;
  const WorkModel fp4(c, build_weight_inventory(c), ParallelLayout{2, 1, false});
  const StepWork w4 = fp4.decompose(b.shape());
  EXPECT_DOUBLE_EQ(op_named(w4.layers[0].ops, "ffn.input_quant").hbm_bytes.value(), 2.5 * 1024 * 3);
  // BF16 weights and block-scaled FP8 (DeepSeek-V3: its GEMM kernels quantize per group) get none.
  const WorkModel bf16(tiny_gqa(), build_weight_inventory(tiny_gqa()), ParallelLayout{2, 1, false});
  const ModelCard v3 = load_model_card("deepseek-v3");
  const WorkModel block(v3, build_weight_inventory(v3), ParallelLayout{8, 1, false});
  for (const WorkModel* m : {&bf16, &block}) {
    const StepWork none = m->decompose(b.shape());
    for (const OpWork& op : none.layers[0].ops) EXPECT_EQ(std::strstr(op.name, "input_quant"), nullptr) << op.name;
  }
}

TEST(Work, TemplatesAreSharedAcrossIdenticalLayers) {
  const ModelCard c = tiny_gqa();
  const WorkModel m(c, build_weight_inventory(c), ParallelLayout{1, 1, false});
  // Both layers have identical ops: every layer template runs twice.
  double layer_ops = 0;
  for (std::size_t t = 0; t < m.templates().size(); ++t) layer_ops += m.multiplicity(t);
  EXPECT_LT(m.templates().size(), static_cast<std::size_t>(layer_ops));
}

TEST(Work, RejectsBadLayouts) {
  const ModelCard c = tiny_gqa();
  EXPECT_THROW(WorkModel(c, build_weight_inventory(c), ParallelLayout{3, 2, false}), std::invalid_argument);
  EXPECT_THROW(WorkModel(c, build_weight_inventory(c), ParallelLayout{2, 2, false}), std::invalid_argument);
  // 8 heads do not split over 3 ranks (engines require an even split), unless attention is
  // data-parallel.
  EXPECT_THROW(WorkModel(c, build_weight_inventory(c), ParallelLayout{3, 1, false}), std::invalid_argument);
  EXPECT_NO_THROW(WorkModel(c, build_weight_inventory(c), ParallelLayout{3, 1, true}));
}

}  // namespace
}  // namespace engramsim

namespace engramsim {
namespace {

// Data-parallel attention: a prompt chunk runs whole on one rank and every rank waits for the
// busiest. Chunks go longest first to the least-loaded rank; the attention side is that rank's.
TEST(DataParallelRanks, BusiestRankCarriesItsWholePromptChunks) {
  const ModelCard c = load_model_card("deepseek-v3");
  const WorkModel m(c, build_weight_inventory(c), ParallelLayout{2, 2, true});
  // Two decode sequences (one per rank) and chunks of 600, 300 and 200 tokens: rank loads start at 1;
  // 600 -> rank 0 (601), 300 -> rank 1 (301), 200 -> rank 1 (501). Busiest: rank 0, 601 tokens.
  const std::vector<DecodeSeq> decode = {{1000, 1}, {1000, 1}};
  const std::vector<PrefillChunk> prefill = {{300, 0}, {600, 0}, {200, 50}};
  const BatchStats s = m.summarize(BatchShape{prefill, decode});
  EXPECT_DOUBLE_EQ(s.at(0, kTokens), 1102.0);  // experts still see every token of the replica
  EXPECT_DOUBLE_EQ(s.at(0, kTokensRank), 601.0);
  EXPECT_DOUBLE_EQ(s.at(0, kTokensRankNormal), 601.0);
  EXPECT_DOUBLE_EQ(s.at(0, kLogitsRank), 2.0);  // one decode position + one chunk
  // Cached context of the busiest rank's chunks (none), scaled by tp for the 1 / tp templates.
  EXPECT_DOUBLE_EQ(s.at(0, kPrefillCached), 0.0);
  // MLA prefill pairs of the 600-token first chunk: 600 x 601 / 2 = 180,300; held as tp x that
  // plus the decode part (2 queries over 1,001 keys), so a template's 1 / tp gives the rank's share.
  const int g = 0;
  EXPECT_DOUBLE_EQ(s.at(0, geometry_slot(g, kPrefillPairs)), 2.0 * 180300.0);
  // Decode-only steps keep the even split.
  const BatchStats d = m.summarize(BatchShape{{}, decode});
  EXPECT_DOUBLE_EQ(d.at(0, kTokensRank), 1.0);
}

}  // namespace
}  // namespace engramsim
