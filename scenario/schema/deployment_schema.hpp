// The keys of a scenario's `deployment:` section and of its `engram:` and `spec_decode:` maps,
// declared once (core/field_table.hpp): the tables read the scenario, write scenario.json's
// spec_decode block, and are docs/scenarios.md's key tables (tests/scenario/test_schema_docs.cpp).
// The scheduler's keys are in scheduler_schema.hpp, the in-run tier's in scenario_in_run.hpp.
//
// These keys are read against the model card, the node and the engine preset: a default comes from
// the card (the Engram tier, the drafter), a tier must exist on the node, `ssd_path` changes the
// engine's read path. Each table therefore reads into a draft that carries what it is read against
// beside the section being filled.
#pragma once

#include <memory>
#include <string>

#include "core/config_node.hpp"
#include "core/field_table.hpp"
#include "scenario/schema/scenario_params.hpp"
#include "sim/serving/router/router_registry.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"

namespace engramsim::scenario {

// What a deployment is read against.
struct DeploymentInputs {
  const ModelCard* card = nullptr;
  const NodeSpec* node = nullptr;  // the scenario's `node`
  const sim::SchedulerRegistry* schedulers = nullptr;
  const sim::RouterRegistry* routers = nullptr;
  // A pool that names its own node gets the scenario's prices: its price file (`prices:`, resolved;
  // empty: none) at its tier.
  std::string prices_path;
  PriceTier price_tier = PriceTier::hyperscaler;
};

struct DeploymentDraft {
  ScenarioDeployment out;
  DeploymentInputs in;
  // A pool's own `node:` once read (in.node then points to it); null: the scenario's node.
  std::shared_ptr<const NodeSpec> own_node;
  std::string own_node_path;
};

struct EngramDraft {
  ScenarioEngram out;
  const ModelCard* card = nullptr;
  const NodeSpec* node = nullptr;
  HostOverhead* host = nullptr;  // the engine preset's terms; `ssd_path` sets its read path
};

struct SpecDecodeDraft {
  ScenarioSpecDecode out;
  const ModelCard* card = nullptr;
};

// A colocated `deployment:`: `kind` and the deployment keys.
FieldTable<DeploymentDraft> deployment_schema(const sim::RouterRegistry& routers);
// One pool of a disaggregated deployment (`deployment.prefill`, `deployment.decode`): its `node`,
// then the same deployment keys, read against that node.
FieldTable<DeploymentDraft> pool_schema(const sim::RouterRegistry& routers);
// Whether `key` is one of the deployment keys (those a pool takes, `node` aside).
bool is_deployment_key(const std::string& key, const sim::RouterRegistry& routers);
FieldTable<EngramDraft> engram_schema();
FieldTable<SpecDecodeDraft> spec_decode_schema();

// `deployment:` read and checked: the keys, then the rules that join them (exactly one of nodes
// and replicas, ep dividing tp, whole nodes, expert placement against the card and the EP size).
ScenarioDeployment parse_deployment(const ConfigNode& d, const DeploymentInputs& in);
// `deployment.kind`, colocated when absent (any other value is an error at the key).
DeploymentKind deployment_kind(const ConfigNode& d);
// One pool's map read and checked as parse_deployment reads a deployment, against the pool's node.
// A pool may not run the in-run Engram tier (not modelled with disaggregation).
ScenarioPool parse_pool(const ConfigNode& pool, const DeploymentInputs& in);

// A catalog entry named by `key` of `map`: a name under `folder` ("models/cards"), or a path (with
// '/' or ending in .yaml) beside the scenario file, then under the data root. A missing entry is an
// error at the key that lists the catalog.
std::string resolve_catalog_entry(const ConfigNode& map, const std::string& key, const std::string& folder,
                                  const std::string& what);

}  // namespace engramsim::scenario
