#include "study/pruned_plan.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "core/number_text.hpp"
#include "study/refine_sweep.hpp"

namespace engramsim::study {
namespace {

// Each grid point's configuration label, by point index (as the report's data labels it).
std::vector<std::string> labels_of(const std::vector<planner::SweepPoint>& points, const std::string& curve_axis) {
  std::vector<std::string> axes;
  if (!points.empty())
    for (const auto& a : points.front().assignments) axes.push_back(a.key);
  std::vector<std::string> labels;
  labels.reserve(points.size());
  for (const auto& p : points) labels.push_back(planner::config_label(p.assignments_json(), axes, curve_axis));
  return labels;
}

// The grid's counts over the stages: the lines found at the start, and every stage's work.
void add_stage(planner::SweepRunSummary& all, const planner::SweepRunSummary& s, bool first) {
  if (first) {
    all = s;
    return;
  }
  all.owned_points = s.owned_points;
  all.evaluated += s.evaluated;
  all.infeasible += s.infeasible;
  all.errors += s.errors;
  all.complete = s.complete;
  all.stopped = all.stopped || s.stopped;
  all.wall_seconds += s.wall_seconds;
}

// What the stages before the next one found (grid and rounds through `round`), of the configurations
// they decided alone: never lines of the next stage an interrupted run left.
planner::ReportData decided_data(const std::string& out, int round, const std::set<std::string>& decided) {
  planner::ReportData d = planner::load_results_through_round(out, round);
  d.points.erase(std::remove_if(d.points.begin(), d.points.end(),
                                [&](const planner::ReportPoint& p) { return decided.count(p.config) == 0; }),
                 d.points.end());
  return d;
}

}  // namespace

std::string PlanBounds::fingerprint() const {
  return " prune=bound-v1 x=" + round_trip_number(interactivity) + " tokens=" + round_trip_number(target.tokens_per_s) +
         " utilization=" + round_trip_number(target.utilization) + " margin=" + round_trip_number(margin);
}

PlanBounds bound_plan(const PlannerScenario& sc, const ScenarioEvaluator& evaluator,
                      const planner::ReportContext& ctx) {
  if (!sc.report.target_interactivity || !sc.plan || !(sc.plan->target.tokens_per_s > 0.0))
    throw std::invalid_argument("bound_plan: needs a target interactivity and a target in tokens/s");
  PlanBounds g;
  g.interactivity = *sc.report.target_interactivity;
  g.target = {sc.plan->target.tokens_per_s, sc.plan->target_utilization};
  const std::vector<std::string> labels = labels_of(sc.sweep.points, ctx.curve_axis);
  std::vector<std::string> order;                         // configurations, first seen first
  std::map<std::string, planner::BoundCandidate> bounds;  // the highest bound of its points
  std::set<std::string> unbounded;
  for (const auto& p : sc.sweep.points) {
    const std::string& config = labels[p.index];
    if (std::find(order.begin(), order.end(), config) == order.end()) order.push_back(config);
    const PointBound b = evaluator.bound_before_run(p, g.interactivity);
    g.margin = std::max(g.margin, planner::validation_error(ctx.validation, b.gpu, b.engine).value_or(0.0));
    if (!b.bound) {
      unbounded.insert(config);
      continue;
    }
    auto [it, inserted] = bounds.emplace(config, planner::BoundCandidate{config, 0.0, b.unit_cost});
    it->second.tokens_per_s_per_gpu = std::max(it->second.tokens_per_s_per_gpu, b.bound->tokens_per_s_per_gpu);
  }
  for (const auto& config : order) {
    if (unbounded.count(config))
      g.unbounded.push_back(config);
    else
      g.candidates.push_back(bounds.at(config));
  }
  g.candidates = planner::by_bound(std::move(g.candidates), g.target);
  return g;
}

PrunedPlanRun run_pruned_plan(const PlannerScenario& sc, const ScenarioEvaluator& evaluator,
                              const planner::SweepRunOptions& o, const planner::ReportContext& ctx,
                              const PlanBounds& bounds, int rounds) {
  const std::string out = o.out_dir.string();
  const std::vector<planner::SweepPoint>& points = sc.sweep.points;
  const std::vector<std::string> labels = labels_of(points, ctx.curve_axis);
  const planner::EvaluateFn evaluate = [&](const planner::SweepPoint& p) { return evaluator.evaluate(p); };
  std::set<std::string> decided(bounds.unbounded.begin(), bounds.unbounded.end());
  PrunedPlanRun run;
  // Stage 1: the configurations without a bound, grid then rounds.
  planner::SweepRunOptions stage = o;
  stage.select = [&](const planner::SweepPoint& p) { return decided.count(labels[p.index]) > 0; };
  add_stage(run.grid, planner::run_sweep(points, evaluate, stage), true);
  if (run.grid.stopped) return run;
  planner::write_context(out, ctx);
  const std::set<std::string> first(decided);
  const RefineRun refined =
      refine_scope(sc, evaluator, o, out, rounds, {1, [&](const std::string& c) { return first.count(c) > 0; }});
  run.refined_points += refined.points;
  // Stage 2: each bounded configuration, pruned or simulated; then the simulated ones refined together.
  std::set<std::string> simulated;
  for (const planner::BoundCandidate& c : bounds.candidates) {
    const auto best =
        planner::cheapest_floor(decided_data(out, refined.last_round, decided), bounds.interactivity, bounds.target);
    const std::optional<std::string> reason =
        best ? planner::bound_prune_reason(c, bounds.target, *best, bounds.margin, bounds.interactivity) : std::nullopt;
    stage = o;
    stage.resume = true;  // the earlier stages' lines are this run's
    stage.select = [&](const planner::SweepPoint& p) { return labels[p.index] == c.config; };
    if (reason) stage.prune = [&](const planner::SweepPoint&) { return reason; };
    add_stage(run.grid, planner::run_sweep(points, evaluate, stage), false);
    if (run.grid.stopped) return run;
    decided.insert(c.config);
    if (reason)
      ++run.pruned_configs;
    else
      simulated.insert(c.config);
  }
  if (!simulated.empty())
    run.refined_points +=
        refine_scope(sc, evaluator, o, out, rounds,
                     {refined.last_round + 1, [&](const std::string& config) { return simulated.count(config) > 0; }})
            .points;
  return run;
}

}  // namespace engramsim::study
