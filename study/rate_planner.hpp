// `engramsim plan`: for each candidate deployment (a sweep point), the highest request rate one
// replica sustains within the SLO, found by simulation; then the fleet that serves a target load.
//
// Probing one candidate: the probe unit is one node's worth of replicas (`nodes: 1`, or the nodes
// one replica spans), so replicas that share a node's PCIe switches, host DRAM and drives contend
// as they would in the fleet; the offered rate is split over them by the scenario's router, and
// rate per replica = offered rate / replicas in the unit. Only the arrival rate of the scenario's
// workload changes between probes:
//   open_loop  workload.arrival.rate_per_s is the offered rate;
//   trace      workload.trace.rate_scale is multiplied so that the replayed trace (its window and
//              num_requests cap, if any) arrives at that mean rate; its shape, burstiness and
//              lengths are kept.
// Closed-loop workloads have no rate and are rejected (ConfigError); with a target interactivity
// `plan` sizes them from the frontier instead (planner/frontier_plan.hpp).
// Probe length: max(probe_requests x replicas, offered rate x min_probe_span) requests (an open
// loop's own num_requests is replaced; a trace's caps the replay, as it picks the part to replay). A fixed
// request count alone would hide overload at high rates: the arrivals would span a few seconds and
// the backlog would drain before any latency bound noticed it. When the workload cannot supply
// that many (a trace is finite) and its arrivals span less than min_probe_span, the probe counts as
// failing ("cannot show the rate is sustained"), which caps the answer conservatively.
//
// A probe meets the SLO when every request finishes, every `slo:` target of the scenario holds
// (ttft_p99, tpot_p99, ... and min_interactivity), the p99 queueing delay stays within
// plan.max_queue_p99, and it was not cut short by the workload running out (above). The queue bound is the
// overload guard: above capacity the queue grows for the whole probe (by span x overload fraction),
// even when the batch keeps TPOT low and no TTFT bound is set. planner::find_max_rate does the
// search (doubling, bisection, confirmation probes); every probe is kept for the report.
//
// After every candidate is in, plan_fleet() (planner/fleet_plan.hpp) sizes each one for the target (size_fleet, whole
// nodes), ranks them (cheapest $/hour first) and reruns the ranking per price tier and load factor
// (sensitivity), as tables and a recommendation for the report.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/plan_search.hpp"
#include "planner/report_data.hpp"
#include "planner/results_file.hpp"
#include "study/planner_scenario.hpp"
#include "study/scenario_evaluator.hpp"

namespace engramsim::study {

class RatePlanner {
 public:
  RatePlanner(const ScenarioEvaluator& evaluator, planner::PlanSettings settings);

  // Throws ConfigError when a point's workload cannot be driven at a rate (closed loop).
  void validate(const std::vector<planner::SweepPoint>& points) const;

  // Infeasible: does not fit (footprint) or never meets the SLO (the lowest probe's numbers in the
  // reason). Ok: PointMetrics at the highest passing rate, with extra.plan = {max_rate_per_replica,
  // replicas_per_probe, tokens_per_request, probes: [...], cost inputs per node and tier}.
  planner::Outcome evaluate(const planner::SweepPoint& point) const;

 private:
  const ScenarioEvaluator& evaluator_;
  planner::PlanSettings settings_;
};

}  // namespace engramsim::study
