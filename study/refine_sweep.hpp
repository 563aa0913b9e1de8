// The sweep's refinement near the target interactivity (planner/refine.hpp), run through the
// simulator: rounds of midpoints into DIR/refine/round-N/ until the comparison at the target
// settles. Used by `sweep` and by `plan`'s frontier mode. Each round is decided from the grid and
// the rounds before it only, so that with o.resume an interrupted round is finished (its points
// found on disk kept) and the rounds after it run as in an uninterrupted run: same points, same
// stop, same bytes. A round stopped by o.stop throws RunStopped (core/stop_signal.hpp).
#pragma once

#include <cstddef>
#include <string>

#include "planner/sweep_runner.hpp"
#include "study/planner_scenario.hpp"
#include "study/scenario_evaluator.hpp"

namespace engramsim::study {

// Returns the number of points added (0 without a target interactivity or with rounds 0).
std::size_t refine_near_target(const PlannerScenario& sc, const ScenarioEvaluator& evaluator,
                               planner::SweepRunOptions o, const std::string& out, int rounds);

}  // namespace engramsim::study
