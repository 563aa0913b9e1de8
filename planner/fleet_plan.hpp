// `engramsim plan`, after every candidate's probes are in: the plan's settings, and the fleet that
// serves the target load. Each candidate (a line of results.jsonl with `extra.plan`, written by
// study/rate_planner) is sized in whole nodes (size_fleet), the candidates are ranked
// cheapest $/hour first (plan_fleets) and ranked again per price tier and load factor
// (sensitivity); the result carries the report's tables and the recommendation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "planner/plan_search.hpp"
#include "planner/report_data.hpp"
#include "planner/results_file.hpp"

namespace engramsim::planner {

struct PlanTarget {
  double requests_per_s = 0.0;  // exactly one of the three is > 0
  double tokens_per_s = 0.0;    // input + output tokens/s; converted with the workload's mean request
  double power_mw = 0.0;        // instead of a load: the most tokens inside this provisioned power (frontier plans)
};

struct PlanSettings {
  PlanTarget target;
  std::int64_t probe_requests = 1000;              // minimum requests per replica in one probe
  Time min_probe_span = Time::from_seconds(60.0);  // minimum span of arrivals in one probe
  RateSearchOptions search;  // lo, hi, hi_limit, rel_tolerance, max_probes (requests/s per replica)
  Time max_queue_p99 = Time::from_seconds(5.0);
  std::vector<std::string> tiers = {"hyperscaler", "neocloud", "rental"};
  std::vector<double> load_factors = {0.8, 1.0, 1.2};
  // Headroom: each replica is sized to run at this share of the highest rate it sustains within
  // the SLO (or of its throughput at the target interactivity), leaving the rest for bursts and
  // failed nodes. Sizing only: not part of evaluation_key().
  double target_utilization = 1.0;
  // What changes a candidate's result (probe size, search, overload guard), as canonical text: part
  // of the results fingerprint, so --resume refuses results searched with other settings.
  std::string evaluation_key() const;
};

struct FleetPlanResult {
  double target_rate = 0.0;         // requests/s
  double tokens_per_request = 0.0;  // input + output, as measured in the probes
  std::vector<RankedPlan> ranking;  // at the scenario's price tier
  SensitivityReport sensitivity;
  std::vector<Table> tables;       // fleet_plan, sensitivity, rate_search
  std::vector<std::string> notes;  // the recommendation, for the report
};

// Sizes and ranks the candidates of a finished plan sweep (lines of results.jsonl).
FleetPlanResult plan_fleet(const std::vector<ResultLine>& lines, const PlanSettings& settings,
                           const std::string& baseline_tier, const std::vector<std::string>& axes);

}  // namespace engramsim::planner
