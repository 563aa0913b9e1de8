#include "scenario/build/scenario_session.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "core/json_text.hpp"
#include "core/parallel_for.hpp"
#include "core/staged_file.hpp"
#include "sim/metrics/result_writers.hpp"
#include "sim/metrics/summary_metrics.hpp"

namespace engramsim::scenario {
namespace {

std::string summary_text(const sim::RunResult& r, const sim::SloParams& slo) {
  std::ostringstream os;
  write_summary_json(r.summary, slo, os);
  return os.str();
}

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json compare_json(const ScenarioSession& s, bool with_summaries) {
  using nlohmann::json;
  json variants = json::array();
  json ratios = json::object();
  for (const auto& v : s.variants) {
    json set = json::object();
    for (const auto& [k, val] : v.set) set[k] = val;
    json entry = {{"name", v.name},
                  {"description", v.description},
                  {"baseline", v.baseline.empty() ? json(nullptr) : json(v.baseline)},
                  {"set", set}};
    if (!v.built) {
      entry["infeasible"] = v.infeasible;
    } else if (v.result) {
      json metrics = json::object();
      const auto mine = headline_metrics(v.result->summary);
      for (const auto& [k, val] : mine) metrics[k] = number_or_null(val);
      entry["metrics"] = metrics;
      if (with_summaries) entry["summary"] = json::parse(summary_text(*v.result, v.built->params.slo.per_request));
      const VariantOutcome* base = v.baseline.empty() ? nullptr : s.find(v.baseline);
      if (base && base->result) {
        const auto theirs = headline_metrics(base->result->summary);
        json r = json::object();
        for (std::size_t i = 0; i < mine.size(); ++i)
          r[mine[i].first] = number_or_null(theirs[i].second != 0.0 ? mine[i].second / theirs[i].second : NAN);
        ratios[v.name] = r;
      }
    }
    variants.push_back(entry);
  }
  return {{"scenario", s.name}, {"file", s.file}, {"variants", variants}, {"ratios", ratios}};
}

}  // namespace

const VariantOutcome* ScenarioSession::find(const std::string& variant) const {
  for (const auto& v : variants)
    if (v.name == variant) return &v;
  return nullptr;
}

bool ScenarioSession::any_infeasible() const {
  return std::any_of(variants.begin(), variants.end(), [](const VariantOutcome& v) { return !v.built; });
}

namespace {

// Variant `v`'s scenario, parsed; an error inside a --set value names the --set argument.
ScenarioParams parse_variant_params(const ScenarioDocument& doc, const ScenarioVariant& v,
                                    const SessionOptions& options, const ScenarioParseOptions& po) {
  try {
    return parse_scenario(ConfigNode(v.root, doc.file, ""), po);
  } catch (const ConfigError& e) {
    // A --set value was parsed from the command line and carries no position of its own (yaml-cpp
    // reports 1:1 of the scenario file): name the --set argument instead.
    for (const auto& set : options.set) {
      const bool inside = e.field() == set.key || e.field().rfind(set.key + ".", 0) == 0;
      if (inside && e.where().line <= 1)
        throw ConfigError({"--set", 0, 0}, e.field(), e.message() + " (--set " + set.key + "=" + set.value + ")");
    }
    throw;
  }
}

}  // namespace

ScenarioSession prepare_session(const ScenarioDocument& doc, const SessionOptions& options) {
  ScenarioSession s;
  s.file = doc.file;
  ScenarioParseOptions po;
  po.calibration = options.calibration;
  if (!options.calibrations_by_gpu.empty()) po.calibrations_by_gpu = &options.calibrations_by_gpu;
  // One variant's YAML tree at a time: it is parsed into typed parameters and dropped.
  const ScenarioExpansion expansion(doc, options.set);
  for (std::size_t i = 0; i < expansion.size(); ++i) {
    const ScenarioVariant v = expansion.variant(i);
    if (i == 0) s.compare = !v.name.empty();
    VariantOutcome o;
    o.name = v.name;
    o.description = v.description;
    o.baseline = v.baseline;
    o.set = v.set;
    o.set_conflicts = set_conflicts(v, options.set);
    ScenarioParams p = parse_variant_params(doc, v, options, po);
    if (s.name.empty()) {
      s.name = p.name;
      s.description = p.description;
    }
    try {
      o.built.emplace(build_scenario(std::move(p)));
      release_step_model(*o.built);  // built again when the variant runs
    } catch (const InfeasibleScenario& e) {
      o.infeasible = e.what();
    }
    s.variants.push_back(std::move(o));
  }
  return s;
}

void run_session(ScenarioSession& s, int jobs, const VariantDone& done) {
  std::vector<VariantOutcome*> todo;
  for (auto& v : s.variants)
    if (v.built) todo.push_back(&v);
  // A failed variant starts no other; its error is rethrown once the running ones end.
  std::mutex done_mutex;
  parallel_for(todo.size(), jobs, [&](std::size_t i) {
    restore_step_model(*todo[i]->built);
    todo[i]->result = run_simulation(todo[i]->built->run);
    if (done) {
      const std::lock_guard<std::mutex> lock(done_mutex);
      done(*todo[i]);
    }
  });
}

void release_run_records(VariantOutcome& v) {
  if (v.built) release_step_model(*v.built);
  if (!v.result) return;
  std::vector<sim::RequestRecord>().swap(v.result->requests);
  v.result->timeseries = sim::TimeSeries{v.result->timeseries.interval(), 1};
}

std::vector<std::string> session_input_files(const ScenarioSession& s) {
  std::vector<std::string> files{s.file};
  for (const auto& v : s.variants) {
    if (!v.built) continue;
    const ScenarioParams& p = v.built->params;
    for (const std::string& f : {p.model_path, p.node_path, p.calibration_path, p.workload.trace_path})
      if (!f.empty()) files.push_back(f);
  }
  return files;
}

std::vector<std::string> session_output_files(const ScenarioSession& s, const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& v : s.variants) {
    if (!v.built) continue;
    const fs::path sub = s.compare ? fs::path(dir) / v.name : fs::path(dir);
    for (const char* f : {"requests.csv", "summary.json", "timeseries.csv", "scenario.json"})
      out.push_back((sub / f).string());
  }
  if (s.compare) out.push_back((fs::path(dir) / "compare.json").string());
  return out;
}

