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
  const NodeSpec* node = nullptr;
  const sim::SchedulerRegistry* schedulers = nullptr;
  const sim::RouterRegistry* routers = nullptr;
};

struct DeploymentDraft {
  ScenarioDeployment out;
  DeploymentInputs in;
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

FieldTable<DeploymentDraft> deployment_schema(const sim::RouterRegistry& routers);
FieldTable<EngramDraft> engram_schema();
FieldTable<SpecDecodeDraft> spec_decode_schema();

// `deployment:` read and checked: the keys, then the rules that join them (exactly one of nodes
// and replicas, ep dividing tp, whole nodes, expert placement against the card and the EP size).
ScenarioDeployment parse_deployment(const ConfigNode& d, const DeploymentInputs& in);

// A catalog entry named by `key` of `map`: a name under `folder` ("models/cards"), or a path (with
// '/' or ending in .yaml) beside the scenario file, then under the data root. A missing entry is an
// error at the key that lists the catalog.
std::string resolve_catalog_entry(const ConfigNode& map, const std::string& key, const std::string& folder,
                                  const std::string& what);

}  // namespace engramsim::scenario
