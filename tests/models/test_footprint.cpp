// HBM footprint: each term against its formula on hand-built nodes, every feasibility limit probed
// on both sides, and the DeepSeek-V4.1-Flash acceptance cases against the catalog presets.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/footprint.hpp"
#include "models/kv_size.hpp"

namespace engramsim {
namespace {

NodeSpec make_node(double usable_gib, int gpus = 8) {
  NodeSpec n;
  n.name = "test-node";
  n.gpu.name = "test-gpu";
  n.gpu.hbm_capacity = Bytes::gib(usable_gib);
  n.gpu.hbm_usable = Bytes::gib(usable_gib);
  n.gpu_count = gpus;
  n.scale_up_domain_gpus = gpus;
  n.host_dram_capacity = Bytes::gib(2048);
  n.nvme.count = 8;
  n.nvme.capacity_per_drive = Bytes::gb(3840);
  return n;
}

FootprintOptions opts(int tp, EngramTier tier = EngramTier::dram) {
  FootprintOptions o;
  o.tp = tp;
  o.engram_tier = tier;
  return o;
}

const ModelCard& v41() {
  static const ModelCard c = load_model_card("deepseek-v4.1-flash");
  return c;
}

// --- the terms -----------------------------------------------------------------------------------

TEST(Footprint, BudgetAndKvPoolAddUp) {
  const ModelCard c = load_model_card("llama-3.1-70b");
  const Footprint f = compute_footprint(c, make_node(140), opts(4));
  const GpuFootprint& g = f.per_gpu;
  EXPECT_DOUBLE_EQ(g.budget.value(), Bytes::gib(140).value() * 0.9);
  EXPECT_NEAR(g.kv_pool.value(), (g.budget - g.weights - g.engram - g.activation - g.reserved).value(), 1.0);
  EXPECT_NEAR(g.weights.value(), (g.weights_sharded + g.weights_replicated).value(), 1.0);
  Bytes lines;
  for (const auto& l : g.weight_lines) lines += l.bytes;
  EXPECT_NEAR(lines.value(), g.weights.value(), 1.0);
  // Whole blocks only, and never more than the pool holds.
  EXPECT_EQ(g.kv_tokens % 16, 0);
  EXPECT_LE(static_cast<double>(g.kv_tokens) * g.kv_bytes_per_token.value(), (g.kv_pool - g.kv_window_reserve).value());
  EXPECT_GT(static_cast<double>(g.kv_tokens + 16) * g.kv_bytes_per_token.value(),
            (g.kv_pool - g.kv_window_reserve).value());
  EXPECT_DOUBLE_EQ(g.kv_bytes_per_token.value(), 327680.0 / 4);
  EXPECT_FALSE(f.dp_attention);  // GQA with 8 KV heads splits by head
  EXPECT_EQ(f.replica_kv_tokens, g.kv_tokens);
}

TEST(Footprint, DenseWeightsShrinkWithTp) {
  const ModelCard c = load_model_card("llama-3.1-70b");
  const double w2 = compute_footprint(c, make_node(140), opts(2)).per_gpu.weights_sharded.value();
  const double w4 = compute_footprint(c, make_node(140), opts(4)).per_gpu.weights_sharded.value();
  EXPECT_NEAR(w2 / w4, 2.0, 1e-9);
}

TEST(Footprint, EngramTablesInHbmOnlyOnTheHbmTier) {
  const NodeSpec n = make_node(1000);
  const Bytes total = compute_footprint(v41(), n, opts(4)).engram_tables_total;
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), n, opts(4, EngramTier::hbm)).per_gpu.engram.value(), total.value() / 4);
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), n, opts(2, EngramTier::hbm)).per_gpu.engram.value(), total.value() / 2);
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), n, opts(4, EngramTier::dram)).per_gpu.engram.value(), 0.0);
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), n, opts(4, EngramTier::ssd)).per_gpu.engram.value(), 0.0);
  // 24 table heads per layer: at TP16 a GPU holds ceil(24 / 16) = 2 of them.
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), make_node(1000, 16), opts(16, EngramTier::hbm)).per_gpu.engram.value(),
                   total.value() * 2 / 24);
}

