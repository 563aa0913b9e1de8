// The `deployment.scheduler` section of a scenario, declared once (core/field_table.hpp): the keys
// a scenario file reads, what scenario.json writes, the key table of docs/scenarios.md and the
// scheduler flags of `engramsim footprint`.
#pragma once

#include "core/field_table.hpp"
#include "scenario/schema/scenario_params.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"

namespace engramsim::scenario {

// The section's keys. `policy` is one of the registry's names.
FieldTable<ScenarioScheduler> scheduler_schema(const sim::SchedulerRegistry& registry);

// Reads the section: every key of the schema, then the rules that join two keys; finishes the map.
ScenarioScheduler parse_scheduler_section(const ConfigNode& s, const sim::SchedulerRegistry& registry);

}  // namespace engramsim::scenario
