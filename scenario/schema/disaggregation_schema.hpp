// The keys of a disaggregated `deployment:` (kind disaggregated), declared once (core/field_table.hpp):
//
//   deployment:
//     kind: disaggregated
//     prefill: {node: hgx-b200, replicas: 1, tp: 4, engram: {tier: ssd}, ...}   # the deployment keys
//     decode: {replicas: 1, tp: 4, engram: {tier: dram}, ...}                   # and an optional node
//     kv_transfer: {local_prefill_threshold: 0, setup_latency: 5ms, backend: native}
//
// Each pool takes every key of a colocated deployment (deployment_schema.hpp), read against the
// pool's node, and `node` (the scenario's `node` when absent). The model and the workload are the
// scenario's, shared by both pools. The rules that join the pools:
//   - a colocated key beside `kind: disaggregated` is an error at the key (it belongs to a pool);
//   - both pools keep one KV format: the card's KV bytes per token on each pool's GPU must agree (a
//     GPU whose KV paging differs, sm100 against the others for V4.1, is an error at `node`);
//   - both pools' engines send and take the KV the same way (the engine preset's `kv_send`, an error
//     at a pool's `engine`);
//   - the KV crosses nodes, so each pool's node needs a `scale_out_bandwidth` (its NICs), unless
//     both pools use one preset whose scale-up domain spans nodes (NVL72 trays) and together fit in
//     one such domain, where the transfer stays on NVLink.
// The table is docs/scenarios.md's "`deployment` (kind `disaggregated`)" (tests/scenario/test_schema_docs.cpp).
#pragma once

#include "core/config_node.hpp"
#include "core/field_table.hpp"
#include "scenario/schema/deployment_schema.hpp"
#include "scenario/schema/scenario_params.hpp"
#include "sim/serving/router/router_registry.hpp"

namespace engramsim::scenario {

struct DisaggregationDraft {
  ScenarioPool prefill;
  ScenarioPool decode;
  ScenarioKvTransfer kv_transfer;
  DeploymentInputs in;
};

FieldTable<ScenarioKvTransfer> kv_transfer_schema();
FieldTable<DisaggregationDraft> disaggregated_deployment_schema(const sim::RouterRegistry& routers);

// `deployment:` of kind disaggregated, read and checked. A pool without its own `node` gets the
// scenario's (in.node) and an empty node_path.
DisaggregationDraft parse_disaggregated_deployment(const ConfigNode& d, const DeploymentInputs& in);

// Nodes a pool occupies: its replicas packed onto whole nodes in order, a replica larger than a
// node on whole nodes of its own.
int pool_nodes(const ScenarioDeployment& d, const NodeSpec& node);

// Whether both pools, packed together on one node preset, fit one scale-up domain (one node, or the
// nodes of an NVLink domain that spans several), so that their KV never leaves NVLink.
bool pools_share_scale_up_domain(const ScenarioDeployment& prefill, const NodeSpec& prefill_node,
                                 const ScenarioDeployment& decode, const NodeSpec& decode_node);

}  // namespace engramsim::scenario