TEST(Footprint, LogitsCoverEveryVerifiedPosition) {
  const Footprint f = compute_footprint(v41(), make_node(1000), opts(4));
  // 2 (logits + probabilities) x 256 sequences x (1 + 5 drafts) x vocab x 4 B.
  EXPECT_DOUBLE_EQ(f.per_gpu.logits.value(), 2.0 * 256 * 6 * 129280 * 4);
}

TEST(Footprint, FixedBuffersScaleWithBatchedTokensUpToTheCardCap) {
  ModelCard c = v41();
  FootprintOptions o = opts(4);
  o.max_num_batched_tokens = 16384;
  EXPECT_DOUBLE_EQ(compute_footprint(c, make_node(1000), o).per_gpu.fixed_buffers.gib(), 32.0);  // IX #3337
  o.max_num_batched_tokens = 4096;
  EXPECT_DOUBLE_EQ(compute_footprint(c, make_node(1000), o).per_gpu.fixed_buffers.gib(), 8.0);
  c.fixed_buffer_token_cap = 4096;  // an engine that chunks the buffer
  o.max_num_batched_tokens = 4095;
  EXPECT_DOUBLE_EQ(compute_footprint(c, make_node(1000), o).per_gpu.fixed_buffers.value(), 4095.0 * 2 * 1024 * 1024);
  o.max_num_batched_tokens = 16384;
  EXPECT_DOUBLE_EQ(compute_footprint(c, make_node(1000), o).per_gpu.fixed_buffers.gib(), 8.0);
}

TEST(Footprint, EngineProfileCapsTheIndexerLogitsBuffer) {
  FootprintOptions o = opts(4);
  o.max_num_batched_tokens = 8192;  // 16 GiB of logits at 2 MiB a token
  o.engine_memory.indexer_logits_profile_cap = Bytes::mib(512);
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), make_node(1000), o).per_gpu.fixed_buffers.gib(), 0.5);
  o.max_num_batched_tokens = 200;  // 400 MiB: under the cap, charged as it is
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), make_node(1000), o).per_gpu.fixed_buffers.value(), 200.0 * 2 * 1024 * 1024);
}

TEST(Footprint, GraphCaptureGrowsWithCaptureSizeAndContext) {
  FootprintOptions o = opts(4);
  o.attention = AttentionParallel::tensor;
  o.ep = 1;
  o.engine_memory.graph_indexer_logit_rows = 2.0;
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), make_node(1000), o).per_gpu.graph_capture.value(), 0.0);  // no capture size
  o.max_model_len = 1 << 20;
  o.cuda_graph_capture_tokens = 64;
  const Footprint a = compute_footprint(v41(), make_node(1000), o);
  o.cuda_graph_capture_tokens = 1024;
  const Footprint b = compute_footprint(v41(), make_node(1000), o);
  // Linear in the captured tokens; the reserve and the pool carry the difference.
  EXPECT_NEAR(b.per_gpu.graph_capture.value(), 16.0 * a.per_gpu.graph_capture.value(), 1.0);
  EXPECT_NEAR((b.per_gpu.reserved - a.per_gpu.reserved).value(),
              (b.per_gpu.graph_capture - a.per_gpu.graph_capture).value(), 1.0);
  EXPECT_NEAR((a.per_gpu.kv_pool - b.per_gpu.kv_pool).value(),
              (b.per_gpu.graph_capture - a.per_gpu.graph_capture).value(), 1.0);
  // Per captured token: two FP32 logits rows over a 1M context at ratio 1 (index layer 20), 8 MiB,
  // plus the token's activations.
  const double per_token = a.per_gpu.graph_capture.value() / 64.0;
  EXPECT_GT(per_token, 8.0 * 1024 * 1024);
  EXPECT_LT(per_token, 9.0 * 1024 * 1024);
  // A quarter of the context: the rows shrink with it.
  o.max_model_len = 1 << 18;
  EXPECT_LT(compute_footprint(v41(), make_node(1000), o).per_gpu.graph_capture.value(),
            0.3 * b.per_gpu.graph_capture.value());
}

