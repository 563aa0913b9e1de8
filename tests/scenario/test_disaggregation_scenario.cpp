// A disaggregated deployment in a scenario (scenario/schema/disaggregation_schema.hpp) and built into
// a run (scenario/build/scenario_build.hpp): the keys and their defaults, each error at its
// file:line:col and field, --set and sweep axes on a pool's keys, and the RunConfig the simulator
// receives (pools, GPUs, KV bytes per token, layouts, NICs, the GPU-weighted price); a colocated
// deployment is built as before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "hardware/hardware_loader.hpp"
#include "planner/sweep_spec.hpp"
#include "scenario/build/scenario_build.hpp"
#include "scenario/build/scenario_session.hpp"
#include "scenario/build/serve_command.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario_test_util.hpp"
#include "sim/memory/node_fabric_params.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim::sim {

using namespace engramsim::scenario;
namespace {

using testing::ScratchDir;

const std::string kWorkload =
    "workload:\n"
    "  kind: closed_loop\n"
    "  concurrency: 4\n"
    "  num_requests: 8\n"
    "  input: {distribution: fixed, tokens: 256}\n"
    "  output: {distribution: fixed, tokens: 8}\n";

// Llama-3.1-8B on HGX H100; `prefill` and `decode` are the pools' maps in flow style, `extra` more
// lines under deployment:.
std::string disaggregated(const std::string& prefill = "{replicas: 2, tp: 2}",
                          const std::string& decode = "{replicas: 1, tp: 1}", const std::string& extra = "",
                          const std::string& head = "name: d\nmodel: llama-3.1-8b\nnode: hgx-h100\n") {
  return head +
         "deployment:\n"
         "  kind: disaggregated\n"
         "  prefill: " +
         prefill + "\n  decode: " + decode + "\n" + extra + kWorkload;
}

ScenarioParams parse(const std::string& text, const std::string& file = "d.yaml") {
  return parse_scenario(ConfigNode::load_string(text, file));
}

BuiltScenario build(const std::string& text, const std::string& file = "d.yaml") {
  return build_scenario(parse(text, file));
}

std::string error_of(const std::string& text, const std::string& file = "d.yaml") {
  return test::config_error_of([&] { parse(text, file); });
}

std::string infeasible_of(const std::string& text) {
  try {
    build(text);
  } catch (const InfeasibleScenario& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// ---- keys and defaults ----

TEST(DisaggregatedScenario, PoolsAreReadWithTheirDefaults) {
  const ScenarioParams p = parse(disaggregated());
  ASSERT_TRUE(p.disaggregation.has_value());
  // The decode pool is the deployment whatever reads one deployment sees.
  EXPECT_EQ(p.deployment.replicas, 1);
  EXPECT_EQ(p.deployment.tp, 1);
  EXPECT_EQ(p.deployment.router, "round_robin");
  EXPECT_EQ(p.node.name, "hgx-h100");
  const ScenarioPool& prefill = p.disaggregation->prefill;
  EXPECT_EQ(prefill.deployment.replicas, 2);
  EXPECT_EQ(prefill.deployment.tp, 2);
  EXPECT_EQ(prefill.deployment.scheduler.policy.name, "vllm");
  EXPECT_EQ(prefill.node.name, "hgx-h100");  // the scenario's node
  EXPECT_EQ(prefill.node_path, p.node_path);
  const ScenarioKvTransfer& k = p.disaggregation->kv_transfer;
  EXPECT_EQ(k.local_prefill_threshold, 0);
  EXPECT_EQ(k.setup_latency, kDefaultKvSetupLatency);
  EXPECT_EQ(k.backend, "native");
}

TEST(DisaggregatedScenario, ColocatedIsTheDefaultKind) {
  const std::string colocated =
      "name: c\nmodel: llama-3.1-8b\nnode: hgx-h100\ndeployment:\n  replicas: 1\n" + kWorkload;
  EXPECT_FALSE(parse(colocated).disaggregation.has_value());
  const std::string said =
      "name: c\nmodel: llama-3.1-8b\nnode: hgx-h100\ndeployment:\n  kind: colocated\n"
      "  replicas: 1\n" +
      kWorkload;
  EXPECT_FALSE(parse(said).disaggregation.has_value());
}

TEST(DisaggregatedScenario, PoolsTakeEveryDeploymentKeyAndTheirOwnNode) {
  const ScenarioParams p =
      parse(disaggregated("{node: hgx-h200, nodes: 1, tp: 4, scheduler: {max_num_seqs: 32}, router: least_kv}",
                          "{node: hgx-h200, replicas: 3, tp: 2, engine: trtllm, max_model_len: 8192}",
                          "  kv_transfer: {local_prefill_threshold: 512, setup_latency: 2ms, backend: simgrid}\n"));
  const ScenarioPool& prefill = p.disaggregation->prefill;
  EXPECT_EQ(prefill.node.name, "hgx-h200");
  EXPECT_NE(prefill.node_path.find("hgx-h200.yaml"), std::string::npos);
  EXPECT_EQ(prefill.deployment.nodes, 1);
  EXPECT_EQ(prefill.deployment.scheduler.policy.max_num_seqs, 32);
  EXPECT_EQ(prefill.deployment.router, "least_kv");
  // The decode pool's own node replaces the scenario's.
  EXPECT_EQ(p.node.name, "hgx-h200");
  EXPECT_NE(p.node_path.find("hgx-h200.yaml"), std::string::npos);
  EXPECT_EQ(p.deployment.replicas, 3);
  EXPECT_EQ(p.deployment.engine, "trtllm");
  EXPECT_EQ(p.deployment.max_model_len, 8192);
  const ScenarioKvTransfer& k = p.disaggregation->kv_transfer;
  EXPECT_EQ(k.local_prefill_threshold, 512);
  EXPECT_EQ(k.setup_latency, Time::ms(2));
  EXPECT_EQ(k.backend, "simgrid");
}

TEST(DisaggregatedScenario, ConcurrencyRulesResolveInBothPools) {
  const ScenarioParams p = parse(disaggregated("{replicas: 1, scheduler: {max_num_seqs: {per_concurrency: 2}}}",
                                               "{replicas: 1, scheduler: {max_num_seqs: {per_concurrency: 3}}}"));
  EXPECT_EQ(p.disaggregation->prefill.deployment.scheduler.policy.max_num_seqs, 8);  // 2 x 4 clients
  EXPECT_EQ(p.deployment.scheduler.policy.max_num_seqs, 12);
}

// ---- errors, each at its key ----

TEST(DisaggregatedScenario, ColocatedKeyBesideTheKindIsAnErrorAtTheKey) {
  const std::string e = error_of(disaggregated("{replicas: 1}", "{replicas: 1}", "  tp: 2\n"));
  EXPECT_HAS(e, "d.yaml:8:7: deployment.tp: a key of one pool");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1}", "{replicas: 1}", "  engram: {tier: none}\n")),
             "deployment.engram: a key of one pool");
  // Not a deployment key at all: the usual unknown-field error.
  EXPECT_HAS(error_of(disaggregated("{replicas: 1}", "{replicas: 1}", "  kv_transfr: {}\n")),
             "deployment.kv_transfr: unknown field; did you mean 'kv_transfer'?");
}

TEST(DisaggregatedScenario, BadKeysInsideAPoolAreLocated) {
  EXPECT_HAS(error_of(disaggregated("{replicas: 1, tpp: 2}")), "d.yaml:6:26: deployment.prefill.tpp: unknown field");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1, model: llama-3.1-70b}")), "deployment.prefill.model: unknown field");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1}", "{replicas: 1, scheduler: {policy: fifo}}")),
             "deployment.decode.scheduler.policy");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1}", "{replicas: 1, node: no-such-node}")),
             "deployment.decode.node: no node preset 'no-such-node'");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1}", "{replicas: 1}", "  kv_transfer: {setup_latency: 5}\n")),
             "deployment.kv_transfer.setup_latency");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1}", "{replicas: 1}", "  kv_transfer: {backend: ns3}\n")),
             "deployment.kv_transfer.backend");
}

