// Expert all-to-all of a replica spanning scale-up domains: the per-token copy counts of DeepEP's
// normal kernels (node-limited routing) and low-latency kernels, per rank, on DeepSeek-V3 EP32 over
// four HGX H800 nodes; the kernel choice by batch content; and the layout rules.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"

namespace engramsim {
namespace {

RooflineStepModel v3_ep32() {
  RooflineOptions o;
  o.layout = {32, 32, true};
  o.host = load_engine("sglang");
  return RooflineStepModel(load_model_card("deepseek-v3"), load_node("hgx-h800"), o);
}

const OpReport* find_op(const StepBreakdown& b, const std::string& name) {
  for (const auto& op : b.ops)
    if (op.name == name && op.layer == 10) return &op;
  return nullptr;
}

TEST(ExpertAllToAll, NormalKernelsCountOneCopyPerRemoteNodeReached) {
  const RooflineStepModel m = v3_ep32();
  // 32 prompts of 4,096 tokens: 4,096 tokens per rank under data-parallel attention.
  std::vector<PrefillChunk> chunks(32, PrefillChunk{4096, 0});
  const StepBreakdown b = m.breakdown(BatchShape{chunks, {}});
  const OpReport* d = find_op(b, "moe.dispatch");
  const OpReport* ll = find_op(b, "moe.dispatch.low_latency");
  ASSERT_NE(d, nullptr);
  ASSERT_NE(ll, nullptr);
  // N = 4 nodes, 4 groups per token (8 groups, 2 per node): m = min(4, 4 x max(1, 4/8)) = 4 nodes.
  // Remote nodes reached per token: 4 (1 - 1/4) (1 - (3/4)^8) = 2.6996; FP8 dispatch 7168 B each.
  const double remote = 4.0 * 0.75 * (1.0 - std::pow(0.75, 8));
  EXPECT_NEAR(remote, 2.6996, 1e-4);
  EXPECT_NEAR(d->work.collective_bytes.value(), 4096.0 * remote * 7168.0, 1.0);
  // NVLink forward: distinct expert ranks 32 (1 - (31/32)^8) = 7.178, of which 3/4 on another GPU
  // of the receiving node (8 GPUs per node: (8 - 1) / 8).
  const double ranks = 32.0 * (1.0 - std::pow(31.0 / 32.0, 8));
  EXPECT_NEAR(d->work.scale_up_bytes.value(), 4096.0 * ranks * 7.0 / 8.0 * 7168.0, 1.0);
  EXPECT_EQ(d->work.collective, CollectiveKind::expert_normal);
  // A step with prompt tokens runs the normal kernels only.
  EXPECT_EQ(ll->total.seconds(), 0.0);
  EXPECT_GT(d->total.seconds(), 0.0);
  // The combine moves BF16: twice the dispatch bytes.
  const OpReport* c = find_op(b, "moe.combine");
  ASSERT_NE(c, nullptr);
  EXPECT_NEAR(c->work.collective_bytes.value(), 2.0 * d->work.collective_bytes.value(), 1.0);
}

TEST(ExpertAllToAll, DecodeOnlyStepsUseLowLatencyKernels) {
  const RooflineStepModel m = v3_ep32();
  std::vector<DecodeSeq> seqs(32 * 128, DecodeSeq{4096, 1});
  const StepBreakdown b = m.breakdown(BatchShape{{}, seqs});
  const OpReport* d = find_op(b, "moe.dispatch");
  const OpReport* ll = find_op(b, "moe.dispatch.low_latency");
  ASSERT_NE(d, nullptr);
  ASSERT_NE(ll, nullptr);
  EXPECT_EQ(d->total.seconds(), 0.0);
  // One NIC copy per expert on another node: 128 tokens x 8 x 3/4 x 7168 B.
  EXPECT_NEAR(ll->work.collective_bytes.value(), 128.0 * 8.0 * 0.75 * 7168.0, 1e-6);
  const ScaleOutParams so = deepep_h800_defaults();
  const double nic = ll->work.collective_bytes.value() * so.low_latency.seconds_per_byte / 50e9;
  EXPECT_NEAR(ll->cost.time.seconds(), so.low_latency.alpha_s + nic, 1e-9);
  // step() and breakdown() agree.
  EXPECT_NEAR(m.step(BatchShape{{}, seqs}).total.seconds(), b.cost.total.seconds(), 1e-9);
}

TEST(ExpertAllToAll, SpanningDomainsNeedsDataParallelAttentionAndANic) {
  const ModelCard v3 = load_model_card("deepseek-v3");
  RooflineOptions tp_attention;
  tp_attention.layout = {16, 16, false};
  EXPECT_THROW(RooflineStepModel(v3, load_node("hgx-h800"), tp_attention), std::invalid_argument);
  RooflineOptions partial;
  partial.layout = {12, 12, true};  // one and a half nodes
  EXPECT_THROW(RooflineStepModel(v3, load_node("hgx-h800"), partial), std::invalid_argument);
  RooflineOptions ok;
  ok.layout = {16, 16, true};
  EXPECT_NO_THROW(RooflineStepModel(v3, load_node("hgx-h800"), ok));
  EXPECT_NO_THROW(RooflineStepModel(v3, load_node("hgx-b300"), ok));  // ConnectX-8 NICs
  // The same node without its NICs.
  NodeSpec no_nic = load_node("hgx-b300");
  no_nic.scale_out_bandwidth = Bandwidth{};
  EXPECT_THROW(RooflineStepModel(v3, no_nic, ok), std::invalid_argument);
}

}  // namespace
}  // namespace engramsim
