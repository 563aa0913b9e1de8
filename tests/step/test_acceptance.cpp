// Acceptance cases for the step model, reproduced at step level:
//  1. The Engram paper's offload test (arXiv 2601.07372 Table 4): Dense-4B / Dense-8B backbones with
//     one 100B-parameter Engram layer in block 2, every row in host DRAM, one GPU (nano-vLLM on an
//     H800; here h100-sxm behind its PCIe Gen5 link), 512 sequences of Uniform(100, 1024) prompt and
//     output tokens. Published penalties 1.92 % and 2.78 %. The throughput comes from replaying that
//     workload step by step the way nano-vLLM schedules it (whole prompts batched up to 16,384
//     tokens, then decode steps over every running sequence), once with the Engram layer and once
//     with the card's Engram removed; nothing in the model is tuned to this case.
//
//     The paper's harness prefetches asynchronously and overlaps only the PCIe transfer with block 0
//     (its §6.4); nano-vLLM runs one synchronous host thread, so the lookup's host work (N-gram
//     hashes, the CPU gather into pinned staging) sits between sampling and the next forward. The
//     model charges it as host time (HostOverhead::engram_lookup_on_host_thread, docs/cost-model.md)
//     and the copy hides behind block 0. Outcome of this step replay: 1.77 % and 1.31 %, within the
//     +-1.5 point target (-0.15 and -1.47 points; the serving run gives 1.75 % and 1.30 %). The published 8B penalty is
//     larger than the 4B one although both arms carry the same Engram layer; no mechanism here grows with the backbone,
//     so the 8B gap is the larger one (docs/cost-model.md, "Known limits").
//  2. DeepSeek-V4.1-Flash on hgx-b300 TP2, 64 decode sequences at 8k context: the stall is zero with
//     the tables in HBM, a small share of the step in DRAM, much larger on SSD without a cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/rng.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"