TEST(Footprint, EngineLoggedPoolCountsWholePagesOfMaxLengthRequests) {
  FootprintOptions o = opts(4);
  o.attention = AttentionParallel::tensor;
  o.ep = 1;
  o.max_model_len = 1 << 20;
  NodeSpec node = make_node(180);
  node.gpu.sm_family = 100;
  const Footprint f = compute_footprint(v41(), node, o);
  const PagedKvCharge ch = paged_kv_charge(v41(), 100);
  const double blocks = std::floor((f.per_gpu.kv_pool - f.per_gpu.kv_window_reserve).value() / ch.block_stride.value());
  EXPECT_EQ(f.engine_logged_kv_tokens, static_cast<std::int64_t>(std::floor(blocks / 12288.0 * (1 << 20))));
  // Close to the pool in tokens (whole pages of 1M-token requests lose next to nothing).
  EXPECT_NEAR(static_cast<double>(f.engine_logged_kv_tokens), static_cast<double>(f.replica_kv_tokens),
              1e-4 * static_cast<double>(f.replica_kv_tokens));
}

TEST(Footprint, WorkingSetIsLinearInBatchedTokens) {
  FootprintOptions o = opts(4);
  o.max_num_batched_tokens = 4096;
  const double a = compute_footprint(v41(), make_node(1000), o).per_gpu.activation_working_set.value();
  o.max_num_batched_tokens = 8192;
  const double b = compute_footprint(v41(), make_node(1000), o).per_gpu.activation_working_set.value();
  EXPECT_GT(a, 0.0);
  EXPECT_DOUBLE_EQ(b, 2 * a);
}

TEST(Footprint, CollectiveBuffersOnlyWithMoreThanOneGpu) {
  const ModelCard c = load_model_card("llama-3.1-8b");
  const RuntimeReserve r;
  const Bytes one = r.driver_context + r.library_workspace + r.graph_pool;
  EXPECT_DOUBLE_EQ(compute_footprint(c, make_node(80), opts(1)).per_gpu.reserved.value(), one.value());
  EXPECT_DOUBLE_EQ(compute_footprint(c, make_node(80), opts(2)).per_gpu.reserved.value(),
                   (one + r.collectives).value());
}

TEST(Footprint, AutomaticAttentionParallelism) {
  const NodeSpec n = make_node(1000);
  EXPECT_TRUE(compute_footprint(v41(), n, opts(4)).dp_attention);  // MoE, one KV head
  EXPECT_EQ(compute_footprint(v41(), n, opts(4)).layout.ep, 4);
  EXPECT_FALSE(compute_footprint(v41(), n, opts(1)).dp_attention);  // nothing to parallelise
  EXPECT_FALSE(compute_footprint(load_model_card("qwen3-235b-a22b"), n, opts(4)).dp_attention);          // GQA splits
  EXPECT_FALSE(compute_footprint(load_model_card("engram-offload-dense-4b"), n, opts(2)).dp_attention);  // dense
  FootprintOptions o = opts(4);
  o.attention = AttentionParallel::tensor;
  const Footprint t = compute_footprint(v41(), n, o);
  EXPECT_FALSE(t.dp_attention);
  EXPECT_EQ(t.layout.ep, 1);
  o.attention = AttentionParallel::data;
  const Footprint d = compute_footprint(v41(), n, o);
  EXPECT_EQ(d.replica_kv_tokens, d.per_gpu.kv_tokens * 4);  // each GPU holds its own sequences
}

