// Fleet sizing from the frontier, for workloads driven by their clients (closed loops, agentic
// replays) rather than at a request rate: each configuration's throughput per GPU at the target
// interactivity (compare_at, after the sweep's refinement) is what one replica sustains there, and
// the fleet is the whole nodes that serve the target load at that rate (size_fleet). The ranking
// (cheapest $/hour first) is the same as the sweep's at the same interactivity up to the rounding
// to whole replicas and nodes, so `sweep`, `plan` and `make run` give one verdict. Ties are judged
// as recommend() judges them: a cost margin inside the validation error of the two configurations.
// The KV wall as compare_at() reads it: a configuration that reaches the target only past its wall
// ranks after every one that reaches it within its wall, whatever its cost, and the verdict names it
// when it would cost less; when none reaches the target within its wall, the verdict says the fleet
// runs past it. Ties are judged among configurations on the same side of their walls. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/plan_search.hpp"
#include "planner/report_data.hpp"

namespace engramsim::planner {

struct FrontierPlan {
  double interactivity = 0.0;  // tok/s/user the configurations are sized at
  double target_tokens_per_s = 0.0;
  std::vector<RankedPlan> ranking;     // cheapest first; max_rate_per_replica in tokens/s
  std::vector<std::string> tied;       // configurations whose cost is within the validation error of the first
  std::vector<std::string> past_wall;  // ranked configurations sized past their KV wall (they rank last)
  std::vector<OutOfRange> out_of_range;
  Table table;          // fleet_plan
  std::string verdict;  // one paragraph, the answer first
};

// What one planning unit (a replica, or a disaggregated deployment's pools) costs, from the figures a
// point's result carries: its GPUs, its node's GPUs, the all-in $/GPU-hour per GPU used and the GPUs
// paid per GPU used (whole nodes are counted by size_fleet, so the idle share is taken back out).
FleetCostInputs unit_cost_inputs(double gpus_per_unit, double gpus_per_node, double usd_per_gpu_hour,
                                 double paid_per_used);

// `target_tokens_per_s` > 0, or `target_requests_per_s` > 0 converted with each configuration's
// measured tokens per request; each replica sized at `target_utilization` (0, 1] of its throughput
// at the interactivity. Throws std::invalid_argument when neither target is positive or the
// utilisation is outside (0, 1].
FrontierPlan plan_at_interactivity(const ReportData& d, double interactivity, double target_tokens_per_s,
                                   double target_requests_per_s, double target_utilization = 1.0);

// The most a fleet serves inside a provisioned power budget at `interactivity`: each configuration
// buys the whole nodes its all-in kW per GPU (the TCO model's provisioned power, point metrics
// power_kw_per_gpu) fits into `budget_mw`, each replica at `target_utilization` of its throughput
// there, ranked by the tokens per second the fleet serves (within the KV wall first, as above).
// Throws std::invalid_argument for a budget <= 0 or a utilisation outside (0, 1].
struct PowerPlanRow {
  std::string config;
  int nodes = 0;
  int gpus = 0;
  double tokens_per_s = 0.0;
  double usd_per_hour = 0.0;
  bool past_wall = false;
};
struct PowerPlan {
  double interactivity = 0.0;
  double budget_mw = 0.0;
  std::vector<PowerPlanRow> ranking;  // most tokens per second first
  std::vector<OutOfRange> out_of_range;
  Table table;          // power_plan
  std::string verdict;  // the answer first
};
PowerPlan plan_in_power(const ReportData& d, double interactivity, double budget_mw, double target_utilization = 1.0);

}  // namespace engramsim::planner
