#include "planner/bound_prune.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/number_text.hpp"
#include "planner/frontier_plan.hpp"

namespace engramsim::planner {
namespace {

std::string fmt(double v, const char* spec) { return printf_number(v, spec); }

FleetPlan fleet_at(double tokens_per_s_per_gpu, const FleetCostInputs& cost, const FleetTarget& t) {
  return size_fleet(t.tokens_per_s, tokens_per_s_per_gpu * cost.gpus_per_replica * t.utilization, 1.0, cost);
}

// "$9,688/hour (700 nodes)"
std::string fleet_text(const FleetPlan& p) {
  return "$" + with_commas(std::llround(p.cost_per_hour.value())) + "/hour on " + with_commas(p.nodes) + " nodes";
}

}  // namespace

FleetPlan bound_fleet(const BoundCandidate& c, const FleetTarget& t) {
  return fleet_at(c.tokens_per_s_per_gpu, c.cost, t);
}

std::optional<SimulatedFloor> cheapest_floor(const ReportData& d, double x, const FleetTarget& t) {
  const KvWallAnalysis walls = kv_walls(d);
  std::map<std::string, const ReportPoint*> floor;  // each configuration's best point at or above x
  for (const auto& p : d.points) {
    if (p.status != PointStatus::ok || walls.past_wall(p.index) || !(p.metrics.interactivity >= x) ||
        !(p.metrics.throughput_per_gpu > 0.0) || !std::isfinite(p.usd_per_gpu_hour))
      continue;
    const ReportPoint*& best = floor[p.config];
    if (best == nullptr || p.metrics.throughput_per_gpu > best->metrics.throughput_per_gpu) best = &p;
  }
  std::optional<SimulatedFloor> out;
  for (const auto& [config, p] : floor) {
    const FleetCostInputs cost = unit_cost_inputs(p->metrics.gpus, extra_number(*p, "gpus_per_node", p->metrics.gpus),
                                                  p->usd_per_gpu_hour, extra_number(*p, "paid_gpus_per_used_gpu", 1.0));
    const FleetPlan plan = fleet_at(p->metrics.throughput_per_gpu, cost, t);
    if (!out || plan.cost_per_hour.value() < out->plan.cost_per_hour.value())
      out = SimulatedFloor{config, p->metrics.throughput_per_gpu, plan};
  }
  return out;
}

std::optional<std::string> bound_prune_reason(const BoundCandidate& c, const FleetTarget& t, const SimulatedFloor& best,
                                              double margin, double x) {
  const FleetPlan bound = bound_fleet(c, t);
  const double limit = best.plan.cost_per_hour.value() * (1.0 + margin);
  if (!(bound.cost_per_hour.value() > limit)) return std::nullopt;
  return std::string(kBoundPrunedReason) + ": its bound at " + fmt(x, "%.4g") + " tok/s/user, " +
         fmt(c.tokens_per_s_per_gpu, "%.0f") + " tok/s/GPU, needs at least " + fleet_text(bound) + ", more than " +
         best.config + " needs at its simulated " + fmt(best.throughput_per_gpu, "%.0f") + " tok/s/GPU (" +
         fleet_text(best.plan) + ") plus the " + fmt(100.0 * margin, "%.1f") + " % validation error";
}

std::vector<BoundCandidate> by_bound(std::vector<BoundCandidate> candidates, const FleetTarget& t) {
  std::stable_sort(candidates.begin(), candidates.end(), [&](const BoundCandidate& a, const BoundCandidate& b) {
    return bound_fleet(a, t).cost_per_hour.value() < bound_fleet(b, t).cost_per_hour.value();
  });
  return candidates;
}

Table bound_gap_table(const ReportData& d, double x, const std::vector<BoundCandidate>& candidates,
                      const FleetTarget& t) {
  Table table{"bound_gap",
              "Disaggregated candidates at the target interactivity: the rate-matching bound and the simulation",
              {"configuration", "bound tok/s/GPU", "simulated tok/s/GPU", "simulated / bound", "$/hour at the bound",
               "simulated"},
              {}};
  const std::vector<ConfigComparison> readings = compare_at(d, x);
  for (const auto& c : candidates) {
    std::string status = "yes";
    for (const auto& p : d.points)
      if (p.config == c.config && p.status == PointStatus::infeasible && p.reason.rfind(kBoundPrunedReason, 0) == 0)
        status = "no, " + p.reason;
    std::string simulated, share;
    for (const auto& r : readings)
      if (r.config == c.config && r.throughput_per_gpu) {
        simulated = fmt(*r.throughput_per_gpu, "%.0f") + (r.at_least ? " (at least)" : "");
        if (c.tokens_per_s_per_gpu > 0.0) share = fmt(*r.throughput_per_gpu / c.tokens_per_s_per_gpu, "%.3f");
      }
    table.rows.push_back({c.config, fmt(c.tokens_per_s_per_gpu, "%.0f"), simulated, share,
                          fmt(bound_fleet(c, t).cost_per_hour.value(), "%.2f"), status});
  }
  return table;
}

}  // namespace engramsim::planner
