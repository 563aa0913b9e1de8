#include "study/scenario_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "core/number_text.hpp"
#include "core/paths.hpp"
#include "core/rng.hpp"
#include "hardware/board_power.hpp"
#include "hardware/gpu_reference.hpp"
#include "planner/frontier_plan.hpp"
#include "scenario/build/serve_command.hpp"
#include "scenario/schema/data_path.hpp"
#include "sim/metrics/summary_metrics.hpp"
#include "study/plan_bound.hpp"
#include "study/provenance.hpp"
#include "validation/recorded_accuracy.hpp"

namespace engramsim::study {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// Where the deepest existing node along a dotted field path ("deployment.scheduler.block_size")
// sits in a scenario file's tree.
std::optional<YAML::Mark> mark_in_file(const YAML::Node& root, const std::string& field) {
  std::optional<YAML::Mark> found;
  YAML::Node at;
  at.reset(root);
  std::size_t start = 0;
  while (start <= field.size() && !field.empty()) {
    const std::size_t dot = field.find('.', start);
    const std::string key = field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at.IsMap()) break;
    const YAML::Node next = static_cast<const YAML::Node&>(at)[key];
    if (!next.IsDefined()) break;
    if (!next.Mark().is_null()) found = next.Mark();
    at.reset(next);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return found;
}

// The node at a dotted field path, or an undefined node.
YAML::Node node_at(const YAML::Node& root, const std::string& field) {
  YAML::Node at;
  at.reset(root);  // rebinds; assignment would write through into the tree
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = field.find('.', start);
    const std::string key = field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node next = static_cast<const YAML::Node&>(at)[key];
    if (!next.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
    at.reset(next);
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

planner::Percentiles percentiles(const sim::LatencySummary& l) { return {l.median, l.p90, l.p99}; }

// JSON has no NaN: an undefined quantity is null.
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

std::string fmt(double v, const char* spec = "%.4g") { return printf_number(v, spec); }

}  // namespace

CalibrationOverrides load_calibration_overrides(const std::vector<std::string>& paths) {
  CalibrationOverrides out;
  std::vector<std::string> hashes;
  for (const std::string& path : paths) {
    if (const std::string why = ConfigNode::file_problem(path); !why.empty())
      throw ConfigError({"--calibration", 0, 0}, "", path + ": " + why);
    for (const auto& o : out.profiles)
      if (std::filesystem::equivalent(o.path, path))
        throw ConfigError({"--calibration", 0, 0}, "", path + ": given twice");
    out.profiles.push_back({path, load_calibration_profile(path)});
    hashes.push_back(samples_hash_of(ConfigNode::read_file(path)));
  }
  std::sort(hashes.begin(), hashes.end());
  for (const auto& h : hashes) out.fingerprint += (out.fingerprint.empty() ? " calibration=" : ",") + h;
  return out;
}

ScenarioEvaluator::ScenarioEvaluator(std::string file, YAML::Node base, CalibrationOverrides calibrations,
                                     std::size_t cdf_samples)
    : file_(std::move(file)),
      base_(std::move(base)),
      calibrations_(std::move(calibrations)),
      cdf_samples_(cdf_samples) {}

scenario::ScenarioParams ScenarioEvaluator::parse(const YAML::Node& scenario) const {
  scenario::ScenarioParseOptions options;
  options.calibrations_by_gpu = &calibrations_.profiles;
  return scenario::parse_scenario(ConfigNode(scenario, file_, ""), options);
}

namespace {

// Where a point's parse error belongs. A value the schema refuses is located at the sweep entry that
// gave it (its value in the axis list), not at the top of the copy the point was parsed from; a
// section the error names as a whole (`workload`) at a swept key inside it; any other value where the
// file holds it, or at --set when the command line replaced it.
SourceLocation point_error_location(const ConfigError& e, const planner::SweepPoint& p, const std::string& file,
                                    const YAML::Node& base) {
  for (int pass = 0; pass < 2; ++pass) {
    std::optional<SourceLocation> swept;  // the last matching assignment of the pass
    for (const auto& a : p.assignments) {
      const YAML::Mark m = a.value.Mark();
      const bool same_key = pass == 0 ? e.field() == a.key || e.field().rfind(a.key + ".", 0) == 0
                                      : !e.field().empty() && a.key.rfind(e.field() + ".", 0) == 0;
      if (same_key && !m.is_null()) swept = SourceLocation{file, m.line + 1, m.column + 1};
    }
    if (swept) return *swept;
  }
  if (e.where().file != file) return e.where();
  // The point's tree is a copy without positions: read them from the file (only on failure).
  try {
    const ConfigNode f = ConfigNode::load_file(file);
    const YAML::Node in_file = node_at(f.raw(), e.field());
    const YAML::Node in_base = node_at(base, e.field());
    if (in_file.IsDefined() && in_base.IsDefined() && YAML::Dump(in_file) != YAML::Dump(in_base))
      return {"--set", 0, 0};
    if (const auto m = mark_in_file(f.raw(), e.field())) return {file, m->line + 1, m->column + 1};
  } catch (const ConfigError&) {
  }
  return e.where();
}

// The models, nodes, GPUs, engines, profiles and workload kinds the points use.
void add_point_inputs(const scenario::ScenarioParams& params, SweepInputs& in) {
  if (in.model_names.empty()) {
    in.price_tier = to_string(params.price_tier);
    in.slo = params.slo;
  }
  add_unique(in.model_names, params.card.name);
  add_unique(in.model_paths, params.model_path);
  add_unique(in.node_names, params.node.name);
  add_unique(in.node_paths, params.node_path);
  add_unique(in.gpu_names, params.node.gpu.name);
  add_unique(in.calibration_paths, params.calibration_path);
  if (std::find(in.engine_paths.begin(), in.engine_paths.end(), params.deployment.engine_path) ==
      in.engine_paths.end()) {
    in.engine_paths.push_back(params.deployment.engine_path);
    in.engine_names.push_back(params.deployment.engine);
  }
  if (std::find(in.workload_kinds.begin(), in.workload_kinds.end(), params.workload.kind) == in.workload_kinds.end())
    in.workload_kinds.push_back(params.workload.kind);
}

void add_file(SweepInputs& in, const std::string& role, const std::string& path) {
  if (path.empty()) return;
  const std::pair<std::string, std::string> f{role, path};
  if (std::find(in.files.begin(), in.files.end(), f) == in.files.end()) in.files.push_back(f);
}

// The GPU preset a node file names (read once per distinct node: the parse has checked it).
void add_gpu_file(const std::string& node_path, SweepInputs& in) {
  const ConfigNode node = ConfigNode::load_file(node_path);
  add_file(in, "GPU preset", resolve_gpu_reference(node.str("gpu"), node_path));
}

// Every file one point reads (SweepInputs::files) but its GPU preset (add_gpu_file).
void add_point_files(const scenario::ScenarioParams& params, SweepInputs& in) {
  add_file(in, "model card", params.model_path);
  add_file(in, "node preset", params.node_path);
  add_file(in, "engine preset", params.deployment.engine_path);
  add_file(in, "calibration profile", params.calibration_path);
  add_file(in, "price file", params.prices_path);
  add_file(in, "trace", params.workload.trace_path);
  add_file(in, "lengths file", params.workload.lengths_path);
}

// A replayed trace is read through once per distinct workload section (its window, scales, options
// and request cap decide which rows a run reads), so a bad row is bad input before anything is written.
void read_trace_once(const scenario::ScenarioParams& params, std::vector<std::string>& read) {
  const std::string& key = params.workload.trace_read;
  if (key.empty() || std::find(read.begin(), read.end(), key) != read.end()) return;
  scenario::read_trace_through(params);
  read.push_back(key);
}

// A --calibration profile no point uses is bad input: it fits a GPU of the sweep but another profile
// ranks higher there, or it fits none.
void check_profiles_used(const CalibrationOverrides& calibrations, const SweepInputs& in) {
  for (const auto& c : calibrations.profiles) {
    if (std::find(in.calibration_paths.begin(), in.calibration_paths.end(), c.path) != in.calibration_paths.end())
      continue;
    std::string gpus;
    for (const auto& g : in.gpu_names) gpus += (gpus.empty() ? "" : ", ") + g;
    std::string why;
    for (const auto& g : in.gpu_names)
      if (why.empty() && check_profile_matches(c.profile, g).severity != MatchSeverity::error)
        why = "on " + g + " it is outranked by " + choose_calibration(calibrations.profiles, g)->path +
              " (one measured on the GPU comes before a variant's, which comes before host sections only; "
              "profiles are not merged)";
    if (why.empty())
      why = check_profile_matches(c.profile, in.gpu_names.empty() ? "" : in.gpu_names.front()).message +
            "; the points run on " + gpus;
    throw ConfigError({"--calibration", 0, 0}, "", c.path + " applies to no point of the sweep: " + why);
  }
}

}  // namespace

namespace {

// The point's assignments as one string, each part prefixed with its length so that no two
// assignment lists give the same key (a label joins them with spaces, which a value may hold).
std::string point_key(const planner::SweepPoint& p) {
  std::string key;
  for (const auto& a : p.assignments) {
    const std::string value = planner::canonical_text(a.value);
    key += std::to_string(a.key.size()) + ":" + a.key + std::to_string(value.size()) + ":" + value;
  }
  return key;
}

}  // namespace

SweepInputs ScenarioEvaluator::validate(const std::vector<planner::SweepPoint>& points) {
  SweepInputs in;
  std::vector<std::string> traces_read;
  for (const auto& p : points) {
    scenario::ScenarioParams params;
    const YAML::Node tree = scenario_for_point(base_, p);
    try {
      params = parse(tree);
    } catch (const ConfigError& e) {
      throw ConfigError(point_error_location(e, p, file_, base_), e.field(),
                        e.message() + " (sweep point " + std::to_string(p.index) + ": " + p.label() + ")");
    }
    add_point_inputs(params, in);
    add_point_files(params, in);
    read_trace_once(params, traces_read);
    parsed_.insert_or_assign(point_key(p), std::move(params));
  }
  for (const auto& node : in.node_paths) add_gpu_file(node, in);
  check_profiles_used(calibrations_, in);
  return in;
}

scenario::ScenarioParams ScenarioEvaluator::params_of(const planner::SweepPoint& point) const {
  const auto it = parsed_.find(point_key(point));
  return it != parsed_.end() ? it->second : parse(scenario_for_point(base_, point));
}

planner::Outcome ScenarioEvaluator::evaluate(const planner::SweepPoint& point) const {
  scenario::ScenarioParams params = params_of(point);
  scenario::BuiltScenario built;
  try {
    built = scenario::build_scenario(std::move(params));
  } catch (const scenario::InfeasibleScenario& e) {
    return planner::Outcome::infeasible(e.what());
  }
  const sim::RunResult run = sim::run_simulation(built.run);
  return planner::Outcome::ok(to_json(point_metrics(built, run, cdf_samples_)));
}

PointBound ScenarioEvaluator::bound_before_run(const planner::SweepPoint& point, double interactivity) const {
  scenario::ScenarioParams params = params_of(point);
  PointBound out;
  out.gpu = params.node.gpu.name;
  out.engine = params.deployment.engine;
  if (!params.disaggregation) return out;
  try {
    const scenario::BuiltScenario b = scenario::build_scenario(std::move(params));
    const std::optional<RateMatch> m = study::bound_before_run(b, interactivity);
    if (!m || !(m->tokens_per_s_per_gpu > 0.0)) return out;
    out.bound = m;
    out.unit_cost = planner::unit_cost_inputs(b.planning_unit_gpus(), b.params.node.gpu_count,
                                              b.price.per_gpu_used().value(), b.price.paid_per_used);
  } catch (const std::exception&) {
    // A point that does not build has no bound: it is simulated, and its line says why it failed.
  }
  return out;
}

std::optional<std::string> ScenarioEvaluator::serve_command(const nlohmann::json& assignments) const {
  std::vector<planner::Assignment> a;
  for (const auto& [key, value] : assignments.items()) a.push_back({key, YAML::Load(value.dump())});
  try {
    return scenario::serve_command(scenario::build_scenario(params_of(make_sweep_point(0, std::move(a)))));
  } catch (const scenario::InfeasibleScenario&) {
    return std::nullopt;
  }
}

namespace {

// HBM per GPU by term, GiB (the report's stacked bars).
void add_hbm_terms(const scenario::BuiltScenario& b, planner::PointMetrics& m) {
  const GpuFootprint& g = b.footprint.per_gpu;
  auto term = [&](const char* name, Bytes v) { m.hbm_footprint.push_back({name, v.gib()}); };
  term("weights", g.weights);
  term("engram", g.engram);
  term("activations", g.activation);
  term("reserve", g.reserved);
  term("engram_hot_cache", b.hbm_cache_per_gpu);
  term("kv_pool", g.kv_pool - b.hbm_cache_per_gpu);
  term("headroom", g.hbm_capacity - g.budget);
}

// Quantile samples of the finished requests' TTFT and TPOT (the report's CDFs).
void add_latency_samples(const sim::RunResult& r, std::size_t cdf_samples, planner::PointMetrics& m) {
  std::vector<double> ttft;
  std::vector<double> tpot;
  ttft.reserve(r.requests.size());
  for (const sim::RequestRecord& q : r.requests) {
    if (q.status != sim::RequestStatus::finished) continue;
    ttft.push_back((q.first_token - q.arrival).millis());
    if (q.generated_tokens > 1)
      tpot.push_back((q.finish - q.first_token).millis() / static_cast<double>(q.generated_tokens - 1));
  }
  m.ttft_samples_ms = planner::downsample_quantiles(std::move(ttft), cdf_samples);
  m.tpot_samples_ms = planner::downsample_quantiles(std::move(tpot), cdf_samples);
}

// The highest mean KV use of one time-series bin (RunConfig::timeseries_interval, 1 s unless the run
// had to coarsen its bins), averaged over replicas; NaN for a run without steps.
double peak_kv_usage(const sim::TimeSeries& ts) {
  double peak = kNaN;
  for (std::size_t i = 0; i < ts.bins().size(); ++i) {
    const double u = ts.kv_usage(i);
    if (std::isfinite(u) && !(u <= peak)) peak = u;
  }
  return peak;
}

// The summary metrics a sweep point carries (sim/metrics/summary_metrics.hpp `in_sweep`), under
// their summary.json keys.
void add_summary_metrics(const sim::Summary& s, nlohmann::json& extra) {
  for (const sim::MetricValue& v : sim::sweep_values(sim::summary_metrics(), s))
    extra[v.key] = v.integer ? nlohmann::json(static_cast<std::int64_t>(v.value)) : num(v.value);
}

// A disaggregated point's rate-matching bound (plan_bound.hpp) at the interactivity it ran at, with
// the workload's mean request as it ran, and the simulated throughput as a share of it (at most 1:
// the bound is optimistic).
nlohmann::json rate_match_json(const RateMatch& m, const sim::Summary& s) {
  return {{"requests_per_s", num(m.requests_per_s)},
          {"tok_per_s_per_gpu", num(m.tokens_per_s_per_gpu)},
          {"decode_batch", num(m.decode_batch)},
          {"limit", m.prefill_bound ? "prefill" : "decode"},
          {"simulated_share", num(m.tokens_per_s_per_gpu > 0.0 ? s.tput_per_gpu / m.tokens_per_s_per_gpu : kNaN)}};
}

// The deployment and run details the results file keeps beside the headline metrics; the KV figures
// are what the KV wall reads (planner/kv_wall.hpp, docs/planning.md "The KV wall").
nlohmann::json point_extra(const scenario::BuiltScenario& b, const sim::RunResult& r) {
  const sim::Summary& s = r.summary;
  const ParallelLayout& l = b.footprint.layout;
  nlohmann::json extra = {
      {"node", b.params.node.name},
      {"gpu", b.params.node.gpu.name},
      {"model", b.card.name},
      {"engine", b.params.deployment.engine},
      {"replicas", b.replicas},
      {"tp", l.tp},
      {"ep", l.ep},
      {"attention", b.footprint.dp_attention ? "data" : "tensor"},
      {"kv_blocks_per_replica", b.kv_blocks_per_replica},
      {"duration_s", num(s.duration_s)},
      {"tokens_per_request",
       num(s.completed > 0 ? static_cast<double>(s.total_input_tokens + s.total_output_tokens) / s.completed : kNaN)},
      {"itl_ms", {{"p50", num(s.itl.median)}, {"p99", num(s.itl.p99)}}},
      {"queue_ms", {{"p50", num(s.queue.median)}, {"p99", num(s.queue.p99)}}},
      {"peak_kv_usage", num(peak_kv_usage(r.timeseries))},
      {"engram_capacity_usd_per_gpu_hour", num(b.price.engram_capacity.value())},
      {"host_dram_engram_per_node_gib", num(b.footprint.per_node.host_dram_engram.gib())},
      {"ssd_engram_per_node_gib", num(b.footprint.per_node.ssd_engram.gib())},
      {"paid_gpus_per_used_gpu", num(b.price.paid_per_used)},
      {"gpus_per_node", b.params.node.gpu_count},
      {"host_memory_per_node_gib",
       {{"capacity", num(b.host_memory.capacity.gib())},
        {"reserve", num(b.host_memory.reserve.gib())},
        {"pinned_engram", num(b.host_memory.pinned_engram.gib())},
        {"dram_row_caches", num(b.host_memory.row_caches.gib())},
        {"kv_offload", num(b.host_memory.kv_offload_pools.gib())},
        {"page_cache_used", num(b.host_memory.page_cache_used.gib())},
        {"page_cache_capacity", num(b.host_memory.page_cache_capacity.gib())},
        {"rest", num(b.host_memory.rest().gib())}}},
  };
  add_summary_metrics(s, extra);
  if (const auto m = bound_of_run(b, s)) extra["rate_match"] = rate_match_json(*m, s);
  return extra;
}

// The calibration a point ran with: its profile and the sections applied or kept at defaults, as
// `run` lists them; absent without a profile.
void add_calibration(const scenario::BuiltScenario& b, nlohmann::json& extra) {
  if (!b.params.calibration) return;
  extra["calibration"] = {{"profile", b.params.calibration_path},
                          {"applied", b.calibration_applied.applied},
                          {"kept", b.calibration_applied.kept}};
}

// The energy figures of a point (docs/cost-model.md "Energy"): mean GPU board watts from its GPU's
// load-following curve, J per output token at the board and with node and facility; absent for a
// GPU without a curve.
void add_energy(const scenario::BuiltScenario& b, const sim::RunResult& r, nlohmann::json& extra) {
  const BoardPowerTable power = load_board_power(default_board_power_path());
  const BoardPowerCurve* c = power.find(b.params.node.gpu.name);
  if (c == nullptr) return;
  const sim::Summary& s = r.summary;
  const double w = board_watts(*c, s.gpu_busy_fraction, s.mean_decode_rows);
  const EnergyPerToken e =
      energy_per_output_token(w, s.num_gpus, s.duration_s, static_cast<double>(s.total_output_tokens), power.facility);
  extra["gpu_board_w"] = num(w);
  extra["joules_per_output_token_board"] = num(e.board_j);
  extra["joules_per_output_token_facility"] = num(e.facility_j);
}

}  // namespace

planner::PointMetrics point_metrics(const scenario::BuiltScenario& b, const sim::RunResult& r,
                                    std::size_t cdf_samples) {
  const sim::Summary& s = r.summary;
  planner::PointMetrics m;
  m.gpus = b.planning_unit_gpus();
  const bool agentic = b.run.workload.agentic.has_value();
  const bool closed = b.run.workload.concurrency > 0;
  m.concurrency = agentic  ? static_cast<double>(b.run.workload.agentic->replay.lanes)
                  : closed ? static_cast<double>(b.run.workload.concurrency)
                           : (std::isfinite(s.request_throughput) && std::isfinite(s.e2el.mean)
                                  ? s.request_throughput * s.e2el.mean / 1000.0
                                  : kNaN);
  m.request_rate = s.request_throughput;
  m.throughput_per_gpu = s.tput_per_gpu;
  m.output_throughput_per_gpu = s.output_tput_per_gpu;
  // Agentic runs: the dashboard's P90 E2E-normalised interactivity (docs/agentic.md "Metrics").
  m.interactivity = agentic ? s.p90_e2e_norm_intvty : s.median_intvty;
  m.ttft_ms = percentiles(s.ttft);
  m.tpot_ms = percentiles(s.tpot);
  m.e2e_ms = percentiles(s.e2el);
  m.gpu_hour_usd = b.price.gpu_hour.value();
  // Per GPU used, with the idle GPUs of whole nodes paid for and powered (core/cost_metrics.hpp).
  m.cost_per_gpu_hour_usd = b.price.per_gpu_used().value();
  m.power_kw_per_gpu = b.params.node.gpu.power_kw * b.price.paid_per_used;
  m.engram_tier = b.engram_label();
  m.engram_stall_share = s.engram_stall_share;

  add_hbm_terms(b, m);
  add_latency_samples(r, cdf_samples, m);
  m.extra = point_extra(b, r);
  add_calibration(b, m.extra);
  add_energy(b, r, m.extra);
  return m;
}

namespace {

// What the validation set says of the GPUs and engines a sweep runs, from the record the accuracy
// ratchet keeps (scenarios/validation/recorded-accuracy.yaml): one line per GPU and per engine in
// the assumptions, and a note naming those no validation case covers.
void add_validation_accuracy(const SweepInputs& in, planner::ReportContext& c) {
  const std::string source = "scenarios/validation/recorded-accuracy.yaml (engramsim validate-set)";
  validation::RecordedAccuracy rec;
  try {
    rec = validation::load_recorded_accuracy(validation::default_recorded_accuracy_path());
  } catch (const std::exception& e) {
    c.notes.push_back(std::string("The validation record could not be read (") + e.what() +
                      "): no configuration's accuracy is stated.");
    return;
  }
  std::string unvalidated;
  const auto add = [&](const char* what, const std::map<std::string, validation::RecordedGroup>& groups,
                       const std::string& name) {
    const auto acc = validation::validation_accuracy_for(groups, name);
    c.assumptions.push_back({std::string("validation accuracy, ") + what + " " + name,
                             acc ? *acc : "no validation case: predictions unchecked against measurements", source,
                             acc ? "derived" : "assumed"});
    if (!acc) unvalidated += (unvalidated.empty() ? "" : ", ") + std::string(what) + " " + name;
  };
  for (const auto& g : in.gpu_names) add("GPU", rec.by_gpu, g);
  for (const auto& e : in.engine_names) add("engine", rec.by_engine, e);
  for (const auto& [name, g] : rec.by_gpu) c.validation.by_gpu[name] = g.mape;
  for (const auto& [name, g] : rec.by_engine) c.validation.by_engine[name] = g.mape;
  for (const auto& [name, g] : rec.by_gpu_engine)
    c.validation.by_gpu_engine[name] = {g.cases, g.mape, g.lean, g.known_misses};
  if (const auto it = rec.mape.find(validation::MetricKind::serving_throughput); it != rec.mape.end())
    c.validation.serving_throughput = it->second;
  if (!unvalidated.empty())
    c.notes.push_back("No case of the validation set runs on " + unvalidated +
                      ": the predictions for configurations using them have no published measurement behind them "
                      "(docs/validation.md).");
}

}  // namespace

planner::ReportContext make_report_context(const PlannerScenario& sc, const SweepInputs& in) {
  planner::ReportContext c;
  c.title = sc.report.title;
  c.question = sc.report.question;
  c.scenario = sc.file;
  for (const auto& n : in.model_names) c.model_card += (c.model_card.empty() ? "" : ", ") + n;
  c.presets = in.node_names;
  for (const auto& p : in.calibration_paths) c.calibration_profile += (c.calibration_profile.empty() ? "" : ", ") + p;
  c.price_tier = in.price_tier;
  c.curve_axis = sc.report.curve_axis;
  c.target_interactivity = sc.report.target_interactivity;
  for (const auto& t : in.slo.targets) {
    if (t.metric == scenario::SloMetric::ttft && t.stat == scenario::SloStat::p99)
      c.slo.max_ttft_p99_ms = t.limit.millis();
    if (t.metric == scenario::SloMetric::tpot && t.stat == scenario::SloStat::p99)
      c.slo.max_tpot_p99_ms = t.limit.millis();
  }
  if (in.slo.min_interactivity > 0.0) c.slo.min_interactivity = in.slo.min_interactivity;

  // Provenance, from the tags of the catalog lines (docs/hardware.md) and the code's constants.
  auto& a = c.assumptions;
  a.push_back({"price tier", in.price_tier, "scenario price_tier", "assumed"});
  if (in.calibration_paths.empty()) {
    a.push_back(
        {"calibration", "none: datasheet peaks with the default efficiencies", "models/efficiency.hpp", "assumed"});
  }
  for (const auto& p : in.calibration_paths) a.push_back({"calibration profile", p, p, "measured"});
  for (std::size_t i = 0; i < in.model_paths.size(); ++i) {
    const auto figs =
        tagged_figures(in.model_paths[i], i < in.model_names.size() ? in.model_names[i] : "model",
                       {"engram.", "kv.", "spec_decode.", "precision.", "published_params", "num_layers"});
    a.insert(a.end(), figs.begin(), figs.end());
  }
  for (std::size_t i = 0; i < in.gpu_names.size(); ++i) {
    const auto figs = tagged_figures(resolve_catalog_path("hardware/gpus", in.gpu_names[i]), in.gpu_names[i],
                                     {"hbm_", "dense_flops.fp8", "dense_flops.fp4", "dense_flops.bf16",
                                      "host_link_bandwidth", "scale_up_bandwidth"});
    a.insert(a.end(), figs.begin(), figs.end());
  }
  for (std::size_t i = 0; i < in.node_paths.size(); ++i) {
    const auto figs =
        tagged_figures(in.node_paths[i], in.node_names[i],
                       {"host_dram", "host_link_latency", "topology.switch_uplink_bandwidth", "nvme.", "prices."});
    a.insert(a.end(), figs.begin(), figs.end());
  }
  for (std::size_t i = 0; i < in.engine_paths.size(); ++i) {
    const auto figs =
        tagged_figures(in.engine_paths[i], in.engine_names[i], {"per_step", "per_sequence", "engram_lookup"});
    a.insert(a.end(), figs.begin(), figs.end());
  }
  const RuntimeReserve r;
  a.push_back({"runtime reserve per GPU",
               fmt(r.driver_context.gib(), "%.2f") + " + " + fmt(r.library_workspace.gib(), "%.2f") + " + " +
                   fmt(r.graph_pool.gib(), "%.2f") + " + " + fmt(r.collectives.gib(), "%.2f") +
                   " GiB (context, workspaces, graph pool, collectives)",
               "models/footprint.hpp RuntimeReserve; docs/footprint.md", "assumed"});
  a.push_back({"Engram capacity cost", "host DRAM and NVMe capital / amortization life, per GPU",
               "scenario/build/scenario_build.hpp (price)", "derived"});
  add_validation_accuracy(in, c);
  return c;
}

std::vector<planner::InputFile> hash_input_files(const SweepInputs& in) {
  std::vector<planner::InputFile> out;
  for (const auto& [role, path] : in.files) out.push_back(planner::hash_input_file(role, path));
  std::sort(out.begin(), out.end(), [](const planner::InputFile& a, const planner::InputFile& b) {
    return std::tie(a.role, a.path) < std::tie(b.role, b.path);
  });
  return out;
}

std::string results_fingerprint(const planner::PreparedSweep& sweep, const std::string& what) {
  const std::uint64_t h = stable_hash(sweep.fingerprint + "\n" + what);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace engramsim::study
