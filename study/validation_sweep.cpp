#include "study/validation_sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "core/parallel_for.hpp"
#include "planner/pareto.hpp"
#include "planner/report_data.hpp"
#include "study/planner_scenario.hpp"
#include "study/scenario_evaluator.hpp"

namespace engramsim::study {
namespace {

struct SweepResults {
  planner::ReportData data;
  std::map<std::string, std::string> engine_by_config;
  std::size_t points = 0;
};

std::vector<std::string> set_arguments(const validation::SweepReproduction& r) {
  std::vector<std::string> out;
  for (const auto& s : r.set) out.push_back(s.key + "=" + s.value);
  return out;
}

std::shared_ptr<const SweepResults> run_case_sweep(const validation::SweepReproduction& r, int jobs) {
  const PlannerScenario sc = load_planner_scenario(r.scenario, set_arguments(r));
  ScenarioEvaluator evaluator(sc.file, sc.sweep.base);
  const SweepInputs inputs = evaluator.validate(sc.sweep.points);
  const auto& points = sc.sweep.points;
  std::vector<planner::ResultLine> lines(points.size());
  parallel_for(points.size(), jobs, [&](std::size_t i) {
    planner::ResultLine& l = lines[i];
    l.index = points[i].index;
    l.id = points[i].id;
    l.assignments = points[i].assignments_json();
    try {
      const planner::Outcome o = evaluator.evaluate(points[i]);
      l.status = o.status;
      l.result = o.result;
      l.reason = o.reason;
    } catch (const std::exception& e) {
      l.status = planner::PointStatus::error;
      l.error = e.what();
    }
  });
  auto out = std::make_shared<SweepResults>();
  out->points = points.size();
  out->data = make_report_data(make_report_context(sc, inputs), std::move(lines), sc.sweep.spec.keys(), points.size());
  for (const planner::ReportPoint& p : out->data.points) {
    if (p.status != planner::PointStatus::ok) continue;
    std::string engine = "vllm";
    const YAML::Node base = sc.sweep.base;
    if (base["deployment"] && base["deployment"]["engine"]) engine = base["deployment"]["engine"].as<std::string>();
    if (p.assignments.contains("deployment.engine")) engine = p.assignments["deployment.engine"].get<std::string>();
    out->engine_by_config.emplace(p.config, engine);
  }
  return out;
}

std::string labels_of(const SweepResults& s) {
  std::string out;
  for (const auto& [config, engine] : s.engine_by_config) out += (out.empty() ? "'" : ", '") + config + "'";
  return out.empty() ? "none with a result" : out;
}

void require_config(const validation::ValidationCase& c, const SweepResults& s, const std::string& config,
                    const char* key) {
  if (s.engine_by_config.count(config) == 0)
    throw ConfigError(c.where, c.id + ".reproduce.sweep." + key,
                      "the sweep has no configuration '" + config + "' (it has " + labels_of(s) + ")");
}

std::vector<planner::CurvePoint> frontier_of(const std::vector<planner::CurvePoint>& points,
                                             const std::string& config) {
  std::vector<planner::CurvePoint> mine;
  for (const auto& p : points)
    if (p.config == config) mine.push_back(p);
  return pareto_frontier(mine);
}

double value_at(const validation::ValidationCase& c, const std::vector<planner::CurvePoint>& points,
                const std::string& config) {
  const double x = c.sweep->at_interactivity;
  const auto v = frontier_value_at(frontier_of(points, config), x);
  if (!v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", x);
    throw std::runtime_error("'" + config + "' has no frontier value at " + buf + " tok/s/user (out of its range)");
  }
  return *v;
}

double read_metric(const validation::ValidationCase& c, const SweepResults& s, std::string& detail) {
  const validation::SweepReproduction& r = *c.sweep;
  const std::vector<planner::CurvePoint> tput = throughput_points(s.data);
  const std::vector<planner::CurvePoint> tpd = tokens_per_dollar_points(s.data);
  const std::string& m = c.metric;
  char buf[256];
  if (m == "total_tokens_per_dollar" || m == "total_tput_per_gpu") {
    const double v = value_at(c, m == "total_tput_per_gpu" ? tput : tpd, r.config);
    std::snprintf(buf, sizeof buf, "%s at %g tok/s/user: %.4g tok/s/GPU, %.4g M tok/$", r.config.c_str(),
                  r.at_interactivity, value_at(c, tput, r.config), value_at(c, tpd, r.config) / 1e6);
    detail = buf;
    return v;
  }
  if (m == "frontier_ratio_max") {
    const auto e = max_frontier_ratio(frontier_of(tput, r.config), frontier_of(tput, r.baseline));
    if (!e) throw std::runtime_error("the frontiers of '" + r.config + "' and '" + r.baseline + "' do not overlap");
    std::snprintf(buf, sizeof buf, "largest ratio %.3f at %.1f tok/s/user (%s over %s)", e->ratio, e->x,
                  r.config.c_str(), r.baseline.c_str());
    detail = buf;
    return e->ratio;
  }
  const auto& pts = m == "tokens_per_dollar_ratio" ? tpd : tput;
  const double a = value_at(c, pts, r.config), b = value_at(c, pts, r.baseline);
  std::snprintf(buf, sizeof buf, "at %g tok/s/user: %s %.4g, %s %.4g", r.at_interactivity, r.config.c_str(), a,
                r.baseline.c_str(), b);
  detail = buf;
  return a / b;
}

}  // namespace

validation::SweepEvalFn make_validation_sweep_evaluator() {
  struct Cache {
    std::mutex mu;
    std::map<std::string, std::shared_ptr<const SweepResults>> sweeps;
  };
  auto cache = std::make_shared<Cache>();
  return [cache](const validation::ValidationCase& c, int jobs) {
    const validation::SweepReproduction& r = *c.sweep;
    std::string key = r.scenario;
    for (const auto& s : r.set) key += "\n" + s.key + "=" + s.value;
    std::shared_ptr<const SweepResults> s;
    {
      std::lock_guard<std::mutex> lock(cache->mu);
      auto& slot = cache->sweeps[key];
      if (!slot) slot = run_case_sweep(r, jobs);
      s = slot;
    }
    require_config(c, *s, r.config, "config");
    if (!r.baseline.empty()) require_config(c, *s, r.baseline, "baseline");
    validation::SweepReading out;
    out.value = read_metric(c, *s, out.detail);
    out.engine = s->engine_by_config.at(r.config);
    out.detail = std::to_string(s->points) + "-point sweep of " + r.scenario + "; " + out.detail;
    return out;
  };
}

}  // namespace engramsim::study
