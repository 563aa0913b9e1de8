#include "scenario/schema/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "core/paths.hpp"
#include "hardware/hardware_loader.hpp"
#include "hardware/price_file.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"
#include "scenario/schema/data_path.hpp"
#include "scenario/schema/deployment_schema.hpp"
#include "scenario/schema/disaggregation_schema.hpp"
#include "sim/serving/replica/builtin_registries.hpp"

namespace engramsim::scenario {
namespace {

// A time above zero.
Time slo_time(const ConfigNode& map, const std::string& key) {
  const ConfigNode v = map.child(key);
  const Time t = v.as_time();
  if (t <= Time::zero()) v.fail("must be > 0");
  return t;
}

void add_slo_bounds(FieldTable<ScenarioSlo>& t) {
  const auto bound = [&t](const char* key, std::optional<Time> sim::SloParams::*member, const char* what) {
    t.custom({key, "time > 0", std::string("the `") + key + "_p99` target, if any",
              std::string("per-request bound on ") + what + ": `request_goodput` counts requests within all bounds"},
             [key, member](const ConfigNode& m, ScenarioSlo& s) { s.per_request.*member = slo_time(m, key); });
  };
  bound("ttft", &sim::SloParams::ttft, "the time to first token");
  bound("tpot", &sim::SloParams::tpot, "the time per output token");
  bound("e2el", &sim::SloParams::e2el, "the end-to-end latency");
}

void add_slo_targets(FieldTable<ScenarioSlo>& t) {
  for (const auto& [metric, metric_name] : kSloMetricNames.entries) {
    for (const auto& [stat, stat_name] : kSloStatNames.entries) {
      const std::string key = std::string(metric_name) + "_" + stat_name;
      t.custom({key, "time > 0", "none", std::string("target on the run's ") + stat_name + " " + metric_name},
               [key, metric = metric, stat = stat](const ConfigNode& m, ScenarioSlo& s) {
                 s.targets.push_back({key, metric, stat, slo_time(m, key)});
               });
    }
  }
}

// The targets in the file's order; a p99 target stands in for a missing per-request bound.
void finish_slo(const ConfigNode& m, ScenarioSlo& s) {
  // The map's own key order (ConfigNode::keys() would mark every key read, unknown ones too).
  std::vector<std::string> order;
  for (const auto& kv : m.raw()) order.push_back(kv.first.Scalar());
  const auto position = [&order](const SloTarget& g) { return std::find(order.begin(), order.end(), g.key); };
  std::stable_sort(s.targets.begin(), s.targets.end(),
                   [&](const SloTarget& a, const SloTarget& b) { return position(a) < position(b); });
  for (const SloTarget& g : s.targets) {
    if (g.stat != SloStat::p99) continue;
    if (g.metric == SloMetric::ttft && !s.per_request.ttft) s.per_request.ttft = g.limit;
    if (g.metric == SloMetric::tpot && !s.per_request.tpot) s.per_request.tpot = g.limit;
    if (g.metric == SloMetric::e2el && !s.per_request.e2el) s.per_request.e2el = g.limit;
  }
}

ScenarioSlo parse_slo_section(const ConfigNode& s) {
  ScenarioSlo out;
  if (!s.is_map()) s.finish();  // "expected a map"
  slo_schema().read(s, out);
  s.finish();
  return out;
}

// ---- the top level ----

const CalibrationCandidate* chosen_by_gpu(const ScenarioDraft& o) {
  const auto* candidates = o.options->calibrations_by_gpu;
  return candidates != nullptr ? choose_calibration(*candidates, o.p.node.gpu.name) : nullptr;
}

// A profile given on the command line replaces the file's `calibration:`, which is then not read.
bool calibration_overridden(const ScenarioDraft& o) {
  return chosen_by_gpu(o) != nullptr || !o.options->calibration.empty();
}

void read_calibration_key(const ConfigNode& root, ScenarioDraft& o) {
  if (calibration_overridden(o)) return root.ignore("calibration");
  o.p.calibration_path = resolve_data_path(root, root.str("calibration"));
  if (const std::string why = ConfigNode::file_problem(o.p.calibration_path); !why.empty())
    root.fail_key("calibration", o.p.calibration_path + ": " + why);
}

// The profile in force (the command line's, else the file's) loaded and checked against the GPU.
void load_calibration(const ConfigNode& root, ScenarioDraft& o) {
  ScenarioParams& p = o.p;
  const ScenarioParseOptions& options = *o.options;
  if (const CalibrationCandidate* by_gpu = chosen_by_gpu(o)) {
    p.calibration_path = by_gpu->path;
    p.calibration = by_gpu->profile;
    return;
  }
  if (!options.calibration.empty()) {
    p.calibration_path = options.calibration;
    if (const std::string why = ConfigNode::file_problem(p.calibration_path); !why.empty())
      throw ConfigError({"--calibration", 0, 0}, "", p.calibration_path + ": " + why);
  }
  if (p.calibration_path.empty()) return;
  p.calibration = load_calibration_profile(p.calibration_path);
  const ProfileMatch match = check_profile_matches(*p.calibration, p.node.gpu.name);
  if (match.severity != MatchSeverity::error) return;
  if (options.calibration.empty()) root.fail_key("calibration", match.message);
  throw ConfigError({"--calibration", 0, 0}, "calibration", match.message);
}

// A prefill pool on another GPU than the decode pool's runs under the same profile, which must
// describe its GPU too.
void check_calibration_covers_prefill(const ConfigNode& root, const ScenarioDraft& o) {
  const ScenarioParams& p = o.p;
  if (!p.calibration || !p.disaggregation) return;
  const std::string& gpu = p.disaggregation->prefill.node.gpu.name;
  if (gpu == p.node.gpu.name) return;
  const ProfileMatch match = check_profile_matches(*p.calibration, gpu);
  if (match.severity != MatchSeverity::error) return;
  const std::string msg = match.message + " (the prefill pool's GPU; the decode pool runs on " + p.node.gpu.name + ")";
  if (root.has("calibration") && !calibration_overridden(o)) root.fail_key("calibration", msg);
  throw ConfigError({"--calibration", 0, 0}, "calibration", msg);
}

// A user's price file replaces the node's GPU-hour prices (hardware/price_file.hpp).
void read_prices(const ConfigNode& root, ScenarioDraft& o) {
  ScenarioParams& p = o.p;
  p.prices_path = resolve_data_path(root, root.str("prices"));
  if (const std::string why = ConfigNode::file_problem(p.prices_path); !why.empty())
    root.fail_key("prices", p.prices_path + ": " + why);
  p.node = apply_price_file(load_price_file(p.prices_path), std::move(p.node), p.price_tier);
}

void add_identity_keys(FieldTable<ScenarioDraft>& t) {
  t.text(
       "name", [](auto& o) -> auto& { return o.p.name; }, "names the run in reports and goldens")
      .required();
  t.any_text(
      "description", [](auto& o) -> auto& { return o.p.description; }, "one line shown above the results");
  t.integer(
      "seed", [](auto& o) -> auto& { return o.p.seed; }, 0, std::numeric_limits<std::int64_t>::max(),
      "every random stream of the run derives from it (same seed -> identical files)");
}

void add_hardware_keys(FieldTable<ScenarioDraft>& t) {
  t.custom({"model", "card name or path", "required", "`models/cards/NAME.yaml`"}, [](const ConfigNode& root,
                                                                                      ScenarioDraft& o) {
     o.p.model_path = resolve_catalog_entry(root, "model", "models/cards", "model card");
     o.p.card = load_model_card(o.p.model_path);
   }).required();
  t.custom({"node", "node name or path", "required", "`hardware/nodes/NAME.yaml` (its GPU comes with it)"},
           [](const ConfigNode& root, ScenarioDraft& o) {
             o.p.node_path = resolve_catalog_entry(root, "node", "hardware/nodes", "node preset");
             o.p.node = load_node(o.p.node_path);
           })
      .required();
  t.custom({"calibration", "path", "none",
            "a calibration profile (docs/calibration.md); the measured sections the step model takes as inputs "
            "replace its defaults (docs/cost-model.md §3 lists them); `--calibration FILE` replaces it. `run` lists "
            "each section as measured, not measured (with the reason) or default, then what it applied and which "
            "measured sections are references only. A profile whose GPU sections describe another GPU is an error."},
           read_calibration_key);
  t.choice(
      "price_tier", [](auto& o) -> auto& { return o.p.price_tier; }, kPriceTierNames.choices(),
      "which of the node's GPU-hour prices to charge");
  t.custom({"prices", "path", "none",
            "a price file (hardware/price_file.hpp) whose GPU-hour prices replace the node's, beside the scenario "
            "then under the data root"},
           read_prices);
}

// A generated AgentX corpus compacts its contexts at the deployment's max_model_len.
void read_workload(const ConfigNode& root, ScenarioDraft& o) {
  const ScenarioParams& p = o.p;
  const std::int64_t card_len = p.card.max_context > 0 ? p.card.max_context : kDefaultAgentxModelLen;
  const std::int64_t model_len = p.deployment.max_model_len > 0 ? p.deployment.max_model_len : card_len;
  o.p.workload = parse_scenario_workload(root.child("workload"), model_len);
}

// A disaggregated deployment: the decode pool takes the place of the one deployment (its node that
// of the scenario's), the prefill pool and the transfer go beside it.
void use_disaggregated(DisaggregationDraft g, ScenarioParams& p) {
  if (g.prefill.node_path.empty()) g.prefill.node_path = p.node_path;
  p.deployment = std::move(g.decode.deployment);
  if (!g.decode.node_path.empty()) {
    p.node = std::move(g.decode.node);
    p.node_path = std::move(g.decode.node_path);
  }
  p.disaggregation = ScenarioDisaggregation{std::move(g.prefill), g.kv_transfer};
}

void read_deployment(const ConfigNode& root, ScenarioDraft& o) {
  const ConfigNode d = root.child("deployment");
  const DeploymentInputs in{&o.p.card, &o.p.node, o.schedulers, o.routers, o.p.prices_path, o.p.price_tier};
  if (deployment_kind(d) == DeploymentKind::colocated) {
    o.p.deployment = parse_deployment(d, in);
    return;
  }
  use_disaggregated(parse_disaggregated_deployment(d, in), o.p);
}

void add_top_section_keys(FieldTable<ScenarioDraft>& t) {
  t.custom({"deployment", "map", "required", "below"}, read_deployment).required();
  t.custom({"fabric", "map", "none", "the in-run Engram tier's node fabric (docs/memory-tiers.md)"},
           [](const ConfigNode& root, ScenarioDraft& o) {
             parse_fabric_section(root.child("fabric"), o.p.deployment.engram.in_run);
           });
  t.custom({"kv_offload", "map", "none",
            "KV of preempted sequences to host DRAM and back, on the in-run tier's "
            "fabric (docs/memory-tiers.md)"},
           [](const ConfigNode& root, ScenarioDraft& o) {
             parse_kv_offload_section(root.child("kv_offload"), o.p.deployment.engram.in_run);
           });
  t.custom({"workload", "map", "required", "below"}, read_workload).required();
  t.custom({"slo", "map", "none", "below"},
           [](const ConfigNode& root, ScenarioDraft& o) { o.p.slo = parse_slo_section(root.child("slo")); });
}

// A simulated year bounds the run keys: a longer horizon or bin is a unit slip.
void add_run_keys(FieldTable<ScenarioDraft>& t) {
  const Time year = Time::ns(365LL * 86400 * 1000000000);
  t.time(
       "horizon", [](auto& o) -> auto& { return o.p.horizon; }, Time::ns(1), year,
       "stop the run at this simulated time; requests still in flight are reported `unfinished`")
      .default_words("unbounded");
  // A bin shorter than a few scheduler steps says nothing a finer one would not, and a run of hours
  // would need millions of them.
  t.time(
      "timeseries_interval", [](auto& o) -> auto& { return o.p.timeseries_interval; }, Time::ms(10), year,
      "bin width of `timeseries.csv`; a run longer than 2,000,000 bins doubles it (merging bin pairs) as often as "
      "needed, and the CSV's times follow");
  // Passed through: `compare:` is expanded by scenario_document.hpp, `sweep:` by engramsim sweep.
  t.custom({"compare", "list", "none", "named variants, below"},
           [](const ConfigNode& root, ScenarioDraft&) { root.ignore("compare"); });
  t.custom({"sweep", "map", "none",
            "read by `engramsim sweep` only (docs/planning.md); `run` and `validate` pass it through untouched"},
           [](const ConfigNode& root, ScenarioDraft&) { root.ignore("sweep"); });
}

}  // namespace

const FieldTable<ScenarioSlo>& slo_schema() {
  static const FieldTable<ScenarioSlo> table = [] {
    FieldTable<ScenarioSlo> t("slo");
    add_slo_bounds(t);
    add_slo_targets(t);
    t.custom({"min_interactivity", "number > 0", "none", "target on 1000 / median TPOT, tokens/s per user"},
             [](const ConfigNode& m, ScenarioSlo& s) {
               const ConfigNode v = m.child("min_interactivity");
               s.min_interactivity = v.as_number();
               if (!(s.min_interactivity > 0.0)) v.fail("must be > 0 (tokens/s per user)");
             });
    t.rule(finish_slo);
    return t;
  }();
  return table;
}

FieldTable<ScenarioDraft> scenario_schema() {
  FieldTable<ScenarioDraft> t("scenario");
  add_identity_keys(t);
  add_hardware_keys(t);
  add_top_section_keys(t);
  add_run_keys(t);
  return t;
}

ScenarioDeployment parse_deployment_section(const ConfigNode& d, const ModelCard& card, const NodeSpec& node) {
  const sim::RegistryChoice registries(nullptr, nullptr);
  return parse_deployment(d, {&card, &node, registries.schedulers, registries.routers});
}

std::int64_t ConcurrencyRule::apply(std::int64_t concurrency) const {
  double v = std::ceil(per_concurrency * static_cast<double>(concurrency) - 1e-9);
  if (power_of_two) v = std::exp2(std::ceil(std::log2(std::max(1.0, v))));
  const double clamped = std::clamp(v, static_cast<double>(min), static_cast<double>(max));
  return static_cast<std::int64_t>(clamped);
}

std::vector<std::int32_t> vllm_capture_sizes(std::int64_t max_tokens, int draft_tokens) {
  std::vector<std::int64_t> tokens;
  for (std::int64_t t : {1, 2, 4})
    if (t <= max_tokens) tokens.push_back(t);
  for (std::int64_t t = 8; t < 256 && t <= max_tokens; t += 8) tokens.push_back(t);
  for (std::int64_t t = 256; t <= max_tokens; t += 16) tokens.push_back(t);
  const std::int64_t per_seq = 1 + std::max(0, draft_tokens);
  std::vector<std::int32_t> seqs;
  for (const std::int64_t t : tokens) {
    const auto n = static_cast<std::int32_t>(t / per_seq);
    if (n >= 1 && (seqs.empty() || seqs.back() != n)) seqs.push_back(n);
  }
  return seqs;
}

void resolve_concurrency_limits(ScenarioDeployment& d, std::int64_t concurrency) {
  ScenarioScheduler& s = d.scheduler;
  for (const auto* rule : {&s.max_num_seqs_rule, &s.capture_size_rule}) {
    if (*rule && concurrency <= 0)
      throw ConfigError((*rule)->where, (*rule)->field,
                        "a limit derived from workload.concurrency needs a workload with a concurrency "
                        "(closed_loop, agentx, or a trace replayed in closed loop)");
  }
  if (s.max_num_seqs_rule) s.policy.max_num_seqs = static_cast<std::int32_t>(s.max_num_seqs_rule->apply(concurrency));
  if (s.capture_size_rule) s.max_cudagraph_capture_size = s.capture_size_rule->apply(concurrency);
  if (s.max_cudagraph_capture_size > 0)
    s.cuda_graph_batch_sizes =
        vllm_capture_sizes(s.max_cudagraph_capture_size, d.spec_decode.enabled ? d.spec_decode.draft_tokens : 0);
}

// A disaggregated deployment's pools and KV transfers share the cluster's fabric: its backend is
// kv_transfer.backend and the pools' packing places the GPUs, so the one-node sections say nothing.
void check_no_node_fabric_sections(const ConfigNode& root) {
  if (root.has("fabric"))
    root.fail_key("fabric",
                  "with kind: disaggregated the pools share the cluster fabric: set its backend with "
                  "deployment.kv_transfer.backend (the pools' packing places the GPUs)");
  if (root.has("kv_offload"))
    root.fail_key("kv_offload", "KV offload traffic is not modelled with kind: disaggregated");
}

ScenarioParams parse_scenario(const ConfigNode& root, const ScenarioParseOptions& options) {
  if (!root.is_map()) root.fail("a scenario file must be a map");
  const sim::RegistryChoice registries(options.schedulers, options.routers);
  ScenarioDraft draft{{}, &options, registries.schedulers, registries.routers};
  draft.p.file = root.file();
  static const FieldTable<ScenarioDraft> schema = scenario_schema();
  schema.read(root, draft);
  ScenarioParams& p = draft.p;
  load_calibration(root, draft);
  check_calibration_covers_prefill(root, draft);
  const auto& engram_tier = p.deployment.engram.tier;
  check_in_run_tier(root, engram_tier && *engram_tier != EngramTier::hbm, p.deployment.engram.in_run);
  if (p.disaggregation) check_no_node_fabric_sections(root);
  const auto& ws = p.workload.spec;
  const std::int64_t concurrency = ws.agentic ? ws.agentic->replay.lanes : ws.concurrency;
  resolve_concurrency_limits(p.deployment, concurrency);
  if (p.disaggregation) resolve_concurrency_limits(p.disaggregation->prefill.deployment, concurrency);
  root.finish();
  return std::move(draft.p);
}

double slo_statistic_ms(const SloTarget& t, const sim::Summary& s) {
  const sim::LatencySummary& l = t.metric == SloMetric::ttft   ? s.ttft
                                 : t.metric == SloMetric::tpot ? s.tpot
                                 : t.metric == SloMetric::itl  ? s.itl
                                                               : s.e2el;
  switch (t.stat) {
    case SloStat::p50:
      return l.median;
    case SloStat::p90:
      return l.p90;
    case SloStat::p99:
      return l.p99;
    case SloStat::mean:
      return l.mean;
  }
  return l.mean;
}

void read_trace_through(const ScenarioParams& p) {
  if (p.workload.kind == WorkloadKind::agentx) {
    if (p.workload.trace_path.empty()) return;  // a generated corpus
    const auto sessions = p.workload.spec.agentic->sessions(p.seed);
    sim::AgenticSession s;
    while (sessions->next(s)) {
    }
    return;
  }
  if (p.workload.kind != WorkloadKind::trace) return;
  const auto source = p.workload.spec.source(p.seed);
  sim::Request r;
  for (std::uint64_t n = 0; n < p.workload.spec.max_requests && source->next(r); ++n) {
  }
}

bool slo_target_met(const SloTarget& t, const sim::Summary& s) {
  const double v = slo_statistic_ms(t, s);
  return std::isfinite(v) && v <= t.limit.millis();
}

}  // namespace engramsim::scenario
