#include "planner/frontier_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "core/cost_metrics.hpp"
#include "core/number_text.hpp"

namespace engramsim::planner {
namespace {

std::string fmt(double v, const char* f) { return printf_number(v, f); }

// The configuration's ok point nearest the target: its GPU counts, price and tokens per request.
const ReportPoint* nearest(const ReportData& d, const std::string& config, double x) {
  const ReportPoint* best = nullptr;
  for (const auto& p : d.points)
    if (p.config == config && p.status == PointStatus::ok &&
        (best == nullptr || std::abs(p.metrics.interactivity - x) < std::abs(best->metrics.interactivity - x)))
      best = &p;
  return best;
}

// Cost inputs of one replica's nodes, from the point's figures.
FleetCostInputs cost_inputs(const ReportPoint& p) {
  return unit_cost_inputs(p.metrics.gpus, extra_number(p, "gpus_per_node", p.metrics.gpus), p.usd_per_gpu_hour,
                          extra_number(p, "paid_gpus_per_used_gpu", 1.0));
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

Table fleet_table(const std::vector<RankedPlan>& ranking, const std::vector<std::string>& past_wall) {
  Table t{"fleet_plan",
          "Fleet at the target interactivity (cheapest within its KV wall first)",
          {"configuration", "tok/s per replica", "replicas", "nodes", "GPUs", "utilization", "$/hour", "$/M tokens",
           "past KV wall"},
          {}};
  for (const auto& r : ranking) {
    const FleetPlan& p = r.plan;
    t.rows.push_back({r.name, fmt(p.max_rate_per_replica, "%.0f"), std::to_string(p.replicas), std::to_string(p.nodes),
                      std::to_string(p.gpus), fmt(p.utilization, "%.3f"), fmt(p.cost_per_hour.value(), "%.2f"),
                      format_usd_per_mtok(p.usd_per_million_tokens), contains(past_wall, r.name) ? "yes" : "no"});
  }
  return t;
}

std::string verdict_text(const FrontierPlan& f) {
  if (f.ranking.empty()) return "No configuration reaches " + fmt(f.interactivity, "%.4g") + " tok/s/user: no fleet.";
  const FleetPlan& w = f.ranking.front().plan;
  const bool past = contains(f.past_wall, f.ranking.front().name);
  std::string t = "At " + fmt(f.interactivity, "%.4g") + " tok/s/user, serving " + fmt(f.target_tokens_per_s, "%.0f") +
                  " tok/s takes " + f.ranking.front().name +
                  (past ? " only past its KV wall (no configuration reaches this interactivity within its wall)" : "") +
                  ": " + std::to_string(w.replicas) + " replicas on " + std::to_string(w.nodes) + " nodes (" +
                  std::to_string(w.gpus) + " GPUs), $" + fmt(w.cost_per_hour.value(), "%.0f") + "/hour, " +
                  format_usd_per_mtok(w.usd_per_million_tokens) + ".";
  if (f.ranking.size() > 1 && contains(f.past_wall, f.ranking[1].name) == past)
    t += " Next: " + f.ranking[1].name + " at " +
         fmt(f.ranking[1].plan.cost_per_hour.value() / w.cost_per_hour.value(), "%.3f") + "x the cost.";
  for (const auto& r : f.ranking)
    if (!past && contains(f.past_wall, r.name) && r.plan.cost_per_hour.value() < w.cost_per_hour.value())
      t += " " + r.name + " would cost less ($" + fmt(r.plan.cost_per_hour.value(), "%.0f") +
           "/hour) but only past its KV wall, where preemptions, evicted prefixes and recompute set its figures; it "
           "is not recommended there.";
  if (!f.tied.empty()) {
    std::string names;
    for (const auto& c : f.tied) names += (names.empty() ? "" : ", ") + c;
    t += " That margin is inside the validation error of the configurations compared: a tie with " + names +
         "; the model cannot rank them.";
  }
  for (const auto& o : f.out_of_range) t += " Not sized: " + o.config + " (" + o.why + ").";
  return t;
}

}  // namespace

FleetCostInputs unit_cost_inputs(double gpus_per_unit, double gpus_per_node, double usd_per_gpu_hour,
                                 double paid_per_used) {
  FleetCostInputs c;
  c.gpus_per_replica = std::max(1, static_cast<int>(gpus_per_unit));
  c.gpus_per_node = std::max(1, static_cast<int>(gpus_per_node));
  // The GPU-hour all-in at list: size_fleet's whole nodes count the idle GPUs, so the per-used
  // share is taken back out.
  c.gpu_hour = MoneyRate(usd_per_gpu_hour / paid_per_used);
  c.amortization_life = Time::from_seconds(3600.0);  // no extra storage: its cost is in the all-in price
  return c;
}

FrontierPlan plan_at_interactivity(const ReportData& d, double x, double target_tokens_per_s,
                                   double target_requests_per_s, double target_utilization) {
  if (!(target_tokens_per_s > 0.0) && !(target_requests_per_s > 0.0))
    throw std::invalid_argument("frontier plan: the target load must be > 0");
  if (!(target_utilization > 0.0 && target_utilization <= 1.0))
    throw std::invalid_argument("frontier plan: the target utilization must be in (0, 1]");
  FrontierPlan f;
  f.interactivity = x;
  f.out_of_range = out_of_range_at(d, x);
  for (const auto& c : compare_at(d, x)) {
    const ReportPoint* p = c.throughput_per_gpu ? nearest(d, c.config, x) : nullptr;
    if (p == nullptr || !(*c.throughput_per_gpu > 0.0) || !std::isfinite(p->usd_per_gpu_hour)) continue;
    const FleetCostInputs cost = cost_inputs(*p);
    const double per_request = extra_number(*p, "tokens_per_request", NAN);
    const double target = target_tokens_per_s > 0.0 ? target_tokens_per_s : target_requests_per_s * per_request;
    if (!(target > 0.0)) continue;
    f.target_tokens_per_s = target;
    f.ranking.push_back(
        {c.config, size_fleet(target, *c.throughput_per_gpu * cost.gpus_per_replica * target_utilization, 1.0, cost),
         c.past_wall});
    if (c.past_wall) f.past_wall.push_back(c.config);
  }
  f.ranking = rank_plans(std::move(f.ranking));
  if (!f.ranking.empty()) {
    const auto err_best = config_error(d, f.ranking.front().name);
    const bool past = contains(f.past_wall, f.ranking.front().name);
    for (std::size_t i = 1; i < f.ranking.size(); ++i) {
      if (contains(f.past_wall, f.ranking[i].name) != past) continue;
      const auto err = config_error(d, f.ranking[i].name);
      const double margin =
          f.ranking[i].plan.cost_per_hour.value() / f.ranking.front().plan.cost_per_hour.value() - 1.0;
      if ((err_best || err) && margin <= std::max(err_best.value_or(0.0), err.value_or(0.0)))
        f.tied.push_back(f.ranking[i].name);
    }
  }
  f.table = fleet_table(f.ranking, f.past_wall);
  f.verdict = verdict_text(f);
  return f;
}

namespace {

// One configuration's fleet inside the budget: whole nodes, their replicas at the utilisation.
std::optional<PowerPlanRow> power_row(const ReportPoint& p, const ConfigComparison& c, double budget_kw, double u) {
  const double kw_per_gpu = p.metrics.power_kw_per_gpu;
  const int per_replica = std::max(1, static_cast<int>(p.metrics.gpus));
  const int per_node = std::max(1, static_cast<int>(extra_number(p, "gpus_per_node", per_replica)));
  if (!(kw_per_gpu > 0.0) || !c.throughput_per_gpu || per_replica > per_node) return std::nullopt;
  PowerPlanRow r;
  r.config = c.config;
  // kW per GPU used already carries the GPUs a replica leaves idle on its nodes (paid per used).
  const double node_kw = kw_per_gpu / extra_number(p, "paid_gpus_per_used_gpu", 1.0) * per_node;
  r.nodes = static_cast<int>(std::floor(budget_kw / node_kw + 1e-9));
  const int replicas = r.nodes * (per_node / per_replica);
  r.gpus = r.nodes * per_node;
  r.tokens_per_s = replicas * per_replica * *c.throughput_per_gpu * u;
  r.usd_per_hour = std::isfinite(p.usd_per_gpu_hour) ? p.usd_per_gpu_hour * replicas * per_replica : NAN;
  r.past_wall = c.past_wall;
  return r;
}

std::string power_verdict(const PowerPlan& f) {
  const std::string at = fmt(f.interactivity, "%.4g") + " tok/s/user";
  if (f.ranking.empty() || f.ranking.front().tokens_per_s <= 0.0)
    return "Inside " + fmt(f.budget_mw, "%.4g") + " MW no configuration serves " + at + ": no fleet.";
  const PowerPlanRow& w = f.ranking.front();
  std::string t = "Inside " + fmt(f.budget_mw, "%.4g") + " MW at " + at + ", " + w.config +
                  (w.past_wall ? " (only past its KV wall)" : "") + " serves the most: " + fmt(w.tokens_per_s, "%.0f") +
                  " tok/s on " + std::to_string(w.nodes) + " nodes (" + std::to_string(w.gpus) + " GPUs), $" +
                  fmt(w.usd_per_hour, "%.0f") + "/hour.";
  if (f.ranking.size() > 1 && f.ranking[1].tokens_per_s > 0.0)
    t += " Next: " + f.ranking[1].config + " at " + fmt(f.ranking[1].tokens_per_s / w.tokens_per_s, "%.3f") + "x.";
  for (const auto& o : f.out_of_range) t += " Not sized: " + o.config + " (" + o.why + ").";
  return t;
}

}  // namespace

PowerPlan plan_in_power(const ReportData& d, double x, double budget_mw, double target_utilization) {
  if (!(budget_mw > 0.0)) throw std::invalid_argument("power plan: the budget must be > 0 MW");
  if (!(target_utilization > 0.0 && target_utilization <= 1.0))
    throw std::invalid_argument("power plan: the target utilization must be in (0, 1]");
  PowerPlan f;
  f.interactivity = x;
  f.budget_mw = budget_mw;
  f.out_of_range = out_of_range_at(d, x);
  for (const auto& c : compare_at(d, x)) {
    const ReportPoint* p = c.throughput_per_gpu ? nearest(d, c.config, x) : nullptr;
    if (p == nullptr) continue;
    if (auto r = power_row(*p, c, budget_mw * 1000.0, target_utilization)) f.ranking.push_back(*r);
  }
  std::stable_sort(f.ranking.begin(), f.ranking.end(), [](const PowerPlanRow& a, const PowerPlanRow& b) {
    if (a.past_wall != b.past_wall) return !a.past_wall;
    return a.tokens_per_s > b.tokens_per_s;
  });
  f.table = {"power_plan",
             "Fleet inside the power budget at the target interactivity (most tokens within its KV wall first)",
             {"configuration", "nodes", "GPUs", "tok/s", "$/hour", "past KV wall"},
             {}};
  for (const auto& r : f.ranking)
    f.table.rows.push_back({r.config, std::to_string(r.nodes), std::to_string(r.gpus), fmt(r.tokens_per_s, "%.0f"),
                            fmt(r.usd_per_hour, "%.2f"), r.past_wall ? "yes" : "no"});
  f.verdict = power_verdict(f);
  return f;
}

}  // namespace engramsim::planner
