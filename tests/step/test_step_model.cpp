// The step model's totals and the Engram window/stall chain, recomputed by hand from the
// breakdown's parts, and the agreement of the fast path with the breakdown.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/roofline_step_model.hpp"

namespace engramsim {
namespace {

// A small dense model with Engram layers at 1 and 3, tables big enough that rows rarely repeat.
ModelCard engram_toy() {
  ModelCard c;
  c.name = "engram-toy";
  c.num_layers = 6;
  c.hidden_size = 2048;
  c.vocab_size = 32000;
  c.max_context = 8192;
  c.dense_intermediate = 8192;
  c.attention.kind = AttentionKind::gqa;
  c.attention.num_heads = 16;
  c.attention.num_kv_heads = 4;
  c.attention.head_dim = 128;
  EngramSpec e;
  e.layers = {1, 3};
  e.min_order = 2;
  e.max_order = 3;
  e.heads_per_order = 8;
  e.head_dim = 128;
  e.precision = Precision::bf16;
  e.row_bytes = Bytes(256);
  e.table_rows = {400000000, 400000000};
  c.engram = e;
  return c;
}

double sum_ops(const StepBreakdown& b) {
  double t = 0;
  for (const auto& op : b.ops) t += op.total.seconds();
  return t;
}

TEST(StepModel, TotalsAreComputePlusStallsPlusHost) {
  const NodeSpec node = load_node("hgx-h100");
  for (EngramTier tier : {EngramTier::hbm, EngramTier::dram, EngramTier::ssd}) {
    RooflineOptions o;
    o.engram.tier = tier;
    const RooflineStepModel m(engram_toy(), node, o);
    std::vector<DecodeSeq> decode(200, DecodeSeq{3000, 1});
    const StepBreakdown b = m.breakdown({{}, decode});
    // Compute = sum of the per-layer ops (the hbm tier's gathers appear as ops).
    EXPECT_NEAR(b.cost.compute.seconds(), sum_ops(b), 1e-8) << to_string(tier);
    // Host: 250 us + 200 sequences x 0.5 us = 350 us (vllm).
    EXPECT_EQ(b.cost.host_overhead, Time::us(350));
    EXPECT_NEAR(b.cost.total.seconds(),
                b.cost.compute.seconds() + b.cost.engram_stall.seconds() + b.cost.host_overhead.seconds(), 3e-9);
    // The fast path returns the same numbers as the breakdown.
    const StepCost fast = m.step({{}, decode});
    EXPECT_NEAR(fast.total.seconds(), b.cost.total.seconds(), 2e-9) << to_string(tier);
    EXPECT_NEAR(fast.engram_stall.seconds(), b.cost.engram_stall.seconds(), 2e-9);
    EXPECT_NEAR(fast.engram_fetch.seconds(), b.cost.engram_fetch.seconds(), 2e-9);
  }
}

TEST(StepModel, WindowIsComputeBeforeTheLayer) {
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  o.engram.tier = EngramTier::dram;
  const RooflineStepModel m(engram_toy(), node, o);
  std::vector<DecodeSeq> decode(64, DecodeSeq{1000, 1});
  const StepBreakdown b = m.breakdown({{}, decode});
  double before1 = 0, before3 = 0;
  for (const auto& op : b.ops) {
    if (op.layer == -1 || (op.layer >= 0 && op.layer < 1)) before1 += op.total.seconds();
    if (op.layer == -1 || (op.layer >= 0 && op.layer < 3)) before3 += op.total.seconds();
  }
  ASSERT_EQ(b.engram.size(), 2u);
  EXPECT_NEAR(b.engram[0].window.seconds(), before1, 2e-9);
  EXPECT_NEAR(b.engram[1].window.seconds(), before3, 2e-9);
}

TEST(StepModel, StallChainRecomputedByHand) {
  // SSD without a cache: fetches are long. The chain: C1 = f1, A1 = W1, s1 = max(0, C1 - A1);
  // C2 = f1 + f2, A2 = W2 + s1, s2 = max(0, C2 - A2).
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  o.engram.tier = EngramTier::ssd;
  const RooflineStepModel m(engram_toy(), node, o);
  std::vector<DecodeSeq> decode(256, DecodeSeq{2000, 1});
  const StepBreakdown b = m.breakdown({{}, decode});
  const double f1 = b.engram[0].fetch.total.seconds();
  const double f2 = b.engram[1].fetch.total.seconds();
  const double w1 = b.engram[0].window.seconds();
  const double w2 = b.engram[1].window.seconds();
  const double s1 = std::max(0.0, f1 - w1);
  const double s2 = std::max(0.0, f1 + f2 - (w2 + s1));
  EXPECT_GT(s1, 0.0);  // the point of the case: something is exposed
  EXPECT_NEAR(b.engram[0].stall.seconds(), s1, 3e-9);
  EXPECT_NEAR(b.engram[1].stall.seconds(), s2, 3e-9);
  EXPECT_NEAR(b.engram[1].completion.seconds(), f1 + f2, 3e-9);
  EXPECT_NEAR(b.engram[1].arrival.seconds(), w2 + s1, 3e-9);
  EXPECT_NEAR(b.cost.engram_stall.seconds(), s1 + s2, 3e-9);
}

TEST(StepModel, ContinuingPromptChunksPrefetchDuringThePreviousStep) {
  // A prompt chunk that continues a prompt (cached > 0) may fetch during the previous step; a first
  // chunk may not. Same tokens, same fetch, different stall.
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  o.engram.tier = EngramTier::ssd;
  const RooflineStepModel m(engram_toy(), node, o);
  std::vector<PrefillChunk> first = {{2048, 0}};
  std::vector<PrefillChunk> next = {{2048, 2048}};
  const StepBreakdown a = m.breakdown({first, {}});
  const StepBreakdown c = m.breakdown({next, {}});
  EXPECT_NEAR(a.cost.engram_fetch.seconds(), c.cost.engram_fetch.seconds(), 1e-9);
  EXPECT_GT(a.cost.engram_stall, Time::zero());
  EXPECT_LT(c.cost.engram_stall, a.cost.engram_stall);
  // The continuing chunk's rows had the previous step (taken as this step's compute) as well.
  EXPECT_NEAR(c.engram[0].prefetch_window.seconds(),
              c.cost.compute.seconds(), 1e-6);
  // Turned off, the continuing chunk stalls like a first chunk: s1 = max(0, f1 - W1).
  o.prefill_prefetch = false;
  const RooflineStepModel off(engram_toy(), node, o);
  const StepBreakdown d = off.breakdown({next, {}});
  EXPECT_NEAR(d.engram[0].stall.seconds(),
              std::max(0.0, d.engram[0].fetch.total.seconds() - d.engram[0].window.seconds()), 3e-9);
  EXPECT_GT(d.cost.engram_stall, c.cost.engram_stall);
}

TEST(StepModel, HbmTierGathersInStreamWithoutStall) {
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  o.engram.tier = EngramTier::hbm;
  const RooflineStepModel m(engram_toy(), node, o);
  std::vector<DecodeSeq> decode(256, DecodeSeq{2000, 1});
  const StepBreakdown b = m.breakdown({{}, decode});
  EXPECT_EQ(b.cost.engram_stall, Time::zero());
  int gathers = 0;
  for (const auto& op : b.ops)
    if (op.name == "engram.gather") {
      ++gathers;
      EXPECT_GT(op.total, Time::zero());
      EXPECT_EQ(op.cost.bound, Bound::memory);
    }
  EXPECT_EQ(gathers, 2);
}

TEST(StepModel, StepEngramReportsWindowsAndRows) {
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  o.engram.tier = EngramTier::dram;
  const RooflineStepModel m(engram_toy(), node, o);
  ASSERT_EQ(m.engram_layer_count(), 2u);
  std::vector<DecodeSeq> decode(100, DecodeSeq{1500, 1});
  std::vector<PrefillChunk> prefill = {{300, 0}};
  std::vector<EngramLayerStep> layers(2);
  const StepCost c = m.step_engram({prefill, decode}, layers);
  const StepCost plain = m.step({prefill, decode});
  EXPECT_EQ(c.total, plain.total);
  const StepBreakdown b = m.breakdown({prefill, decode});
  for (std::size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(layers[e].layer, b.engram[e].layer);
    EXPECT_TRUE(layers[e].sees_prompt);  // the toy card runs prompts through every layer
    // 100 decode positions + 300 prompt tokens; 16 lookups per position on the one rank.
    EXPECT_DOUBLE_EQ(layers[e].positions, 400.0);
    EXPECT_DOUBLE_EQ(layers[e].lookups, 400.0 * 16);
    EXPECT_NEAR(layers[e].window.seconds(), b.engram[e].window.seconds(), 2e-9);
    EXPECT_DOUBLE_EQ(layers[e].host_rows, b.engram[e].fetch.host_rows);
  }
  std::vector<EngramLayerStep> too_few(1);
  EXPECT_THROW(m.step_engram({prefill, decode}, too_few), std::invalid_argument);
}

TEST(StepModel, HostOverheadPerEngine) {
  EXPECT_EQ(host_overhead_for("vllm").per_step, Time::us(250));
  EXPECT_EQ(host_overhead_for("nano-vllm").per_sequence, Time::us(4));
  EXPECT_THROW(host_overhead_for("tgi"), std::invalid_argument);
}

}  // namespace
}  // namespace engramsim
