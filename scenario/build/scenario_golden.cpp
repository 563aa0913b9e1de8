#include "scenario/build/scenario_golden.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "core/field_table.hpp"
#include "core/json_text.hpp"
#include "core/number_text.hpp"
#include "core/staged_file.hpp"
#include "sim/metrics/summary_metrics.hpp"

namespace engramsim::scenario {
namespace {

std::string fmt(double v) { return printf_number(v, "%.6g"); }

// One key per metric golden_metrics() stores (an agentic replay's too), each with its tolerance.
FieldTable<GoldenVariant> metrics_schema() {
  sim::Summary plain, windowed;
  windowed.windowed = true;
  std::set<std::string> always;
  for (const auto& m : golden_metrics(plain)) always.insert(m.first);
  FieldTable<GoldenVariant> t("golden metrics");
  for (const auto& m : golden_metrics(windowed)) {
    const std::string key = m.first;
    std::string meaning = "tolerance: " + sim::golden_check_words(sim::golden_check(sim::summary_metrics(), key));
    if (!always.count(key)) meaning += "; agentic replays only (docs/agentic.md)";
    t.custom({key, "number or null", "absent", meaning}, [key](const ConfigNode& n, GoldenVariant& v) {
      const ConfigNode value = n.child(key);
      v.metrics.emplace_back(key, value.raw().IsNull() ? NAN : value.as_number());
    });
  }
  return t;
}

FieldTable<GoldenVariant> variant_schema() {
  FieldTable<GoldenVariant> t("golden variant");
  t.any_text("name", &GoldenVariant::name, "the compare variant (empty: the scenario has none)").required();
  t.any_text("infeasible", &GoldenVariant::infeasible,
             "why the variant does not fit (then it has no metrics, and must still not fit)");
  t.section("metrics", metrics_schema(), "");
  t.rule([](const ConfigNode& n, GoldenVariant& v) {
    if (v.infeasible.empty()) n.child("metrics");  // required: throws when absent
  });
  return t;
}

}  // namespace

const FieldTable<Golden>& golden_schema() {
  static const FieldTable<Golden> table = [] {
    FieldTable<SetArgument> set("golden set");
    set.any_text("key", &SetArgument::key, "key path, as `--set KEY=VALUE`").required();
    set.any_text("value", &SetArgument::value, "the value, as YAML text").required();
    FieldTable<Golden> t("golden");
    t.any_text("scenario", &Golden::scenario, "the scenario's name").required();
    t.any_text("note", &Golden::note, "why the test overrides what it does");
    t.list("set", &Golden::set, set, 0, "the overrides the test applies before running").required();
    t.list("variants", &Golden::variants, variant_schema(), 0,
           "per variant in the scenario's order, the reason it does not fit or its summary metrics")
        .required();
    return t;
  }();
  return table;
}

std::vector<std::pair<std::string, double>> golden_metrics(const sim::Summary& s) {
  std::vector<std::pair<std::string, double>> m;
  for (const sim::MetricValue& v : sim::golden_values(sim::summary_metrics(), s)) m.emplace_back(v.key, v.value);
  return m;
}

Golden golden_from_session(const ScenarioSession& session, std::vector<SetArgument> set, std::string note) {
  Golden g;
  g.scenario = session.name;
  g.note = std::move(note);
  g.set = std::move(set);
  for (const auto& v : session.variants) {
    GoldenVariant gv;
    gv.name = v.name;
    if (!v.built)
      gv.infeasible = v.infeasible;
    else if (v.result)
      gv.metrics = golden_metrics(v.result->summary);
    g.variants.push_back(std::move(gv));
  }
  return g;
}

Golden read_golden(const std::string& path) {
  // JSON is YAML: the file is read as any input is, with located errors.
  const ConfigNode root = ConfigNode::load_string(ConfigNode::read_file(path), path);
  if (!root.is_map()) root.fail("expected a golden summary (a map with scenario, set and variants)");
  Golden g;
  golden_schema().read(root, g);
  root.finish();
  return g;
}

void write_golden(const Golden& g, const std::string& path) {
  // ordered_json keeps the metrics in golden_metrics() order, so diffs of regenerated files read well.
  using nlohmann::ordered_json;
  ordered_json set = ordered_json::array();
  for (const auto& s : g.set) set.push_back({{"key", s.key}, {"value", s.value}});
  ordered_json variants = ordered_json::array();
  for (const auto& v : g.variants) {
    ordered_json entry = {{"name", v.name}};
    if (!v.infeasible.empty()) {
      entry["infeasible"] = v.infeasible;
    } else {
      ordered_json m = ordered_json::object();
      for (const auto& [k, val] : v.metrics) m[k] = std::isfinite(val) ? ordered_json(val) : ordered_json(nullptr);
      entry["metrics"] = m;
    }
    variants.push_back(entry);
  }
  const ordered_json out = {{"scenario", g.scenario}, {"note", g.note}, {"set", set}, {"variants", variants}};
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  write_file_staged(path, json_text(out) + "\n");
}

std::vector<std::string> compare_with_golden(const Golden& expected, const Golden& actual) {
  std::vector<std::string> out;
  if (expected.variants.size() != actual.variants.size()) {
    out.push_back("variant count " + std::to_string(actual.variants.size()) + " vs golden " +
                  std::to_string(expected.variants.size()));
    return out;
  }
  for (std::size_t i = 0; i < expected.variants.size(); ++i) {
    const GoldenVariant& e = expected.variants[i];
    const GoldenVariant& a = actual.variants[i];
    const std::string label = e.name.empty() ? std::string("run") : e.name;
    if (e.name != a.name) {
      out.push_back("variant " + std::to_string(i) + " is '" + a.name + "', golden '" + e.name + "'");
      continue;
    }
    if (!e.infeasible.empty() || !a.infeasible.empty()) {
      if (e.infeasible.empty() != a.infeasible.empty())
        out.push_back(label + ": " +
                      (a.infeasible.empty() ? "fits now, golden: does not fit (" + e.infeasible + ")"
                                            : "does not fit (" + a.infeasible + "), golden: fits"));
      continue;
    }
    for (const auto& metric : e.metrics) {
      // A named reference, not a structured binding: C++20 lets lambdas capture bindings, clang 14 does not.
      const std::string& key = metric.first;
      const double want = metric.second;
      const auto it =
          std::find_if(a.metrics.begin(), a.metrics.end(), [&key](const auto& m) { return m.first == key; });
      if (it == a.metrics.end()) {
        out.push_back(label + ": " + key + " missing from the run");
        continue;
      }
      const double got = it->second;
      if (std::isnan(want) || std::isnan(got)) {
        if (std::isnan(want) != std::isnan(got))
          out.push_back(label + ": " + key + " " + fmt(got) + " vs golden " + fmt(want));
        continue;
      }
      const sim::GoldenCheck t = sim::golden_check(sim::summary_metrics(), key);
      const double allowed = t.abs + t.rel * std::fabs(want);
      if (std::fabs(got - want) > allowed) {
        const double rel = want != 0.0 ? 100.0 * (got - want) / std::fabs(want) : 0.0;
        out.push_back(label + ": " + key + " " + fmt(got) + " vs golden " + fmt(want) + " (" + fmt(rel) +
                      " %, allowed " + fmt(100.0 * t.rel) + " % + " + fmt(t.abs) + ")");
      }
    }
  }
  return out;
}

}  // namespace engramsim::scenario
