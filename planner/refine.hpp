// Refining the curve axis near the target interactivity, so that a sparse concurrency grid cannot
// decide the answer. After a sweep, each configuration's ok points (ordered by the curve axis) are
// scanned for adjacent pairs whose interactivities bracket the target; each such pair, when its
// two curve-axis values are more than one integer step apart (or, for non-integer axes, more than
// 1 % apart), gets its midpoint as a new point, and a configuration that does not reach the target
// from both sides gets a point past the grid's end (extension_points). The sweep command runs the
// new points as a refinement round (DIR/refine/round-N/, read back by load_results), compares every
// configuration at the target again, and stops when no value moved by 1 % or more and the grid grew
// no further, or nothing is left to split or extend.
// Pure functions; the planner does not know what a point means.
#pragma once

#include <cstddef>
#include <vector>

#include "planner/report_data.hpp"
#include "planner/sweep_spec.hpp"

namespace engramsim::planner {

// Rounds of refinement at most, and the change below which the comparison has settled.
inline constexpr int kMaxRefineRounds = 6;
inline constexpr double kRefineSettled = 0.01;

// Growing the grid (so that no grid decides the answer): a configuration whose every ok point is
// faster than the target gets a point at twice its largest curve-axis value, unless its throughput
// per GPU rose by less than kSaturated between its two largest values (more load only queues), a
// point above that value did not run ok, or the value would pass kMaxExtendedLoad. One whose every
// point is slower gets a point at half its smallest value (integer axes: down to 1, where it shows
// it cannot reach the target). The curve axis is a load: interactivity falls as it grows.
inline constexpr double kSaturated = 0.02;
inline constexpr double kMaxExtendedLoad = 1 << 20;

// The points past the ends of the grid, as above.
std::vector<SweepPoint> extension_points(const ReportData& d, const std::vector<SweepPoint>& points, double target);

// The next round: the midpoints, then extension_points. `points` are the sweep's points (main grid
// and earlier rounds) by id, to copy the assignments from; new points are numbered from 0 (a round
// is its own results file).
std::vector<SweepPoint> refinement_points(const ReportData& d, const std::vector<SweepPoint>& points, double target);

// The largest relative change of any configuration's tokens per dollar between two comparisons at
// the same interactivity; a configuration that gains or loses a value counts as a change of 1.
double largest_change(const std::vector<ConfigComparison>& before, const std::vector<ConfigComparison>& after);

}  // namespace engramsim::planner
