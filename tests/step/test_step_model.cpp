// The step model's totals and the Engram window/stall chain, recomputed by hand from the
// breakdown's parts, and the agreement of the fast path with the breakdown.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"
#include "models/step_memo.hpp"
#include "tests/support/config_error.hpp"

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
    o.host = load_engine("vllm");
    const RooflineStepModel m(engram_toy(), node, o);
    std::vector<DecodeSeq> decode(200, DecodeSeq{3000, 1});
    const StepBreakdown b = m.breakdown({{}, decode});
    // Compute = sum of the per-layer ops (the hbm tier's gathers appear as ops).
    EXPECT_NEAR(b.cost.compute.seconds(), sum_ops(b), 1e-8) << to_string(tier);
    // Host: 250 us + 200 sequences x 0.5 us = 350 us (vllm), + 6 layers x 130 us of PIECEWISE eager
    // regions on vllm's ssd (page_cache) path only (no drafter here).
    EXPECT_EQ(b.cost.host_overhead, Time::us(tier == EngramTier::ssd ? 350 + 6 * 130 : 350)) << to_string(tier);
    EXPECT_NEAR(b.cost.total.seconds(),
                b.cost.compute.seconds() + b.cost.engram_stall.seconds() + b.cost.host_overhead.seconds(), 3e-9);
    // The fast path returns the same numbers as the breakdown.
    const StepCost fast = m.step({{}, decode});
    EXPECT_NEAR(fast.total.seconds(), b.cost.total.seconds(), 2e-9) << to_string(tier);
    EXPECT_NEAR(fast.engram_stall.seconds(), b.cost.engram_stall.seconds(), 2e-9);
    EXPECT_NEAR(fast.engram_fetch.seconds(), b.cost.engram_fetch.seconds(), 2e-9);
  }
}