TEST(DisaggregatedScenario, KindAndPoolsAreRequiredAndChecked) {
  const std::string bad_kind =
      "name: d\nmodel: llama-3.1-8b\nnode: hgx-h100\ndeployment:\n  kind: split\n  replicas: 1\n" + kWorkload;
  EXPECT_HAS(error_of(bad_kind), "d.yaml:5:");
  EXPECT_HAS(error_of(bad_kind), "deployment.kind");
  const std::string no_decode =
      "name: d\nmodel: llama-3.1-8b\nnode: hgx-h100\ndeployment:\n  kind: disaggregated\n  prefill: {replicas: 1}\n" +
      kWorkload;
  EXPECT_HAS(error_of(no_decode), "deployment.decode: missing required field");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1}", "[1, 2]")), "deployment.decode");
}

TEST(DisaggregatedScenario, PoolWithoutAWholeReplicaIsAnError) {
  const std::string zero = error_of(disaggregated("{replicas: 0}"));
  EXPECT_HAS(zero, "d.yaml:6:");
  EXPECT_HAS(zero, "deployment.prefill.replicas");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1}", "{tp: 2}")),
             "deployment.decode: give exactly one of nodes (whole nodes) or replicas");
  // One 8-GPU node holds no TP16 replica.
  EXPECT_HAS(error_of(disaggregated("{nodes: 1, tp: 16}")),
             "deployment.prefill.nodes: 1 nodes do not hold a whole number of TP16 replicas");
}