TEST(Footprint, RejectsBadOptions) {
  const NodeSpec n = make_node(1000);
  FootprintOptions o = opts(4);
  EXPECT_NO_THROW(compute_footprint(v41(), n, o));
  o.tp = 0;
  EXPECT_THROW(compute_footprint(v41(), n, o), std::invalid_argument);
  o = opts(4);
  o.ep = 3;
  EXPECT_THROW(compute_footprint(v41(), n, o), std::invalid_argument);
  o.ep = 2;
  EXPECT_NO_THROW(compute_footprint(v41(), n, o));
  o = opts(4);
  o.gpu_memory_utilization = 1.0;
  EXPECT_NO_THROW(compute_footprint(v41(), n, o));
  o.gpu_memory_utilization = 1.01;
  EXPECT_THROW(compute_footprint(v41(), n, o), std::invalid_argument);
  o.gpu_memory_utilization = 0.0;
  EXPECT_THROW(compute_footprint(v41(), n, o), std::invalid_argument);
  o = opts(4);
  o.max_model_len = v41().max_context;
  EXPECT_NO_THROW(compute_footprint(v41(), n, o));
  o.max_model_len = v41().max_context + 1;
  EXPECT_THROW(compute_footprint(v41(), n, o), std::invalid_argument);
}

TEST(FootprintOptions, TensorRtLlmKvRuleTakesAShareOfWhatIsLeft) {
  const ModelCard c = load_model_card("llama-3.1-8b");
  const NodeSpec n = load_node("hgx-h200");
  FootprintOptions o = opts(1);
  const Footprint vllm = compute_footprint(c, n, o);  // 0.9 x usable, minus the rest
  o.kv_free_fraction = 0.95;
  const Footprint trt = compute_footprint(c, n, o);
  const GpuFootprint& g = trt.per_gpu;
  // Budget is all of usable HBM; KV = 0.95 x (usable - weights - activations - reserve).
  EXPECT_DOUBLE_EQ(g.budget.value(), g.hbm_capacity.value());
  EXPECT_NEAR(g.kv_pool.value(), 0.95 * (g.hbm_capacity - g.non_kv()).value(), 1.0);
  EXPECT_DOUBLE_EQ(g.non_kv().value(), vllm.per_gpu.non_kv().value());  // only the KV rule differs
  // vLLM's rule leaves 0.9 x usable - non_kv; this one 0.95 x (usable - non_kv): more whenever
  // non_kv < 0.5 x usable, as for an 8B model in 140 GiB.
  ASSERT_LT(g.non_kv().value(), 0.5 * g.hbm_capacity.value());
  EXPECT_GT(g.kv_tokens, vllm.per_gpu.kv_tokens);
  o.kv_free_fraction = 1.5;
  EXPECT_THROW(compute_footprint(c, n, o), std::invalid_argument);
  o.kv_free_fraction = -0.1;
  EXPECT_THROW(compute_footprint(c, n, o), std::invalid_argument);
}

// --- the limits, both sides ----------------------------------------------------------------------

// Usable HBM (GiB) at which the KV pool holds exactly one max_model_len sequence plus the windows.
double usable_for_exact_fit(const ModelCard& c, const FootprintOptions& o) {
  const Footprint probe = compute_footprint(c, make_node(10000), o);
  const GpuFootprint& g = probe.per_gpu;
  const double need = g.non_kv().value() + g.kv_window_reserve.value() +
                      static_cast<double>(probe.max_model_len) * g.kv_bytes_per_token.value();
  return need / o.gpu_memory_utilization / Bytes::gib(1).value();
}

TEST(FootprintLimits, KvPoolMustHoldOneMaxLengthSequence) {
  const ModelCard c = load_model_card("llama-3.1-8b");
  FootprintOptions o = opts(1);
  o.max_model_len = 131072 - 16 * 5;  // a whole number of blocks below the context
  const double exact = usable_for_exact_fit(c, o);
  const Footprint fits = compute_footprint(c, make_node(exact * (1 + 1e-9)), o);
  EXPECT_TRUE(fits.feasible) << fits.infeasible_reason;
  EXPECT_GE(fits.per_gpu.kv_tokens, o.max_model_len);
  const Footprint short_by = compute_footprint(c, make_node(exact * (1 - 1e-4)), o);
  EXPECT_FALSE(short_by.feasible);
  EXPECT_GT(short_by.per_gpu.kv_pool.value(), 0.0);
  EXPECT_NE(short_by.infeasible_reason.find("short of one max_model_len sequence"), std::string::npos)
      << short_by.infeasible_reason;
}

