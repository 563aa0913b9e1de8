// Pruning a frontier plan's candidates by an upper bound on their throughput (docs/planning.md
// "Pruning by a bound"), as pure functions: the planner does not know where a bound comes from
// (for a disaggregated deployment, its rate-matching bound, study/plan_bound.hpp).
//
// A candidate with a bound is sized as a fleet at that bound (size_fleet, whole nodes): no fleet of
// that candidate can cost less, because the fleet's cost never rises with the rate per unit. The
// simulated candidates are sized at their floor: the best throughput per GPU any of their points
// within the KV wall reaches at or above the target interactivity. The reading the plan ranks them
// by (compare_at, Steffen on the frontier) is never below that floor, and a point added later
// (refinement) only raises it, so the floor's fleet costs at least what the plan will say. A
// candidate whose bound fleet costs more than the cheapest floor fleet times (1 + the validation
// error margin) can therefore neither win the plan nor tie with the winner (frontier_plan.hpp judges
// ties by the same error), and is not simulated. Candidates without a bound are always simulated.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/plan_search.hpp"
#include "planner/report_data.hpp"

namespace engramsim::planner {

// What the plan sizes at: input + output tokens per second, each unit at `utilization` of its rate.
struct FleetTarget {
  double tokens_per_s = 0.0;
  double utilization = 1.0;
};

struct BoundCandidate {
  std::string config;
  double tokens_per_s_per_gpu = 0.0;  // the upper bound at the target interactivity
  FleetCostInputs cost;               // one planning unit (unit_cost_inputs)
};

// The fleet of a candidate at its bound: a lower bound on what any fleet of it costs.
FleetPlan bound_fleet(const BoundCandidate& c, const FleetTarget& t);

struct SimulatedFloor {
  std::string config;
  double throughput_per_gpu = 0.0;  // its best point within its KV wall at or above the target
  FleetPlan plan;                   // sized there: at least what the plan will cost it
};

// The cheapest floor fleet among the configurations with ok points in `d` at interactivity `x`;
// nullopt when no configuration has a point within its KV wall at or above x.
std::optional<SimulatedFloor> cheapest_floor(const ReportData& d, double x, const FleetTarget& t);

// Why `c` is not simulated, or nullopt when it may beat `best` or tie with it: its bound fleet
// costs more than best's fleet x (1 + margin). The reason starts with kBoundPrunedReason
// (report_data.hpp).
std::optional<std::string> bound_prune_reason(const BoundCandidate& c, const FleetTarget& t, const SimulatedFloor& best,
                                              double margin, double x);

// The order to simulate bounded candidates in: cheapest bound fleet first (ties: as given).
std::vector<BoundCandidate> by_bound(std::vector<BoundCandidate> candidates, const FleetTarget& t);

// Each bounded candidate's bound beside its simulated reading at `x` (compare_at) or why it was not
// simulated: the table "bound_gap".
Table bound_gap_table(const ReportData& d, double x, const std::vector<BoundCandidate>& candidates,
                      const FleetTarget& t);

}  // namespace engramsim::planner
