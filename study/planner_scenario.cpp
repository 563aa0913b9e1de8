#include "study/planner_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "hardware/node_spec.hpp"

namespace engramsim::study {
namespace {

const FieldTable<planner::PlanTarget>& target_schema() {
  static const FieldTable<planner::PlanTarget> table = [] {
    FieldTable<planner::PlanTarget> t("sweep.plan.target");
    t.rule([](const ConfigNode& m, planner::PlanTarget&) {
      if (int(m.has("requests_per_s")) + int(m.has("tokens_per_s")) + int(m.has("power_mw")) != 1)
        m.fail("give exactly one of requests_per_s, tokens_per_s or power_mw");
    });
    t.number("requests_per_s", &planner::PlanTarget::requests_per_s, 1e-9, 1e12,
             "the offered load in requests per second")
        .default_words("none");
    t.number("tokens_per_s", &planner::PlanTarget::tokens_per_s, 1e-9, 1e15,
             "instead of `requests_per_s`: input + output tokens per second, divided by the workload's mean request")
        .default_words("none");
    t.number("power_mw", &planner::PlanTarget::power_mw, 1e-6, 1e6,
             "instead of a load: the most tokens per second whole nodes serve inside this provisioned power (MW, the "
             "GPU presets' all-in kW), at the target interactivity (closed-loop and agentic plans)")
        .default_words("none");
    return t;
  }();
  return table;
}

const FieldTable<planner::RateSearchOptions>& search_schema() {
  static const FieldTable<planner::RateSearchOptions> table = [] {
    FieldTable<planner::RateSearchOptions> t("sweep.plan.search");
    t.number("lo_per_s", &planner::RateSearchOptions::lo, 1e-9, 1e9, "the first rate probed, requests/s per replica");
    t.rule([](const ConfigNode&, planner::RateSearchOptions& s) { s.hi = std::max(s.hi, 2.0 * s.lo); });
    t.number("hi_per_s", &planner::RateSearchOptions::hi, 1e-9, 1e9, "the second rate probed; the doubling starts here")
        .default_words("max(1, 2 x `lo_per_s`)")
        .check([](const planner::RateSearchOptions& s) { return s.hi > s.lo ? "" : "must be greater than lo_per_s"; });
    t.number("max_per_s", &planner::RateSearchOptions::hi_limit, 1e-9, 1e12, "no rate above this is probed")
        .check(
            [](const planner::RateSearchOptions& s) { return s.hi_limit >= s.hi ? "" : "must be at least hi_per_s"; });
    t.number("rel_tolerance", &planner::RateSearchOptions::rel_tolerance, 1e-6, 1.0,
             "the search stops when the failing and passing rates are this close, relative to the passing one");
    t.integer("max_probes", &planner::RateSearchOptions::max_probes, 2, 1000, "the most probes of one candidate");
    return t;
  }();
  return table;
}

// `tiers`: a non-empty list of known price tiers.
void read_tiers(const ConfigNode& m, planner::PlanSettings& p) {
  p.tiers = m.strings("tiers");
  if (p.tiers.empty()) m.fail_key("tiers", "must list at least one price tier");
  for (const auto& tier : p.tiers)
    if (!price_tier_from_string(tier))
      m.fail_key("tiers", "unknown price tier '" + tier + "' (known: hyperscaler, neocloud, rental)");
}

void read_load_factors(const ConfigNode& m, planner::PlanSettings& p) {
  p.load_factors = m.numbers("load_factors", 1e-6, 1e6);
  if (p.load_factors.empty()) m.fail_key("load_factors", "must list at least one factor");
}

}  // namespace

const FieldTable<ReportSettings>& report_schema() {
  static const FieldTable<ReportSettings> table = [] {
    FieldTable<ReportSettings> t("sweep.report");
    t.any_text("title", &ReportSettings::title, "the report's title").default_words("`engramsim sizing report`");
    t.any_text("question", &ReportSettings::question, "the question the report opens with");
    t.custom({"target_interactivity", number_type_words(1e-9, 1e9, false), "none",
              "tok/s/user at which configurations are compared (the verdict, the plan of a closed loop)"},
             [](const ConfigNode& m, ReportSettings& r) {
               r.target_interactivity = m.number("target_interactivity", 1e-9, 1e9);
             });
    t.text("curve_axis", &ReportSettings::curve_axis,
           "the swept key that traces each configuration's curve; it must be swept")
        .default_words("`workload.concurrency`");
    return t;
  }();
  return table;
}

const FieldTable<planner::PlanSettings>& plan_schema() {
  static const FieldTable<planner::PlanSettings> table = [] {
    FieldTable<planner::PlanSettings> t("sweep.plan");
    t.section("target", &planner::PlanSettings::target, target_schema(),
              "the load to serve or the power to fill: exactly one of its keys")
        .required();
    t.integer("probe_requests", &planner::PlanSettings::probe_requests, 1, 1000000,
              "at least this many requests per replica in one rate probe");
    t.time("min_probe_span", &planner::PlanSettings::min_probe_span, Time::zero(), Time::from_seconds(3600.0),
           "and at least this long a stretch of arrivals");
    t.section("search", &planner::PlanSettings::search, search_schema(), "the rate search of one candidate");
    t.positive("max_queue_p99", &planner::PlanSettings::max_queue_p99,
               "overload guard: a probe whose p99 queueing delay exceeds this fails");
    t.custom({"tiers", "list of `hyperscaler` \\| `neocloud` \\| `rental`", "all three",
              "the price tiers of the sensitivity table"},
             read_tiers);
    t.number("target_utilization", &planner::PlanSettings::target_utilization, 0.01, 1.0,
             "headroom: replicas are sized to run at this share of their highest rate within the SLO (1 = none)");
    t.custom({"load_factors", "list of numbers in [1e-06, 1e+06]", "0.8, 1, 1.2",
              "the target multipliers of the sensitivity table"},
             read_load_factors);
    return t;
  }();
  return table;
}

ReportSettings parse_report_settings(const ConfigNode& n) {
  ReportSettings r;
  report_schema().read(n, r);
  n.finish();
  return r;
}

planner::PlanSettings parse_plan_settings(const ConfigNode& n) {
  planner::PlanSettings p;
  plan_schema().read(n, p);
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
  out.sweep = planner::prepare_sweep(root);
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

}  // namespace engramsim::study