TEST(FootprintLimits, OverBudgetNamesTheTermsAndTheShortfall) {
  const ModelCard c = load_model_card("llama-3.1-8b");
  const GpuFootprint probe = compute_footprint(c, make_node(1000), opts(1)).per_gpu;
  const double non_kv_gib = probe.non_kv().gib();
  const Footprint f = compute_footprint(c, make_node(non_kv_gib / 0.9 - 1.0), opts(1));
  EXPECT_FALSE(f.feasible);
  EXPECT_LT(f.per_gpu.kv_pool.value(), 0.0);
  EXPECT_NE(f.infeasible_reason.find("HBM over budget by 0.9 GiB"), std::string::npos) << f.infeasible_reason;
  EXPECT_NE(f.infeasible_reason.find("largest term: weights"), std::string::npos) << f.infeasible_reason;
}

TEST(FootprintLimits, HostDramForPinnedTables) {
  // TP4 on 8 GPUs: two replicas, each pinning its own copy unless shared.
  FootprintOptions o = opts(4, EngramTier::dram);
  NodeSpec n = make_node(1000);
  const Bytes tables = compute_footprint(v41(), n, o).engram_tables_total;
  EXPECT_EQ(compute_footprint(v41(), n, o).per_node.replicas, 2);
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), n, o).per_node.host_dram_engram.value(), 2 * tables.value());
  n.host_dram_capacity = tables * (2.0 / 0.9) * (1 + 1e-9);
  EXPECT_TRUE(compute_footprint(v41(), n, o).feasible);
  n.host_dram_capacity = tables * (2.0 / 0.9) * (1 - 1e-6);
  const Footprint f = compute_footprint(v41(), n, o);
  EXPECT_FALSE(f.feasible);
  EXPECT_NE(f.infeasible_reason.find("host DRAM"), std::string::npos) << f.infeasible_reason;
  o.share_engram_across_replicas = true;  // one copy for both replicas
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), n, o).per_node.host_dram_engram.value(), tables.value());
  EXPECT_TRUE(compute_footprint(v41(), n, o).feasible);
  // Other tiers pin nothing.
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), n, opts(4, EngramTier::ssd)).per_node.host_dram_engram.value(), 0.0);
}

TEST(FootprintLimits, SsdCapacityForTableFiles) {
  NodeSpec n = make_node(1000);
  const FootprintOptions o = opts(4, EngramTier::ssd);
  const Bytes tables = compute_footprint(v41(), n, o).engram_tables_total;
  EXPECT_DOUBLE_EQ(compute_footprint(v41(), n, o).per_node.ssd_engram.value(), tables.value());  // one copy per node
  n.nvme.count = 1;
  n.nvme.capacity_per_drive = tables;
  EXPECT_TRUE(compute_footprint(v41(), n, o).feasible);
  n.nvme.capacity_per_drive = tables * (1 - 1e-6);
  const Footprint f = compute_footprint(v41(), n, o);
  EXPECT_FALSE(f.feasible);
  EXPECT_NE(f.infeasible_reason.find("SSD"), std::string::npos) << f.infeasible_reason;
  n.nvme.count = 0;
  EXPECT_FALSE(compute_footprint(v41(), n, o).feasible);
  EXPECT_TRUE(compute_footprint(v41(), n, opts(4, EngramTier::dram)).feasible);  // drives unused
}

