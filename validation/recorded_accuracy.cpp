#include "validation/recorded_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "core/config_node.hpp"
#include "core/paths.hpp"

namespace engramsim::validation {
namespace {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * fraction);
  return buf;
}

std::string signed_percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * fraction);
  return buf;
}

// A recorded lean is the run's rounded to a tenth of a percent: half a tenth apart, plus float slack.
constexpr double kLeanRecordSlack = 0.0005 + 1e-6;

std::map<std::string, RecordedGroup> parse_groups(const ConfigNode& root, const char* key) {
  std::map<std::string, RecordedGroup> out;
  const auto n = root.optional_child(key);
  if (!n) return out;
  if (!n->is_map()) n->fail("expected a map of name: {cases, mape_percent, lean_percent}");
  for (const std::string& name : n->keys()) {
    const ConfigNode g = n->child(name);
    RecordedGroup r;
    r.cases = static_cast<int>(g.integer("cases", 1, 1'000'000));
    r.mape = g.number("mape_percent", 0.0, 1e6) / 100.0;
    r.lean = g.number("lean_percent", -1e6, 1e6) / 100.0;
    if (g.has("known_misses")) r.known_misses = g.strings("known_misses");
    g.finish();
    out[name] = r;
  }
  return out;
}

RecordedAccuracy parse_recorded(const ConfigNode& root) {
  RecordedAccuracy r;
  r.file = root.file();
  if (root.integer("schema_version", 1, 1) != 1) root.fail_key("schema_version", "expected 1");
  const ConfigNode m = root.child("mape_percent");
  if (!m.is_map()) m.fail("expected a map of metric kind: percent");
  for (const std::string& key : m.keys()) {
    const std::optional<MetricKind> k = kMetricKindKeys.parse(key);
    if (!k)
      m.fail_key(key,
                 "unknown metric kind (step, serving_throughput, latency, engram_penalty, ratio, footprint, traffic)");
    r.mape[*k] = m.number(key, 0.0, 1e6) / 100.0;
  }
  m.finish();
  for (const auto& [k, key] : kMetricKindKeys.entries)
    if (std::isfinite(mape_target(k)) && r.mape.count(k) == 0)
      m.fail(std::string("record the MAPE of ") + key + ", which has a target");
  r.known_misses = root.has("known_misses") ? root.strings("known_misses") : std::vector<std::string>{};
  if (std::set<std::string>(r.known_misses.begin(), r.known_misses.end()).size() != r.known_misses.size())
    root.fail_key("known_misses", "a case is listed twice");
  r.by_gpu = parse_groups(root, "by_gpu");
  r.by_engine = parse_groups(root, "by_engine");
  r.by_gpu_engine = parse_groups(root, "by_gpu_engine");
  root.finish();
  return r;
}

void check_cases(const ValidationReport& report, const std::set<std::string>& recorded, RatchetResult& out) {
  std::set<std::string> missing = recorded;
  for (const CaseResult& r : report.results) {
    if (r.status == CaseStatus::fail) out.problems.push_back(r.id + ": outside its tolerance and not a known miss");
    if (r.status == CaseStatus::error) out.problems.push_back(r.id + ": the reproduction failed: " + r.message);
    if (r.status == CaseStatus::pass && !r.known_miss.empty())
      out.problems.push_back(r.id + ": within tolerance now; remove its known_miss from the cases file");
    if (r.status != CaseStatus::known_miss) continue;
    missing.erase(r.id);
    if (recorded.count(r.id) == 0)
      out.problems.push_back(r.id + ": a new known miss; the list may not grow (fix the prediction instead)");
  }
  // A recorded miss whose case this report did not evaluate (a run of part of the set) is not judged.
  std::set<std::string> in_report;
  for (const CaseResult& r : report.results) in_report.insert(r.id);
  for (const std::string& id : missing)
    if (in_report.count(id))
      out.problems.push_back(id + ": recorded as a known miss but no longer one; remove it from the record");
}

