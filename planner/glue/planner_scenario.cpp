#include "planner/glue/planner_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "hardware/node_spec.hpp"

namespace engramsim::planner {

ReportSettings parse_report_settings(const ConfigNode& n) {
  ReportSettings r;
  r.title = n.str_or("title", "");
  r.question = n.str_or("question", "");
  if (n.has("target_interactivity")) r.target_interactivity = n.number("target_interactivity", 1e-9, 1e9);
  r.curve_axis = n.str_or("curve_axis", r.curve_axis);
  if (r.curve_axis.empty()) n.fail_key("curve_axis", "must not be empty");
  n.finish();
  return r;
}

PlanSettings parse_plan_settings(const ConfigNode& n) {
  PlanSettings p;
  const ConfigNode t = n.child("target");
  const bool by_requests = t.has("requests_per_s");
  const bool by_tokens = t.has("tokens_per_s");
  if (by_requests == by_tokens) t.fail("give exactly one of requests_per_s or tokens_per_s");
  if (by_requests)
    p.target.requests_per_s = t.number("requests_per_s", 1e-9, 1e12);
  else
    p.target.tokens_per_s = t.number("tokens_per_s", 1e-9, 1e15);
  t.finish();
  p.probe_requests = n.integer_or("probe_requests", p.probe_requests, 1, 1000000);
  p.min_probe_span = n.time_or("min_probe_span", p.min_probe_span);
  if (p.min_probe_span < Time::zero() || p.min_probe_span > Time::ms(3600e3))
    n.fail_key("min_probe_span", "must be in [0, 1h]");
  if (const auto s = n.optional_child("search")) {
    p.search.lo = s->number_or("lo_per_s", p.search.lo, 1e-9, 1e9);
    p.search.hi = s->number_or("hi_per_s", std::max(p.search.hi, 2.0 * p.search.lo), 1e-9, 1e9);
    p.search.hi_limit = s->number_or("max_per_s", p.search.hi_limit, 1e-9, 1e12);
    p.search.rel_tolerance = s->number_or("rel_tolerance", p.search.rel_tolerance, 1e-6, 1.0);
    p.search.max_probes = static_cast<int>(s->integer_or("max_probes", p.search.max_probes, 2, 1000));
    if (!(p.search.hi > p.search.lo)) s->fail_key("hi_per_s", "must be greater than lo_per_s");
    if (p.search.hi_limit < p.search.hi) s->fail_key("max_per_s", "must be at least hi_per_s");
    s->finish();
  }
  p.max_queue_p99 = n.time_or("max_queue_p99", p.max_queue_p99);
  if (p.max_queue_p99 <= Time::zero()) n.fail_key("max_queue_p99", "must be > 0");
  if (n.has("tiers")) {
    p.tiers = n.strings("tiers");
    if (p.tiers.empty()) n.fail_key("tiers", "must list at least one price tier");
    for (const auto& tier : p.tiers)
      if (!price_tier_from_string(tier))
        n.fail_key("tiers", "unknown price tier '" + tier + "' (known: hyperscaler, neocloud, rental)");
  }
  if (n.has("load_factors")) {
    p.load_factors = n.numbers("load_factors", 1e-6, 1e6);
    if (p.load_factors.empty()) n.fail_key("load_factors", "must list at least one factor");
  }
  n.finish();
  return p;
}

PlannerScenario load_planner_scenario(const std::string& path, const std::vector<std::string>& set_args) {
  PlannerScenario out;
  out.file = path;
  ConfigNode root = ConfigNode::load_file(path);
  if (!root.is_map()) root.fail("a scenario file must be a map");
  YAML::Node doc = root.raw();  // shares the parsed tree: overrides below are seen through `root`
  for (const auto& arg : set_args) {
    const auto [key, value] = parse_set_argument(arg);
    apply_override(doc, key, value);
  }
  std::optional<SourceLocation> curve_axis_at;  // where the file names a curve axis, if it does
  if (root.has("sweep")) {
    const ConfigNode sweep = root.child("sweep");
    if (!sweep.is_map()) sweep.fail("expected a map with axes (and optional report, plan)");
    if (const auto r = sweep.optional_child("report")) {
      out.report = parse_report_settings(*r);
      if (r->has("curve_axis")) curve_axis_at = r->child("curve_axis").location();
    }
    if (const auto p = sweep.optional_child("plan")) out.plan = parse_plan_settings(*p);
    YAML::Node s = doc["sweep"];
    s.remove("report");
    s.remove("plan");
  }
  if (out.report.title.empty()) out.report.title = "engramsim sizing report";
  out.sweep = prepare_sweep(root);
  // A curve axis the file names must be one of the swept keys (the default may be absent: a plan
  // sweeps configurations, not concurrency).
  if (curve_axis_at) {
    const std::vector<std::string> keys = out.sweep.spec.keys();
    if (std::find(keys.begin(), keys.end(), out.report.curve_axis) == keys.end())
      throw ConfigError(*curve_axis_at, "sweep.report.curve_axis",
                        "'" + out.report.curve_axis + "' is not a swept key");
  }
  return out;
}

}  // namespace engramsim::planner