TEST(FootprintLimits, ReplicaMustFitTheScaleUpDomain) {
  NodeSpec n = make_node(1000, 8);
  EXPECT_TRUE(compute_footprint(v41(), n, opts(8)).feasible);
  n.scale_up_domain_gpus = 4;
  const Footprint f = compute_footprint(v41(), n, opts(8));
  EXPECT_FALSE(f.feasible);
  EXPECT_NE(f.infeasible_reason.find("scale-up domain"), std::string::npos);
}

// --- DeepSeek-V4.1-Flash acceptance (catalog presets) --------------------------------------------

TEST(FootprintV41, ResidentWeightsMatchTheFittedInferenceXModel) {
  const NodeSpec n = load_node("hgx-b300");
  for (int tp : {2, 4, 8}) {
    const double fitted = 256.0 / tp + 17.2;  // GiB per rank, InferenceX #3337 (facts §2.4)
    const double ours = compute_footprint(v41(), n, opts(tp, EngramTier::dram)).per_gpu.weights.gib();
    EXPECT_NEAR(ours / fitted, 1.0, 0.10) << "TP" << tp << ": " << ours << " GiB vs fitted " << fitted;
  }
}

TEST(FootprintV41, EngramTables) {
  const Footprint f = compute_footprint(v41(), load_node("hgx-b300"), opts(4, EngramTier::hbm));
  EXPECT_NEAR(f.engram_tables_total.gib(), 188.8, 0.1);
  EXPECT_DOUBLE_EQ(f.engram_bytes_per_token_position.value(), 12672.0);
  EXPECT_NEAR(f.per_gpu.engram.gib(), 47.2, 0.05);  // "47.2 GiB per rank at TP=4" (facts §2.2)
}

TEST(FootprintV41, B300) {
  const NodeSpec n = load_node("hgx-b300");
  const Footprint tp2_hbm = compute_footprint(v41(), n, opts(2, EngramTier::hbm));
  EXPECT_FALSE(tp2_hbm.feasible);
  EXPECT_NE(tp2_hbm.infeasible_reason.find("HBM over budget"), std::string::npos);
  EXPECT_NE(tp2_hbm.infeasible_reason.find("Engram tables alone are 94.4 GiB"), std::string::npos)
      << tp2_hbm.infeasible_reason;
  const Footprint tp2_dram = compute_footprint(v41(), n, opts(2, EngramTier::dram));
  EXPECT_TRUE(tp2_dram.feasible) << tp2_dram.infeasible_reason;
  const Footprint tp4_hbm = compute_footprint(v41(), n, opts(4, EngramTier::hbm));
  EXPECT_TRUE(tp4_hbm.feasible) << tp4_hbm.infeasible_reason;
  // Offload frees the tables' share of HBM for KV.
  EXPECT_GT(tp2_dram.per_gpu.kv_pool.value(), tp2_hbm.per_gpu.kv_pool.value() + Bytes::gib(94).value());
}

TEST(FootprintV41, Mi300xTp2DoesNotFitMi325xDoes) {
  const Footprint mi300 = compute_footprint(v41(), load_node("mi300x-8"), opts(2, EngramTier::dram));
  EXPECT_FALSE(mi300.feasible);
  EXPECT_NE(mi300.infeasible_reason.find("HBM over budget"), std::string::npos) << mi300.infeasible_reason;
  const Footprint mi325 = compute_footprint(v41(), load_node("mi325x-8"), opts(2, EngramTier::dram));
  EXPECT_TRUE(mi325.feasible) << mi325.infeasible_reason;
  // The measured MI300X arm (IX #3336, 16,384 batched tokens): short by 13.5 GiB. Ours within 10 GiB.
  FootprintOptions o = opts(2, EngramTier::dram);
  o.max_num_batched_tokens = 16384;
  const Footprint measured = compute_footprint(v41(), load_node("mi300x-8"), o);
  EXPECT_FALSE(measured.feasible);
  EXPECT_NEAR(measured.per_gpu.kv_pool.gib(), -13.5, 10.0);
  EXPECT_TRUE(compute_footprint(v41(), load_node("mi325x-8"), o).feasible);
}

}  // namespace
}  // namespace engramsim