TEST(DisaggregatedScenario, PoolsMustKeepOneKvFormat) {
  // V4.1's KV paging has other records on sm100 (B200) than on H200.
  const std::string head = "name: d\nmodel: deepseek-v4.1-flash\nnode: hgx-b200\n";
  const std::string e =
      error_of(disaggregated("{node: hgx-h200, replicas: 1, tp: 8}", "{replicas: 1, tp: 4}", "", head));
  EXPECT_HAS(e, "d.yaml:6:");
  EXPECT_HAS(e, "deployment.prefill.node:");
  EXPECT_HAS(e, "on b200 (decode)");
  EXPECT_HAS(e, "one format");
  // Llama keeps bf16 KV on either GPU.
  EXPECT_TRUE(parse(disaggregated("{node: hgx-h200, replicas: 1}")).disaggregation.has_value());
}

TEST(DisaggregatedScenario, NodesWithoutNicsCannotSendTheKv) {
  const std::string head = "name: d\nmodel: llama-3.1-8b\nnode: mi300x-8\n";
  // Both pools on one 8-GPU node: the KV stays inside it.
  EXPECT_TRUE(parse(disaggregated("{replicas: 1, tp: 4}", "{replicas: 2, tp: 2}", "", head)).disaggregation);
  // Two TP8 pools need two nodes, which have no NICs between them.
  const std::string e = error_of(disaggregated("{replicas: 1, tp: 8}", "{replicas: 1, tp: 8}", "", head));
  EXPECT_HAS(e, "d.yaml:6:");
  EXPECT_HAS(e, "deployment.prefill: node 'mi300x-8' states no scale_out_bandwidth");
  // Named by the pool: the error is at its node key.
  const std::string named = error_of(disaggregated("{replicas: 1}", "{node: mi300x-8, replicas: 1}"));
  EXPECT_HAS(named, "d.yaml:7:");
  EXPECT_HAS(named, "deployment.decode.node: node 'mi300x-8' states no scale_out_bandwidth");
}

// An NVL72-like tray without NICs, beside the scenario: its pools may share the 72-GPU NVLink domain.
std::string nvl72_without_nics(const ScratchDir& dir) {
  std::string text = testing::read_file(test::source_root() + "/hardware/nodes/gb200-nvl72.yaml");
  const std::size_t at = text.find("scale_out_bandwidth:");
  text.erase(at, text.find('\n', at) + 1 - at);
  text.replace(text.find("name: gb200-nvl72"), 17, "name: tray");
  testing::write_file(dir.file("tray.yaml"), text);
  return "name: d\nmodel: llama-3.1-8b\nnode: tray.yaml\n";
}

