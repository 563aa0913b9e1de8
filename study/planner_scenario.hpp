// A scenario file as `engramsim sweep` and `engramsim plan` read it: the base scenario, its sweep,
// and the planner's own settings, which live inside the `sweep:` block so that the file stays a
// plain scenario for `engramsim run` (parse_scenario passes `sweep:` through untouched):
//
//   sweep:
//     axes: [...]                          # planner/sweep_spec.hpp
//     report:                              # optional: what the report says
//       title: "..."
//       question: "..."                    # opens the report
//       target_interactivity: 125          # tok/s/user at which configurations are compared
//       curve_axis: workload.concurrency   # the axis that traces each configuration's curve
//     plan:                                # optional; required by `engramsim plan`
//       target: {requests_per_s: 40}       # or {tokens_per_s: 2.0e5} (input + output tokens)
//       probe_requests: 1000               # at least this many requests per replica per rate probe
//       min_probe_span: 60s                # ... and at least this long a stretch of arrivals
//       search: {lo_per_s: 0.25, hi_per_s: 1, max_per_s: 10000, rel_tolerance: 0.03, max_probes: 30}
//       max_queue_p99: 5s                  # a probe whose p99 queueing delay exceeds this is overloaded
//       tiers: [hyperscaler, neocloud, rental]   # price tiers of the sensitivity table
//       load_factors: [0.8, 1.0, 1.2]      # target multipliers of the sensitivity table
//
// Order of work: the file is read with source positions, the command line's --set overrides are
// applied to the whole document (so `--set sweep.axes.0.values=[hbm]` trims a sweep and
// `--set sweep.plan.target.requests_per_s=10` changes the target), `report` and `plan` are parsed
// strictly and taken out, then the sweep is expanded (prepare_sweep: every axis key must exist).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "core/field_table.hpp"
#include "core/units.hpp"
#include "planner/fleet_plan.hpp"
#include "planner/plan_search.hpp"
#include "planner/sweep_spec.hpp"

namespace engramsim::study {

struct ReportSettings {
  std::string title;
  std::string question;
  std::optional<double> target_interactivity;  // tok/s/user
  std::string curve_axis = "workload.concurrency";
};

struct PlannerScenario {
  std::string file;  // as given
  planner::PreparedSweep sweep;
  ReportSettings report;
  std::optional<planner::PlanSettings> plan;
};

// Reads `path`, applies `set_args` ("key.path=value", in order), parses and strips sweep.report and
// sweep.plan, expands the sweep. ConfigError (exit 2) on any bad input.
PlannerScenario load_planner_scenario(const std::string& path, const std::vector<std::string>& set_args);

// The keys of `sweep.report` and `sweep.plan`, declared once: they read the file and are
// docs/planning.md's tables (tests/planner_cli/test_study.cpp).
const FieldTable<ReportSettings>& report_schema();
const FieldTable<planner::PlanSettings>& plan_schema();

// Parses a `report:` / `plan:` map (marks keys read, rejects unknown ones).
ReportSettings parse_report_settings(const ConfigNode& node);
planner::PlanSettings parse_plan_settings(const ConfigNode& node);

}  // namespace engramsim::study