TEST(StepModel, FastPathMatchesBreakdownWithPartialGemmOverlap) {
  // MI300X carries a GEMM weight-stream share and no overlap (hardware/gpus/mi300x.yaml): step()
  // and breakdown() agree across batches that cross the math / weight-stream balance point.
  const NodeSpec node = load_node("mi300x-8");
  ASSERT_LT(node.gpu.gemm_overlap, 1.0);
  RooflineOptions o;
  o.layout = ParallelLayout{8, 1, false};
  o.host = load_engine("vllm-sync");
  ModelCard card = load_model_card("llama-3.1-70b");
  card.precisions.attention = Precision::fp8;
  card.precisions.dense_ffn = Precision::fp8;
  const RooflineStepModel m(card, node, o);
  double last = 0.0;
  for (int seqs : {1, 64, 512, 2048}) {
    const std::vector<DecodeSeq> decode(static_cast<std::size_t>(seqs), DecodeSeq{1024, 1});
    const StepBreakdown b = m.breakdown({{}, decode});
    EXPECT_NEAR(m.step({{}, decode}).total.seconds(), b.cost.total.seconds(), 2e-9) << seqs;
    EXPECT_NEAR(b.cost.compute.seconds(), sum_ops(b), 1e-6) << seqs;  // ~1,000 ops, each rounded to 1 ns
    EXPECT_GT(b.cost.total.seconds(), last) << seqs;
    last = b.cost.total.seconds();
  }
  // Full overlap on the same part is faster.
  NodeSpec full = node;
  full.gpu.gemm_overlap = 1.0;
  const std::vector<DecodeSeq> decode(128, DecodeSeq{1024, 1});
  EXPECT_LT(RooflineStepModel(card, full, o).step({{}, decode}).total.seconds(), m.step({{}, decode}).total.seconds());
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

TEST(StepModel, PageCacheRoundTripIsExposedAtEachLayer) {
  // vllm's ssd path: the round trip runs inside the forward at the layer, so each layer's stall is
  // its whole fetch, whatever the window; the overlapped variant hides it behind the window.
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  o.engram.tier = EngramTier::ssd;
  o.engram.page_cache = Bytes::gib(1024);  // the whole table: no faults
  o.host = load_engine("vllm");
  const RooflineStepModel m(engram_toy(), node, o);
  std::vector<DecodeSeq> decode(64, DecodeSeq{1000, 1});
  const StepBreakdown b = m.breakdown({{}, decode});
  for (const auto& l : b.engram) {
    EXPECT_EQ(l.stall, l.fetch.total);
    EXPECT_STREQ(l.fetch.bound, "host_round_trip");
    EXPECT_NEAR(l.fetch.ssd_pages, 0.0, 1e-6);
  }
  o.host.engram_host_gather_overlap = true;
  const StepBreakdown hidden = RooflineStepModel(engram_toy(), node, o).breakdown({{}, decode});
  EXPECT_LT(hidden.cost.engram_stall, b.cost.engram_stall);
}

TEST(StepModel, SideStreamShareIsChargedOnTheDramPath) {
  // With a window longer than the gather, the exposed time is share x fetch (0 without a share).
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  o.engram.tier = EngramTier::dram;
  const std::vector<DecodeSeq> decode(64, DecodeSeq{1000, 1});
  const StepBreakdown none = RooflineStepModel(engram_toy(), node, o).breakdown({{}, decode});
  o.host.engram_side_stream_sm_share = 0.5;
  const StepBreakdown half = RooflineStepModel(engram_toy(), node, o).breakdown({{}, decode});
  ASSERT_EQ(half.engram.size(), 2u);
  for (std::size_t e = 0; e < 2; ++e) {
    const double f = half.engram[e].fetch.total.seconds();
    EXPECT_NEAR(half.engram[e].stall.seconds(), std::max(none.engram[e].stall.seconds(), 0.5 * f), 3e-9);
  }
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
  EXPECT_NEAR(c.engram[0].prefetch_window.seconds(), c.cost.compute.seconds(), 1e-6);
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

// The memo wrapper (models/step_memo.hpp) and its token cache return what the model alone computes,
// bit for bit, and never hand one shape's entry to another (a one-entry table puts every shape in
// the same slot).
void expect_same_cost(const StepCost& a, const StepCost& b, const std::string& what) {
  EXPECT_EQ(a.total.count_ns(), b.total.count_ns()) << what;
  EXPECT_EQ(a.compute.count_ns(), b.compute.count_ns()) << what;
  EXPECT_EQ(a.host_overhead.count_ns(), b.host_overhead.count_ns()) << what;
  EXPECT_EQ(a.engram_fetch.count_ns(), b.engram_fetch.count_ns()) << what;
  EXPECT_EQ(a.engram_stall.count_ns(), b.engram_stall.count_ns()) << what;
}

struct OwnedBatch {
  std::vector<PrefillChunk> prefill;
  std::vector<DecodeSeq> decode;
  BatchShape shape() const { return {prefill, decode}; }
};

// Shapes whose statistics differ (contexts, sizes, prompt chunks, short contexts under the caps),
// shapes that share all token-count statistics (only contexts differ), and a permutation (the same
// statistics from a different batch).
std::vector<OwnedBatch> memo_shapes() {
  std::vector<OwnedBatch> v;
  OwnedBatch a;
  for (int i = 0; i < 64; ++i) a.decode.push_back({4096 + 97 * i, 6});
  v.push_back(a);
  OwnedBatch advanced = a;  // one decode step later: same token counts, other contexts
  for (auto& d : advanced.decode) d.context += d.positions;
  v.push_back(advanced);
  OwnedBatch permuted = a;
  std::reverse(permuted.decode.begin(), permuted.decode.end());
  v.push_back(permuted);
  OwnedBatch shorter = a;
  shorter.decode.resize(63);
  v.push_back(shorter);
  OwnedBatch short_ctx;
  for (int i = 0; i < 64; ++i) short_ctx.decode.push_back({10 + 3 * i, 1 + i % 4});
  v.push_back(short_ctx);
  OwnedBatch mixed = a;
  mixed.prefill = {{2048, 4096}, {1024, 0}};
  v.push_back(mixed);
  OwnedBatch mixed2 = mixed;
  mixed2.prefill[0].cached += 1;
  v.push_back(mixed2);
  v.push_back(OwnedBatch{});
  return v;
}

TEST(StepModel, MemoizedStepEqualsUncachedBitForBit) {
  const NodeSpec b300 = load_node("hgx-b300");
  const NodeSpec h100 = load_node("hgx-h100");
  struct Case {
    ModelCard card;
    const NodeSpec* node;
    int tp;
    EngramTier tier;
  };
  const std::vector<Case> cases = {{load_model_card("deepseek-v4.1-flash"), &b300, 2, EngramTier::dram},
                                   {load_model_card("deepseek-v4.1-flash"), &b300, 2, EngramTier::ssd},
                                   {load_model_card("llama-3.1-8b"), &h100, 1, EngramTier::hbm},
                                   {engram_toy(), &h100, 1, EngramTier::dram}};
  const std::vector<OwnedBatch> shapes = memo_shapes();
  for (const Case& k : cases) {
    RooflineOptions o;
    o.layout = ParallelLayout{k.tp, 1, false};
    o.engram.tier = k.tier;
    const auto model = std::make_shared<const RooflineStepModel>(k.card, *k.node, o);
    const RooflineStepModel& plain = *model;
    const MemoStepModel cached(model);
    const MemoStepModel single(model, 1);
    std::vector<StepCost> want;
    for (const auto& b : shapes) want.push_back(plain.step(b.shape()));
    // Every order twice over: first calls fill the caches, later ones read them.
    for (int round = 0; round < 3; ++round) {
      for (std::size_t i = 0; i < shapes.size(); ++i) {
        const std::size_t j = round == 1 ? shapes.size() - 1 - i : i;
        const std::string what = k.card.name + " shape " + std::to_string(j) + " round " + std::to_string(round);
        expect_same_cost(cached.step(shapes[j].shape()), want[j], what);
        expect_same_cost(cached.step(shapes[j].shape()), want[j], what + " (repeat)");
        expect_same_cost(single.step(shapes[j].shape()), want[j], what + " (one entry)");
        // step_engram shares the token cache.
        std::vector<EngramLayerStep> got(cached.engram_layer_count()), ref(plain.engram_layer_count());
        expect_same_cost(cached.step_engram(shapes[j].shape(), got), plain.step_engram(shapes[j].shape(), ref),
                         what + " (step_engram)");
        for (std::size_t e = 0; e < got.size(); ++e)
          EXPECT_EQ(got[e].window.count_ns(), ref[e].window.count_ns()) << what;
      }
    }
    // A model copied after use computes the same: it holds no state.
    const RooflineStepModel copy = plain;
    for (std::size_t j = 0; j < shapes.size(); ++j) expect_same_cost(copy.step(shapes[j].shape()), want[j], "copy");
  }
}

TEST(StepModel, MemoRefusesNoModelAndAnEmptyTable) {
  RooflineOptions o;
  o.layout = ParallelLayout{1, 1, false};
  const auto model =
      std::make_shared<const RooflineStepModel>(load_model_card("llama-3.1-8b"), load_node("hgx-h100"), o);
  EXPECT_THROW(MemoStepModel(nullptr), std::invalid_argument);
  EXPECT_THROW(MemoStepModel(model, 0), std::invalid_argument);
  EXPECT_EQ(MemoStepModel(model).engram_layer_count(), model->engram_layer_count());
}

TEST(StepModel, MemoizedStepIsSafeAcrossThreads) {
  RooflineOptions o;
  o.layout = ParallelLayout{2, 1, false};
  o.engram.tier = EngramTier::dram;
  const ModelCard card = load_model_card("deepseek-v4.1-flash");
  const NodeSpec node = load_node("hgx-b300");
  const auto model = std::make_shared<const RooflineStepModel>(card, node, o);
  const RooflineStepModel& plain = *model;
  const MemoStepModel shared(model);
  const std::vector<OwnedBatch> shapes = memo_shapes();
  std::vector<StepCost> want;
  for (const auto& b : shapes) want.push_back(plain.step(b.shape()));
  std::atomic<int> mismatches{0};
  auto worker = [&](std::size_t offset) {
    for (int i = 0; i < 2000; ++i) {
      const std::size_t j = (offset + static_cast<std::size_t>(i) * 3) % shapes.size();
      const StepCost c = shared.step(shapes[j].shape());
      if (c.total != want[j].total || c.compute != want[j].compute || c.engram_stall != want[j].engram_stall)
        ++mismatches;
    }
  };
  std::thread t1(worker, 0), t2(worker, 1), t3(worker, 5);
  t1.join();
  t2.join();
  t3.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(EnginePresets, CatalogLoadsAndBadPresetsAreLocated) {
  EXPECT_EQ(known_engines(), (std::vector<std::string>{"nano-vllm", "sglang", "sglang-deepep", "sglang-rocm", "trtllm",
                                                       "vllm", "vllm-rocm-day7", "vllm-sync"}));
  EXPECT_DOUBLE_EQ(load_engine("vllm").kernel_time_scale, 1.0);
  EXPECT_DOUBLE_EQ(load_engine("vllm-rocm-day7").kernel_time_scale, 1.5);
  EXPECT_EQ(load_engine("vllm").per_step, Time::us(250));
  const HostOverhead nano = load_engine("nano-vllm");
  EXPECT_EQ(nano.per_sequence, Time::us(4));
  EXPECT_TRUE(nano.engram_lookup_on_host_thread);
  EXPECT_EQ(nano.engram_lookup_per_position, Time::ns(25));
  try {
    load_engine("tgi");
    ADD_FAILURE() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "known: nano-vllm, sglang, sglang-deepep, sglang-rocm, trtllm, vllm, vllm-rocm-day7"),
              std::string::npos)
        << e.what();
  }
  const auto error_of = [](const std::string& text) {
    return test::config_error_of([&] { engine_from_yaml(text, "e.yaml"); });
  };
  EXPECT_EQ(error_of("name: x\nper_step: 10us\nper_sequence: 1ns\n"), "");
  EXPECT_NE(error_of("name: x\nper_step: 10\nper_sequence: 1ns\n").find("e.yaml:2:11: per_step"), std::string::npos);
  EXPECT_NE(error_of("name: x\nper_sequence: 1ns\n").find("per_step"), std::string::npos);
  EXPECT_NE(error_of("name: x\nper_step: 2s\nper_sequence: 1ns\n").find("must be a time in [0, 1s]"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nper_step: 1us\nper_sequence: 1ns\nengram_lookup_per_step: 1us\n")
                .find("e.yaml:4:25: engram_lookup_per_step: applies only with"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nper_step: 1us\nper_sequence: 1ns\nengram_lookup_on_host_thread: true\n")
                .find("engram_lookup_per_step"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nper_step: 1us\nper_sequence: 1ns\nper_stepp: 1us\n").find("per_stepp"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nper_step: 1us\nper_sequence: 1ns\nkernel_time_scale: 0.5\n")
                .find("e.yaml:4:20: kernel_time_scale"),
            std::string::npos);
}

// kernel_time_scale multiplies every op's time (compute, the breakdown's ops alike), not the host terms.
TEST(EnginePresets, KernelTimeScaleMultipliesTheOpsOnly) {
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  o.engram.tier = EngramTier::dram;
  o.host = load_engine("vllm");
  const std::vector<DecodeSeq> decode(64, DecodeSeq{2000, 1});
  const StepBreakdown one = RooflineStepModel(engram_toy(), node, o).breakdown({{}, decode});
  o.host.kernel_time_scale = 2.0;
  const RooflineStepModel scaled(engram_toy(), node, o);
  const StepBreakdown two = scaled.breakdown({{}, decode});
  EXPECT_NEAR(two.cost.compute.seconds(), 2.0 * one.cost.compute.seconds(), 1e-9);
  EXPECT_NEAR(two.cost.compute.seconds(), sum_ops(two), 3e-8);  // twice the unscaled test's 1e-8 rounding
  EXPECT_EQ(two.cost.host_overhead, one.cost.host_overhead);
  EXPECT_NEAR(scaled.step({{}, decode}).total.seconds(), two.cost.total.seconds(), 2e-9);
}

}  // namespace
}  // namespace engramsim