TEST(DisaggregatedScenario, PoolsInOneNvlinkDomainNeedNoNics) {
  ScratchDir dir;
  const std::string head = nvl72_without_nics(dir);
  const std::string file = dir.file("d.yaml");
  // 4 + 4 trays of 4 GPUs: 32 of the domain's 72.
  const BuiltScenario b = build(disaggregated("{replicas: 4, tp: 4}", "{replicas: 8, tp: 2}", "", head), file);
  const KvTransferParams& t = b.run.disaggregation->transfer;
  // Both pools on the tray kind, in one 72-GPU domain: the cluster fabric routes them over NVLink.
  EXPECT_EQ(t.prefill.node_name, "tray");
  EXPECT_EQ(t.decode.node_name, "tray");
  EXPECT_EQ(t.prefill.domain_gpus, 72);
  EXPECT_EQ(t.prefill.node.nic_bandwidth.value(), 0.0);
  const ClusterPlacement c = place_pools(t.prefill, {4, 4, 4, 4}, t.decode, {2, 2, 2, 2, 2, 2, 2, 2});
  ASSERT_EQ(c.nodes.size(), 8u);
  for (const int d : c.domains) EXPECT_EQ(d, 0);
  EXPECT_NO_THROW(fabric::build_cluster_fabric(c.nodes, c.domains));
  // 10 + 10 trays are 80 GPUs, more than one domain.
  const std::string e = error_of(disaggregated("{replicas: 10, tp: 4}", "{replicas: 10, tp: 4}", "", head), file);
  EXPECT_HAS(e, "deployment.prefill: node 'tray' states no scale_out_bandwidth");
  EXPECT_HAS(e, "(the pools need 10 + 10 nodes, more than one scale-up domain of 72 GPUs)");
}

// Each pool has its own in-run tier, or none: the decode pool's is the run's, the prefill pool's
// travels with the prefill pool; each takes its own pool's replicas and layout.
TEST(DisaggregatedScenario, EachPoolCarriesItsOwnInRunEngramTier) {
  const std::string head = "name: d\nmodel: deepseek-v4.1-flash\nnode: hgx-b200\n";
  const BuiltScenario b = build(
      disaggregated("{replicas: 2, tp: 2}", "{replicas: 1, tp: 4, engram: {tier: dram, in_run: true}}", "", head));
  ASSERT_TRUE(b.run.engram_tier.has_value());
  EXPECT_EQ(b.run.engram_tier->tp, 4);
  EXPECT_EQ(b.run.engram_tier->tier, EngramTier::dram);
  EXPECT_FALSE(b.run.disaggregation->prefill_engram_tier.has_value());
  const BuiltScenario both = build(disaggregated("{replicas: 2, tp: 2, engram: {tier: dram, in_run: true}}",
                                                 "{replicas: 1, tp: 4, engram: {tier: dram, in_run: true}}", "", head));
  ASSERT_TRUE(both.run.disaggregation->prefill_engram_tier.has_value());
  EXPECT_EQ(both.run.disaggregation->prefill_engram_tier->tp, 2);
  EXPECT_EQ(both.run.disaggregation->prefill_engram_tier->replicas, 2);
  // A pool's tier must sit off the GPU; the one-node fabric sections have no say over the cluster.
  EXPECT_HAS(error_of(disaggregated("{replicas: 1, tp: 4}", "{replicas: 1, tp: 4, engram: {tier: hbm, in_run: true}}",
                                    "", head)),
             "deployment.decode.engram.in_run: the in-run tier moves rows over the host links");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1, tp: 4}", "{replicas: 1, tp: 4}", "", head) +
                      "fabric: {placement: spread}\n"),
             "fabric: with kind: disaggregated the pools share the cluster fabric");
  EXPECT_HAS(error_of(disaggregated("{replicas: 1, tp: 4}", "{replicas: 1, tp: 4, engram: {tier: dram, in_run: true}}",
                                    "", head) +
                      "kv_offload: {enabled: true}\n"),
             "kv_offload: KV offload traffic is not modelled with kind: disaggregated");
}

// ---- --set and sweep axes address the pools' keys ----

TEST(DisaggregatedScenario, SetAndSweepAxesReachAPoolsKeys) {
  const ScenarioDocument doc{"d.yaml", disaggregated()};
  SessionOptions options;
  options.set = {{"deployment.prefill.tp", "4"}, {"deployment.kv_transfer.setup_latency", "1ms"}};
  const ScenarioSession s = prepare_session(doc, options);
  ASSERT_TRUE(s.variants.at(0).built.has_value());
  const BuiltScenario& b = *s.variants[0].built;
  EXPECT_EQ(b.prefill_pool->gpus_per_replica, 4);
  EXPECT_EQ(b.run.disaggregation->transfer.setup, Time::ms(1));
  // --set adds a key the pool leaves out, and the strict loader judges it.
  SessionOptions added;
  added.set = {{"deployment.decode.ep", "1"}};
  EXPECT_EQ(prepare_session(doc, added).variants.at(0).built->params.deployment.ep, 1);
  SessionOptions typo;
  typo.set = {{"deployment.decode.tpp", "2"}};
  EXPECT_HAS(test::config_error_of([&] { prepare_session(doc, typo); }), "deployment.decode.tpp: unknown field");

  const std::string swept = disaggregated() + "sweep: {axes: [{key: deployment.decode.replicas, values: [1, 3]}]}\n";
  const ConfigNode root = ConfigNode::load_string(swept, "d.yaml");
  const planner::PreparedSweep sweep = planner::prepare_sweep(root);
  ASSERT_EQ(sweep.points.size(), 2u);
  const YAML::Node point = planner::scenario_for_point(sweep.base, sweep.points[1]);
  EXPECT_EQ(parse_scenario(ConfigNode(point, "d.yaml", "")).deployment.replicas, 3);
}