void check_outputs_spare_inputs(const ScenarioSession& s, const std::vector<std::string>& outputs,
                                const std::string& flag) {
  namespace fs = std::filesystem;
  // Each path resolved once: 10,000 variants name 40,000 inputs and as many outputs, and comparing
  // every pair took hours.
  std::map<fs::path, std::string> inputs;
  std::error_code ec;
  const std::vector<std::string> named = session_input_files(s);
  for (const std::string& in : std::set<std::string>(named.begin(), named.end())) {
    const fs::path input = fs::weakly_canonical(in, ec);
    if (!ec) inputs.emplace(input, in);
  }
  for (const std::string& out : outputs) {
    const fs::path output = fs::weakly_canonical(out, ec);
    if (ec) continue;
    if (const auto hit = inputs.find(output); hit != inputs.end())
      throw ConfigError({flag, 0, 0}, "",
                        "would overwrite the input file " + hit->second + "; write the results elsewhere");
  }
}

void write_variant_outputs(const ScenarioSession& s, const VariantOutcome& v, const std::string& dir) {
  namespace fs = std::filesystem;
  if (!v.built || !v.result) return;
  const fs::path sub = s.compare ? fs::path(dir) / v.name : fs::path(dir);
  std::error_code ec;
  fs::create_directories(sub, ec);
  if (ec) throw std::runtime_error("cannot create output directory " + sub.string() + ": " + ec.message());
  // The folder's completion mark (summary.json) goes first; write_run_outputs writes it last.
  remove_output_file(sub / "summary.json");
  write_file_staged(sub / "scenario.json", scenario_json(*v.built));
  write_run_outputs(*v.result, v.built->params.slo.per_request, sub.string());
}

void begin_session_outputs(const ScenarioSession& s, const std::string& dir) {
  if (s.compare) remove_output_file(std::filesystem::path(dir) / "compare.json");
}

void write_compare_outputs(const ScenarioSession& s, const std::string& dir) {
  namespace fs = std::filesystem;
  if (!s.compare) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output directory " + dir + ": " + ec.message());
  write_file_staged(fs::path(dir) / "compare.json", json_text(compare_json(s, false)) + "\n");
}

void write_session_outputs(const ScenarioSession& s, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output directory " + dir + ": " + ec.message());
  // The completion marks (compare.json, each folder's summary.json) go first and come back last,
  // so that an interrupted or failed write never leaves a folder that looks complete.
  begin_session_outputs(s, dir);
  for (const auto& v : s.variants) write_variant_outputs(s, v, dir);
  write_compare_outputs(s, dir);
}

std::vector<std::pair<std::string, double>> headline_metrics(const sim::Summary& s) {
  static const char* const keys[] = {"completed",     "tput_per_gpu",     "output_tput_per_gpu", "output_throughput",
                                     "p50_ttft_ms",   "p99_ttft_ms",      "p50_tpot_ms",         "p99_tpot_ms",
                                     "p50_itl_ms",    "p99_itl_ms",       "median_intvty",       "engram_stall_share",
                                     "mean_kv_usage", "tokens_per_dollar"};
  std::vector<std::pair<std::string, double>> m;
  for (const char* key : keys) m.emplace_back(key, sim::summary_metric_value(sim::summary_metrics(), key, s));
  return m;
}

std::string session_json(const ScenarioSession& s) {
  if (!s.compare) {
    const VariantOutcome& v = s.variants.front();
    if (!v.result) return "null\n";
    return summary_text(*v.result, v.built->params.slo.per_request);
  }
  return json_text(compare_json(s, true)) + "\n";
}

}  // namespace engramsim::scenario
