// The sweep's refinement near the target interactivity (planner/refine.hpp), run through the
// simulator: rounds of midpoints into DIR/refine/round-N/ until the comparison at the target
// settles. Used by `sweep` and by `plan`'s frontier mode. Each round is decided from the grid and
// the rounds before it only, so that with o.resume an interrupted round is finished (its points
// found on disk kept) and the rounds after it run as in an uninterrupted run: same points, same
// stop, same bytes. A round stopped by o.stop throws RunStopped (core/stop_signal.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "planner/sweep_runner.hpp"
#include "study/planner_scenario.hpp"
#include "study/scenario_evaluator.hpp"

namespace engramsim::study {

// Returns the number of points added (0 without a target interactivity or with rounds 0).
std::size_t refine_near_target(const PlannerScenario& sc, const ScenarioEvaluator& evaluator,
                               planner::SweepRunOptions o, const std::string& out, int rounds);

// A refinement of some configurations only, its rounds numbered from `first_round` (a plan's
// stages refine one group after another, study/pruned_plan.hpp): each round is decided from the
// grid and the rounds before it of those configurations alone, and stops when their comparison
// settles. At most `rounds` rounds.
struct RefineScope {
  int first_round = 1;
  std::function<bool(const std::string& config)> includes;  // null: every configuration
};
struct RefineRun {
  std::size_t points = 0;  // added
  int last_round = 0;      // the last round that ran (first_round - 1 when none did)
};
RefineRun refine_scope(const PlannerScenario& sc, const ScenarioEvaluator& evaluator, planner::SweepRunOptions o,
                       const std::string& out, int rounds, const RefineScope& scope);

}  // namespace engramsim::study