// ---- the built run ----

TEST(DisaggregatedScenario, RunConfigCarriesBothPoolsAndTheTransfer) {
  const BuiltScenario b = build(disaggregated());
  ASSERT_TRUE(b.prefill_pool);
  ASSERT_TRUE(b.run.disaggregation.has_value());
  const DisaggregationParams& g = *b.run.disaggregation;
  ASSERT_EQ(b.run.replicas.size(), 1u);
  EXPECT_EQ(b.run.replicas[0].name, "decode0");
  EXPECT_EQ(b.run.replicas[0].gpus, 1);
  ASSERT_EQ(g.prefill_replicas.size(), 2u);
  EXPECT_EQ(g.prefill_replicas[0].name, "prefill0");
  EXPECT_EQ(g.prefill_replicas[1].name, "prefill1");
  EXPECT_EQ(g.prefill_replicas[1].gpus, 2);
  EXPECT_EQ(g.prefill_replicas[0].step_model, b.prefill_pool->step_memo.get());
  EXPECT_EQ(b.run.replicas[0].step_model, b.step_memo.get());
  EXPECT_EQ(g.prefill_router, "round_robin");
  EXPECT_EQ(g.prefill_scheduler.max_num_seqs, 256);
  EXPECT_EQ(b.run_gpus(), 5);
  EXPECT_EQ(g.local_prefill_threshold, 0);

  // Llama-3.1-8B: 2 (K, V) x 32 layers x 8 KV heads x 128 dims x 2 bytes (bf16) per token; TP2
  // splits the heads (sharded over 2 ranks), TP1 holds them all on one rank.
  const KvTransferParams& t = g.transfer;
  EXPECT_DOUBLE_EQ(t.bytes_per_token.value(), 2.0 * 32 * 8 * 128 * 2);
  EXPECT_DOUBLE_EQ(t.bytes_per_token.value(), b.prefill_pool->footprint.per_gpu.kv_bytes_per_token.value() * 2);
  EXPECT_EQ(t.prefill.kv_ranks, 2);
  EXPECT_EQ(t.prefill.layout, KvLayout::sharded);
  EXPECT_EQ(t.decode.kv_ranks, 1);
  EXPECT_EQ(t.decode.layout, KvLayout::replicated);
  // HGX H100: one 400 Gb/s ConnectX-7 per GPU.
  EXPECT_DOUBLE_EQ(t.prefill.node.nic_bandwidth.value(), 50e9);
  EXPECT_EQ(t.prefill.node.nic_latency, kNicLatency);
  EXPECT_EQ(t.decode.node.gpu_count, 8);
  EXPECT_EQ(t.setup, kDefaultKvSetupLatency);
  EXPECT_EQ(t.backend, "native");
  EXPECT_EQ(t.send, KvSend::after_prefill);  // vLLM's connector pulls after the prefill
}

TEST(DisaggregatedScenario, TheEnginesDecideWhenTheKvIsSent) {
  // SGLang preallocates on the decode side and sends after every prompt chunk.
  const BuiltScenario b = build(disaggregated("{replicas: 1, tp: 2, engine: sglang}", "{replicas: 1, engine: sglang}"));
  EXPECT_EQ(b.run.disaggregation->transfer.send, KvSend::per_chunk);
  const std::string e = error_of(disaggregated("{replicas: 1, tp: 2, engine: sglang}", "{replicas: 1}"));
  EXPECT_HAS(e, "d.yaml:6:");
  EXPECT_HAS(e, "deployment.prefill.engine:");
  EXPECT_HAS(e, "one KV transfer protocol");
}