namespace engramsim {
namespace {

struct Workload {
  std::vector<int> prompt;
  std::vector<int> output;
};

// nano-vLLM's benchmark draws prompt and output lengths uniformly in [100, 1024]; the paper ran 512
// sequences. Fixed seed: the same workload every run.
Workload paper_workload() {
  Workload w;
  RngStream rng(20260112, "engram-offload-test");
  for (int i = 0; i < 512; ++i) {
    w.prompt.push_back(static_cast<int>(rng.uniform_int(100, 1024)));
    w.output.push_back(static_cast<int>(rng.uniform_int(100, 1024)));
  }
  return w;
}

struct Replay {
  double seconds = 0.0;
  double tokens = 0.0;
  double stall_seconds = 0.0;
  double fetch_seconds = 0.0;
  int steps = 0;
  double throughput() const { return tokens / seconds; }
};

// nano-vLLM's scheduler: while prompts wait, a step prefills whole prompts up to 16,384 batched
// tokens (the prefill emits each sequence's first token); otherwise one decode step over every
// running sequence. All 512 fit in the KV cache of an 80 GB part for these backbones (MLA latent
// ~35 KB per token: ~0.6M tokens needed), so nothing is preempted.
Replay replay(const RooflineStepModel& model, const Workload& w) {
  Replay r;
  const std::size_t n = w.prompt.size();
  std::vector<int> generated(n, 0);
  std::size_t next_prompt = 0;
  std::vector<PrefillChunk> chunks;
  std::vector<DecodeSeq> decode;
  while (true) {
    chunks.clear();
    decode.clear();
    if (next_prompt < n) {
      int budget = 16384;
      std::vector<std::size_t> admitted;
      while (next_prompt < n && w.prompt[next_prompt] <= budget) {
        budget -= w.prompt[next_prompt];
        chunks.push_back({w.prompt[next_prompt], 0});
        admitted.push_back(next_prompt);
        ++next_prompt;
      }
      const StepCost c = model.step({chunks, decode});
      r.seconds += c.total.seconds();
      r.stall_seconds += c.engram_stall.seconds();
      r.fetch_seconds += c.engram_fetch.seconds();
      for (auto i : admitted) generated[i] = 1;
      r.tokens += static_cast<double>(admitted.size());
      ++r.steps;
      continue;
    }
    std::vector<std::size_t> running;
    for (std::size_t i = 0; i < n; ++i)
      if (generated[i] > 0 && generated[i] < w.output[i]) {
        running.push_back(i);
        decode.push_back({w.prompt[i] + generated[i], 1});
      }
    if (running.empty()) break;
    const StepCost c = model.step({chunks, decode});
    r.seconds += c.total.seconds();
    r.stall_seconds += c.engram_stall.seconds();
    r.fetch_seconds += c.engram_fetch.seconds();
    for (auto i : running) ++generated[i];
    r.tokens += static_cast<double>(running.size());
    ++r.steps;
  }
  return r;
}

struct PaperArm {
  const char* card;
  double published_penalty;
};

TEST(Acceptance, EngramPaperOffloadPenalty) {
  const NodeSpec node = load_node("hgx-h100");
  const Workload w = paper_workload();
  for (const PaperArm arm :
       {PaperArm{"engram-offload-dense-4b", 0.0192}, PaperArm{"engram-offload-dense-8b", 0.0278}}) {
    const ModelCard with = load_model_card(arm.card);
    ModelCard without = with;
    without.engram.reset();
    RooflineOptions o;
    o.layout = ParallelLayout{1, 1, false};
    o.engram.tier = EngramTier::dram;
    o.engram.active_gpus = 1;               // the paper ran one GPU: its PCIe switch uplink is not shared
    o.engram.dram_path = DramPath::staged;  // host gather into pinned staging, then the copy
    o.host = load_engine("nano-vllm");
    const RooflineStepModel engram_model(with, node, o);
    const RooflineStepModel base_model(without, node, o);
    const Replay e = replay(engram_model, w);
    const Replay b = replay(base_model, w);
    ASSERT_DOUBLE_EQ(e.tokens, b.tokens);
    const double penalty = 1.0 - e.throughput() / b.throughput();
    std::printf(
        "%s: baseline %.0f tok/s, with Engram %.0f tok/s (%d steps); penalty %.2f %% (published %.2f %%); "
        "stall %.3f s of %.3f s, fetch %.3f s\n",
        arm.card, b.throughput(), e.throughput(), e.steps, 100 * penalty, 100 * arm.published_penalty, e.stall_seconds,
        e.seconds, e.fetch_seconds);
    std::printf("  gap to the published penalty: %.2f points (target +-1.5)\n",
                100 * (arm.published_penalty - penalty));
    EXPECT_EQ(e.stall_seconds, 0.0) << arm.card;
    EXPECT_GT(e.fetch_seconds, 0.0) << arm.card;
    EXPECT_LE(std::abs(arm.published_penalty - penalty), 0.015) << arm.card;
  }
}

class V41Tiers : public ::testing::Test {
 protected:
  StepBreakdown run(EngramTier tier) {
    const ModelCard card = load_model_card("deepseek-v4.1-flash");
    const NodeSpec node = load_node("hgx-b300");
    RooflineOptions o;
    o.layout = ParallelLayout{2, 1, false};
    o.engram.tier = tier;
    o.host = load_engine("vllm");
    const RooflineStepModel m(card, node, o);
    std::vector<DecodeSeq> decode(64, DecodeSeq{8192, 1 + card.spec_decode.draft_tokens});
    return m.breakdown({{}, decode});
  }
};

TEST_F(V41Tiers, StallByTier) {
  const StepBreakdown hbm = run(EngramTier::hbm);
  const StepBreakdown dram = run(EngramTier::dram);
  const StepBreakdown ssd = run(EngramTier::ssd);
  for (const auto* b : {&hbm, &dram, &ssd}) {
    std::printf("%s: step %.3f ms, fetch %.3f ms, stall %.3f ms (%.2f %%)\n", to_string(b->engram[0].tier),
                b->cost.total.millis(), b->cost.engram_fetch.millis(), b->cost.engram_stall.millis(),
                100.0 * b->cost.engram_stall.seconds() / b->cost.total.seconds());
    for (const auto& e : b->engram) std::printf("  layer %d: %s\n", e.layer, e.reason.c_str());
  }
  ASSERT_EQ(hbm.engram.size(), 2u);
  EXPECT_EQ(hbm.cost.engram_stall, Time::zero());
  const double dram_share = dram.cost.engram_stall.seconds() / dram.cost.total.seconds();
  const double ssd_share = ssd.cost.engram_stall.seconds() / ssd.cost.total.seconds();
  EXPECT_LT(dram_share, 0.02);
  EXPECT_GT(ssd_share, 0.03);
  EXPECT_GT(ssd.cost.engram_stall.seconds(), 10.0 * dram.cost.engram_stall.seconds() + 1e-3);
  // The reasons say which resource limits the fetch and what hides it.
  EXPECT_NE(hbm.engram[0].reason.find("in-stream"), std::string::npos);
  EXPECT_NE(dram.engram[0].reason.find("host_link"), std::string::npos);
  EXPECT_NE(ssd.engram[0].reason.find("exposed"), std::string::npos);
  EXPECT_NE(ssd.engram[0].reason.find("NVMe pages"), std::string::npos);
  // The layer-1 window is the embedding and layer 0 only; layer 14 waits behind 14 layers.
  EXPECT_LT(dram.engram[0].window * 5, dram.engram[1].window);
}

}  // namespace
}  // namespace engramsim
