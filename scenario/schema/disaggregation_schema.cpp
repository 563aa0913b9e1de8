#include "scenario/schema/disaggregation_schema.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/number_text.hpp"
#include "models/kv_size.hpp"

namespace engramsim::scenario {
namespace {

constexpr std::int64_t kMaxInt32 = 2147483647;

// The sections of a disaggregated deployment; any other key of a colocated deployment sits in a pool.
void reject_colocated_keys(const ConfigNode& d, const DeploymentInputs& in) {
  for (const auto& kv : d.raw()) {
    const std::string key = kv.first.Scalar();
    if (is_deployment_key(key, *in.routers))
      d.fail_key(key, "a key of one pool: with kind: disaggregated it goes under prefill: or decode:");
  }
}

const ConfigNode* node_key_holder(const ConfigNode& a, const ConfigNode& b) {
  if (a.has("node")) return &a;
  if (b.has("node")) return &b;
  return nullptr;
}

// The card's KV bytes per token on each pool's GPU: the same model in two KV formats cannot hand its
// cache from one pool to the other.
void check_kv_format(const ConfigNode& d, const DisaggregationDraft& o) {
  const ModelCard& card = *o.in.card;
  const GpuSpec& pg = o.prefill.node.gpu;
  const GpuSpec& dg = o.decode.node.gpu;
  const Bytes p = kv_bytes_per_token(card, pg.sm_family);
  const Bytes q = kv_bytes_per_token(card, dg.sm_family);
  if (p.value() == q.value()) return;
  const ConfigNode prefill = d.child("prefill");
  const ConfigNode decode = d.child("decode");
  const ConfigNode* at = node_key_holder(prefill, decode);
  const std::string msg = card.name + " keeps " + with_commas(static_cast<std::int64_t>(p.value())) +
                          " KV bytes per token on " + pg.name + " (prefill) and " +
                          with_commas(static_cast<std::int64_t>(q.value())) + " on " + dg.name +
                          " (decode): the pools must hold the KV cache in one format";
  if (at != nullptr) at->fail_key("node", msg);
  d.fail_key("prefill", msg);
}

// The KV of a request leaves the prefill pool's nodes for the decode pool's over their NICs, or
// stays on one NVLink domain that spans both.
void check_transfer_path(const ConfigNode& d, const DisaggregationDraft& o) {
  if (pools_share_scale_up_domain(o.prefill.deployment, o.prefill.node, o.decode.deployment, o.decode.node)) return;
  for (const char* pool : {"prefill", "decode"}) {
    const ScenarioPool& p = std::string(pool) == "prefill" ? o.prefill : o.decode;
    if (p.node.scale_out_bandwidth.value() > 0.0) continue;
    const ConfigNode map = d.child(pool);
    const std::string msg =
        "node '" + p.node.name +
        "' states no scale_out_bandwidth, so the KV cache cannot leave it for the other pool (the pools need " +
        std::to_string(pool_nodes(o.prefill.deployment, o.prefill.node)) + " + " +
        std::to_string(pool_nodes(o.decode.deployment, o.decode.node)) + " nodes, more than one scale-up domain of " +
        std::to_string(p.node.scale_up_domain_gpus) + " GPUs); give the preset its NICs' scale_out_bandwidth";
    if (map.has("node")) map.fail_key("node", msg);
    d.fail_key(pool, msg);
  }
}

// The sending engine decides when the KV leaves and the receiving one when it reserves blocks: pools
// whose engines run different protocols (models/kv_send.hpp) cannot be joined.
void check_kv_send(const ConfigNode& d, const DisaggregationDraft& o) {
  const HostOverhead& p = o.prefill.deployment.host;
  const HostOverhead& q = o.decode.deployment.host;
  if (p.kv_send == q.kv_send) return;
  const std::string msg = "engine '" + p.engine + "' (prefill) sends the KV " + to_string(p.kv_send) + " and '" +
                          q.engine + "' (decode) takes it " + to_string(q.kv_send) +
                          ": the pools must run engines of one KV transfer protocol (docs/disaggregation.md "
                          "\"Transfer modes\")";
  for (const char* pool : {"decode", "prefill"}) {
    const ConfigNode map = d.child(pool);
    if (map.has("engine")) map.fail_key("engine", msg);
  }
  d.fail_key("decode", msg);
}

ScenarioPool read_pool(const ConfigNode& d, const std::string& key, const DeploymentInputs& in) {
  return parse_pool(d.child(key), in);
}

}  // namespace

int pool_nodes(const ScenarioDeployment& d, const NodeSpec& node) {
  const int g = std::max(1, node.gpu_count);
  if (d.nodes > 0) return d.nodes;
  if (d.tp > g) return d.replicas * ((d.tp + g - 1) / g);
  const int per_node = g / d.tp;
  return (d.replicas + per_node - 1) / per_node;
}

namespace {

// Nodes two pools of one node kind take packed together, replica after replica, as the simulator
// places them (sim/serving/replica/disaggregated_deployment.hpp place_pools).
std::int64_t packed_nodes(const ScenarioDeployment& prefill, const ScenarioDeployment& decode, int g) {
  std::int64_t cursor = 0;
  for (const ScenarioDeployment* d : {&prefill, &decode}) {
    const int tp = std::max(1, d->tp);
    const std::int64_t replicas =
        d->nodes > 0 ? std::max<std::int64_t>(1, std::int64_t{d->nodes} * g / tp) : d->replicas;
    for (std::int64_t r = 0; r < replicas; ++r) {
      const std::int64_t used = cursor % g;
      if (used != 0 && used + tp > g) cursor += g - used;
      cursor += tp;
    }
  }
  return (cursor + g - 1) / g;
}

}  // namespace

bool pools_share_scale_up_domain(const ScenarioDeployment& prefill, const NodeSpec& prefill_node,
                                 const ScenarioDeployment& decode, const NodeSpec& decode_node) {
  const NodeSpec& n = prefill_node;
  if (n.name != decode_node.name) return false;
  const int g = std::max(1, n.gpu_count);
  return packed_nodes(prefill, decode, g) * g <= std::max(n.scale_up_domain_gpus, g);
}

FieldTable<ScenarioKvTransfer> kv_transfer_schema() {
  FieldTable<ScenarioKvTransfer> t("deployment.kv_transfer");
  t.integer("local_prefill_threshold", &ScenarioKvTransfer::local_prefill_threshold, 0, kMaxInt32,
            "prompt tokens: a request whose decode replica would compute at most this many of its prompt (the "
            "rest hit its prefix cache) is prefilled there and never visits the prefill pool (conditional "
            "disaggregation, as llm-d and Dynamo route); 0: every request goes through the prefill pool");
  t.time("setup_latency", &ScenarioKvTransfer::setup_latency, Time::zero(), Time::ms(10000),
         "fixed cost of one transfer beside its flows: the connector's read request and the notice that the "
         "blocks landed. [E] vLLM's NixlConnector posts a request's read in about 7 ms (NIXL telemetry, "
         "vllm-project/vllm#50913), part of it growing with the blocks posted");
  t.choice("backend", &ScenarioKvTransfer::backend,
           std::vector<std::pair<std::string, std::string>>{{"native", "native"}, {"simgrid", "simgrid"}},
           "the flow solver of the transfers: native, or SimGrid as a fidelity check (one helper process per run)");
  return t;
}

FieldTable<DisaggregationDraft> disaggregated_deployment_schema(const sim::RouterRegistry& routers) {
  FieldTable<DisaggregationDraft> t("deployment");
  t.rule([](const ConfigNode& d, DisaggregationDraft& o) { reject_colocated_keys(d, o.in); });
  t.custom({"kind", "`disaggregated`", "required", "a prefill pool and a decode pool (docs/disaggregation.md)"},
           [](const ConfigNode& d, DisaggregationDraft&) { deployment_kind(d); })
      .required();
  const FieldDoc node = pool_schema(routers).at("node").doc;
  t.custom(
       {"prefill", "map", "required",
        "the prefill pool: the keys of a colocated `deployment` (docs/scenarios.md) and `node`; its replicas compute "
        "prompts and send each request's KV to the decode pool"},
       [](const ConfigNode& d, DisaggregationDraft& o) { o.prefill = read_pool(d, "prefill", o.in); })
      .required()
      .keys_below({node}, ".");
  t.custom({"decode", "map", "required",
            "the decode pool, with the same keys: its replicas take each request's KV and generate its output; "
            "`run` reports it where a colocated run reports its one deployment"},
           [](const ConfigNode& d, DisaggregationDraft& o) { o.decode = read_pool(d, "decode", o.in); })
      .required()
      .keys_below({node}, ".");
  t.section("kv_transfer", &DisaggregationDraft::kv_transfer, kv_transfer_schema(),
            "the KV cache's move from a prefill replica to a decode replica");
  t.rule([](const ConfigNode& d, DisaggregationDraft& o) {
    check_kv_format(d, o);
    check_transfer_path(d, o);
    check_kv_send(d, o);
  });
  return t;
}

DisaggregationDraft parse_disaggregated_deployment(const ConfigNode& d, const DeploymentInputs& in) {
  DisaggregationDraft draft{{}, {}, {}, in};
  disaggregated_deployment_schema(*in.routers).read(d, draft);
  d.finish();
  return draft;
}

}  // namespace engramsim::scenario