TEST(DisaggregatedScenario, ReplicatedKvUnderTensorAndDataParallelAttention) {
  const std::string head = "name: d\nmodel: deepseek-v4.1-flash\nnode: hgx-b200\n";
  const BuiltScenario b = build(disaggregated("{replicas: 1, tp: 4, attention: tensor, ep: 1}",
                                              "{replicas: 1, tp: 4, attention: data}", "", head));
  const KvTransferParams& t = b.run.disaggregation->transfer;
  // V4.1's one compressed KV is whole on every tensor-parallel rank, on one rank per request under
  // data-parallel attention: either way a rank holds the footprint's per-GPU bytes.
  EXPECT_EQ(t.prefill.layout, KvLayout::replicated);
  EXPECT_EQ(t.prefill.kv_ranks, 4);
  EXPECT_EQ(t.decode.layout, KvLayout::replicated);
  EXPECT_EQ(t.decode.kv_ranks, 1);
  EXPECT_DOUBLE_EQ(t.bytes_per_token.value(), b.prefill_pool->footprint.per_gpu.kv_bytes_per_token.value());
  EXPECT_DOUBLE_EQ(t.bytes_per_token.value(), b.footprint.per_gpu.kv_bytes_per_token.value());
  EXPECT_DOUBLE_EQ(t.prefill.node.nic_bandwidth.value(), 50e9);  // DGX B200: ConnectX-7 at 400 Gb/s
}

TEST(DisaggregatedScenario, RunPriceIsThePoolsPricesWeightedByTheirGpus) {
  // Prefill on 4 H200 GPUs, decode on 1 H100 GPU: the run's 5 GPUs cost what both pools cost.
  const BuiltScenario b = build(disaggregated("{node: hgx-h200, replicas: 2, tp: 2}", "{replicas: 1, tp: 1}"));
  const double prefill = b.prefill_pool->price.per_gpu_used().value();
  const double decode = b.price.per_gpu_used().value();
  EXPECT_NE(prefill, decode);
  ASSERT_TRUE(b.run.price_per_gpu_hour.has_value());
  EXPECT_NEAR(b.run.price_per_gpu_hour->value() * 5, prefill * 4 + decode * 1, 1e-12);
  const double prefill_kw = b.prefill_pool->params.node.gpu.power_kw * b.prefill_pool->price.paid_per_used;
  const double decode_kw = b.params.node.gpu.power_kw * b.price.paid_per_used;
  EXPECT_NEAR(b.run.power_kw_per_gpu * 5, prefill_kw * 4 + decode_kw, 1e-12);
}

TEST(DisaggregatedScenario, PoolThatDoesNotFitIsInfeasibleByName) {
  const std::string head = "name: d\nmodel: llama-3.1-70b\nnode: hgx-h100\n";
  const std::string e = infeasible_of(disaggregated("{replicas: 1, tp: 1}", "{replicas: 1, tp: 4}", "", head));
  EXPECT_EQ(e.rfind("prefill pool: ", 0), 0u) << e;
  const std::string d = infeasible_of(disaggregated("{replicas: 1, tp: 4}", "{replicas: 1, tp: 1}", "", head));
  EXPECT_EQ(d.rfind("decode pool: ", 0), 0u) << d;
}

TEST(DisaggregatedScenario, StepModelsAreReleasedAndRestoredTogether) {
  BuiltScenario b = build(disaggregated());
  release_step_model(b);
  EXPECT_EQ(b.run.disaggregation->prefill_replicas[0].step_model, nullptr);
  EXPECT_EQ(b.run.replicas[0].step_model, nullptr);
  restore_step_model(b);
  ASSERT_NE(b.prefill_pool->step_memo, nullptr);
  EXPECT_EQ(b.run.disaggregation->prefill_replicas[1].step_model, b.prefill_pool->step_memo.get());
  EXPECT_EQ(b.run.replicas[0].step_model, b.step_memo.get());
}