void check_groups(const std::vector<GroupSummary>& run, const std::map<std::string, RecordedGroup>& recorded,
                  const char* what, RatchetResult& out) {
  std::set<std::string> seen;
  for (const GroupSummary& g : run) {
    if (g.group.empty()) continue;  // a case without a GPU or engine name is not quoted anywhere
    seen.insert(g.group);
    const auto it = recorded.find(g.group);
    const std::string name = std::string(what) + " " + g.group;
    if (it == recorded.end()) {
      out.problems.push_back(name + ": not recorded (" + std::to_string(g.cases) + " cases, MAPE " + percent(g.mape) +
                             ")");
    } else if (it->second.cases != g.cases) {
      out.problems.push_back(name + ": " + std::to_string(g.cases) + " cases, recorded " +
                             std::to_string(it->second.cases) + "; record the set as it is");
    } else if (g.mape > it->second.mape + 1e-5) {
      out.problems.push_back(name + ": MAPE " + percent(g.mape) + " is above the recorded " + percent(it->second.mape));
    } else if (std::abs(g.lean - it->second.lean) > kLeanRecordSlack) {
      out.problems.push_back(name + ": lean " + signed_percent(g.lean) + ", recorded " +
                             signed_percent(it->second.lean) + "; record the run's");
    }
  }
  for (const auto& [group, r] : recorded)
    if (seen.count(group) == 0) out.problems.push_back(std::string(what) + " " + group + ": recorded but no case ran");
}

// A GPU-with-engine group's known misses: every one the run holds is recorded, and a recorded one
// the run holds is still a miss (the sweep cases' are recorded but not run by the ratchet).
void check_group_misses(const ValidationReport& report, const std::vector<GroupSummary>& run,
                        const std::map<std::string, RecordedGroup>& recorded, RatchetResult& out) {
  for (const GroupSummary& g : run) {
    const auto it = recorded.find(g.group);
    if (it == recorded.end()) continue;
    const auto& listed = it->second.known_misses;
    for (const auto& id : g.known_misses)
      if (std::find(listed.begin(), listed.end(), id) == listed.end())
        out.problems.push_back("GPU with engine " + g.group + ": known miss " + id + " not in its known_misses");
    for (const auto& id : listed) {
      const bool held =
          std::any_of(report.results.begin(), report.results.end(), [&](const CaseResult& r) { return r.id == id; });
      if (held && std::find(g.known_misses.begin(), g.known_misses.end(), id) == g.known_misses.end())
        out.problems.push_back("GPU with engine " + g.group + ": " + id + " is no known miss of it in this run");
    }
  }
}

}  // namespace

std::optional<std::string> validation_accuracy_for(const std::map<std::string, RecordedGroup>& groups,
                                                   const std::string& name) {
  const auto it = groups.find(name);
  if (it == groups.end()) return std::nullopt;
  const RecordedGroup& g = it->second;
  std::string lean = "no lean on average";
  if (std::abs(g.lean) >= 0.0005)
    lean =
        "predicting " + percent(std::abs(g.lean)) + (g.lean > 0 ? " faster" : " slower") + " than measured on average";
  return "MAPE " + percent(g.mape) + " over " + std::to_string(g.cases) + " validation case" +
         (g.cases == 1 ? "" : "s") + ", " + lean;
}

const char* kind_key(MetricKind k) { return kMetricKindKeys.name(k); }

RecordedAccuracy recorded_accuracy_from_yaml(const std::string& text, const std::string& file_name) {
  return parse_recorded(ConfigNode::load_string(text, file_name));
}

RecordedAccuracy load_recorded_accuracy(const std::string& path) { return parse_recorded(ConfigNode::load_file(path)); }

std::string default_recorded_accuracy_path() {
  return (std::filesystem::path(data_root()) / "scenarios" / "validation" / "recorded-accuracy.yaml").string();
}

RatchetResult check_ratchet(const ValidationReport& report, const RecordedAccuracy& recorded) {
  RatchetResult out;
  check_cases(report, std::set<std::string>(recorded.known_misses.begin(), recorded.known_misses.end()), out);
  check_groups(summarize_by(report.results, &CaseResult::gpu), recorded.by_gpu, "GPU", out);
  check_groups(summarize_by(report.results, &CaseResult::engine), recorded.by_engine, "engine", out);
  const auto pairs = summarize_by_gpu_engine(report.results);
  check_groups(pairs, recorded.by_gpu_engine, "GPU with engine", out);
  check_group_misses(report, pairs, recorded.by_gpu_engine, out);
  for (const KindSummary& k : report.kinds) {
    const auto it = recorded.mape.find(k.kind);
    if (it == recorded.mape.end()) continue;
    // Recorded values carry one decimal of a percent; a thousandth of a point covers rounding.
    if (k.mape > it->second + 1e-5)
      out.problems.push_back(std::string(kind_key(k.kind)) + ": MAPE " + percent(k.mape) + " is above the recorded " +
                             percent(it->second));
    else if (k.mape < it->second - 0.005)
      out.notes.push_back(std::string(kind_key(k.kind)) + ": MAPE " + percent(k.mape) + ", below the recorded " +
                          percent(it->second) + "; lower the record");
  }
  return out;
}

}  // namespace engramsim::validation
