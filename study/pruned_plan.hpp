// The points of a frontier plan (`engramsim plan` on a closed loop at a target interactivity, with a
// target in tokens/s), run with its disaggregated candidates pruned by their rate-matching bound
// (planner/bound_prune.hpp, docs/planning.md "Pruning by a bound").
//
// Stages on one results file (planner::SweepRunOptions::select), each decided from what the earlier
// stages wrote alone, so that a resumed run makes the same decisions and writes the same bytes:
//   1. every configuration without a bound (colocated ones, and disaggregated ones whose requests
//      are not drawn before the run): its grid points, then its refinement rounds (refine_scope),
//      so that the floors the candidates are held to come from points near the target;
//   2. the bounded configurations one at a time, cheapest bound fleet first: one whose bound fleet
//      costs more than the cheapest floor fleet of the configurations simulated so far x (1 + the
//      margin) has every grid point written as pruned (status infeasible, the reason saying why,
//      kBoundPrunedReason); any other has its grid points simulated;
//   3. the simulated bounded configurations' refinement rounds, together, numbered on from stage 1's.
// A configuration is bounded when every grid point of it is, at the highest bound of its points.
// The margin is the largest validation error of any configuration of the plan (the verdict's tie
// rule, planner/frontier_plan.hpp). With no bounded configuration this is the plan without pruning:
// one stage, all of its configurations refined together.
#pragma once

#include <string>
#include <vector>

#include "planner/bound_prune.hpp"
#include "planner/report_data.hpp"
#include "planner/sweep_runner.hpp"
#include "study/planner_scenario.hpp"
#include "study/scenario_evaluator.hpp"

namespace engramsim::study {

struct PlanBounds {
  std::vector<planner::BoundCandidate> candidates;  // bounded configurations, cheapest bound fleet first
  std::vector<std::string> unbounded;               // configurations simulated first
  planner::FleetTarget target;
  double interactivity = 0.0;
  double margin = 0.0;  // the validation error margin of the prune test
  // " prune=bound-v1 x=... tokens=... utilization=... margin=...": what the decisions depend on
  // beyond the scenario, for the results fingerprint.
  std::string fingerprint() const;
};

// Bounds every grid point at the scenario's target interactivity (ScenarioEvaluator::bound_before_run)
// and groups them by configuration; `ctx` gives the validation errors and the curve axis. Needs a
// target interactivity and a plan target in tokens/s (std::invalid_argument otherwise).
PlanBounds bound_plan(const PlannerScenario& sc, const ScenarioEvaluator& evaluator, const planner::ReportContext& ctx);

struct PrunedPlanRun {
  planner::SweepRunSummary grid;   // the grid over the stages: already_done as found, evaluated in all
  std::size_t refined_points = 0;  // added by the stages' refinement rounds
  std::size_t pruned_configs = 0;  // configurations written as pruned
};

// Runs the stages into o.out_dir (o.resume applies to the first stage; the later ones resume what the
// earlier wrote), writing `ctx` as the folder's context once the first stage has claimed the folder
// (the refinement reads the curve axis from it). At most `rounds` refinement rounds per stage.
// Stops, like run_sweep, when o.stop says so (a stop inside a refinement round throws RunStopped).
PrunedPlanRun run_pruned_plan(const PlannerScenario& sc, const ScenarioEvaluator& evaluator,
                              const planner::SweepRunOptions& o, const planner::ReportContext& ctx,
                              const PlanBounds& bounds, int rounds);

}  // namespace engramsim::study