TEST(DisaggregatedScenario, DeploymentLinesAndScenarioJsonNameBothPools) {
  const BuiltScenario b = build(disaggregated());
  const std::vector<std::string> lines = b.deployment_lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("prefill: 2 x TP2 ", 0), 0u) << lines[0];
  EXPECT_HAS(lines[0], "on hgx-h100");
  EXPECT_EQ(lines[1].rfind("decode: 1 x TP1 ", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("KV transfer: 131,072 B per token from 2 ranks (sharded) to 1 rank (replicated)", 0), 0u)
      << lines[2];
  const std::string j = scenario_json(b);
  EXPECT_HAS(j, "\"deployment_kind\": \"disaggregated\"");
  EXPECT_HAS(j, "\"prefill\": {");
  EXPECT_HAS(j, "\"kv_transfer\": {");
  EXPECT_HAS(j, "\"run_gpus\": 5");
}

TEST(DisaggregatedScenario, ColocatedDeploymentIsBuiltAsBefore) {
  const BuiltScenario b =
      build("name: c\nmodel: llama-3.1-8b\nnode: hgx-h100\ndeployment:\n  replicas: 2\n  tp: 2\n" + kWorkload);
  EXPECT_FALSE(b.prefill_pool);
  EXPECT_FALSE(b.run.disaggregation.has_value());
  EXPECT_EQ(b.run.replicas.at(1).name, "replica1");
  EXPECT_EQ(b.deployment_lines(), std::vector<std::string>{b.deployment_line()});
  EXPECT_EQ(b.run_gpus(), 4);
  const std::string j = scenario_json(b);
  EXPECT_EQ(j.find("\"prefill\""), std::string::npos);
  EXPECT_EQ(j.find("deployment_kind"), std::string::npos);
  EXPECT_EQ(j.find("kv_transfer"), std::string::npos);
}

// One command per pool with the engine's transfer flags, each pool's own Engram tier, and how to
// route between them.
TEST(DisaggregatedScenario, ServeCommandsForBothPools) {
  const std::string head = "name: d\nmodel: deepseek-v4.1-flash\nnode: hgx-b200\n";
  const auto cmd =
      serve_command(build(disaggregated("{replicas: 2, tp: 4, attention: tensor, ep: 1, engram: {tier: ssd}}",
                                        "{replicas: 1, tp: 4, engram: {tier: dram}}", "", head)));
  ASSERT_TRUE(cmd.has_value());
  const std::size_t prefill = cmd->find("# prefill pool: 2 replicas on hgx-b200, one command per replica\n");
  const std::size_t decode = cmd->find("# decode pool: 1 replica on hgx-b200, one command per replica\n");
  ASSERT_NE(prefill, std::string::npos) << *cmd;
  ASSERT_NE(decode, std::string::npos) << *cmd;
  EXPECT_LT(prefill, decode);
  EXPECT_LT(cmd->find("disk_offload_dir"), decode) << *cmd;  // SSD on the prefill pool only
  EXPECT_EQ(cmd->find("disk_offload_dir", decode), std::string::npos) << *cmd;
  EXPECT_NE(cmd->find("cpu_offload\":true}'", decode), std::string::npos) << *cmd;
  const std::string nixl = "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'";
  EXPECT_LT(cmd->find(nixl), decode) << *cmd;
  EXPECT_NE(cmd->find(nixl, decode), std::string::npos) << *cmd;
  EXPECT_HAS(*cmd, "# route through a disaggregating proxy");

  const auto sg = serve_command(
      build(disaggregated("{replicas: 1, tp: 4, engine: sglang}", "{replicas: 1, tp: 4, engine: sglang}", "", head)));
  ASSERT_TRUE(sg.has_value());
  EXPECT_LT(sg->find("--disaggregation-mode prefill"), sg->find("--disaggregation-mode decode")) << *sg;
  EXPECT_HAS(*sg, "sglang_router.launch_router --pd-disaggregation");
}

TEST(DisaggregatedScenario, NodeFabricOfAPresetHasItsNics) {
  const NodeSpec h100 = load_node("hgx-h100");
  const fabric::NodeFabricParams p = node_fabric_params(h100);
  EXPECT_DOUBLE_EQ(p.nic_bandwidth.value(), h100.scale_out_bandwidth.value());
  EXPECT_EQ(p.nic_latency, kNicLatency);
  const fabric::NodeFabricParams none = node_fabric_params(load_node("mi300x-8"));
  EXPECT_EQ(none.nic_bandwidth.value(), 0.0);
  EXPECT_EQ(none.nic_latency, Time::zero());
}

}  // namespace
}  // namespace engramsim::sim
