#include "validation/validation_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

#include "core/parallel_for.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/calibration_apply.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"
#include "scenario/build/scenario_build.hpp"
#include "scenario/schema/scenario.hpp"
#include "sim/run/run_simulation.hpp"
#include "validation/pool_step_model.hpp"

namespace engramsim::validation {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// ---------------------------------------------------------------------------------------------
// Step cases

double evaluate_step(const ValidationCase& c, const EvalOptions& options, std::string& detail,
                     std::string& calibration) {
  const StepReproduction& r = *c.step;
  ModelCard card = load_model_card(r.model);
  r.precision.apply(card);
  if (!r.spec_decode) card.spec_decode = SpecDecodeSpec{};
  const bool spec = card.spec_decode.kind != SpecDecodeKind::none && card.spec_decode.draft_tokens > 0;
  const NodeSpec node = load_node(r.node);

  RooflineOptions o;
  o.layout = ParallelLayout{r.tp, r.ep, r.dp_attention};
  o.layout.expert_balance = r.expert_balance;
  o.host = load_engine(r.engine);
  if (const CalibrationCandidate* cal = calibration_for(options, node)) {
    try {
      apply_calibration_profile(cal->profile, node, o);
    } catch (const std::invalid_argument& e) {
      throw ConfigError({cal->path, 0, 0}, "calibration", e.what());
    }
    calibration = cal->path;
  }
  std::unique_ptr<RooflineStepModel> model;
  try {
    model = std::make_unique<RooflineStepModel>(card, node, o);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(c.where, c.id + ".reproduce.step", e.what());
  }

  const int positions = spec ? 1 + card.spec_decode.draft_tokens : 1;
  const std::vector<DecodeSeq> decode(static_cast<std::size_t>(r.decode_seqs), DecodeSeq{r.decode_context, positions});
  const std::vector<PrefillChunk> prefill(static_cast<std::size_t>(r.prefill_chunks),
                                          PrefillChunk{r.prefill_tokens, r.prefill_cached});
  const BatchShape batch{prefill, decode};

  detail = card.name + " on " + node.name + ", TP" + std::to_string(r.tp) +
           (r.ep > 1 ? " EP" + std::to_string(r.ep) : "") + (r.dp_attention ? " DP-attention" : "") + ", " + r.engine;
  if (r.decode_seqs > 0)
    detail += ", " + std::to_string(r.decode_seqs) + " decode x ctx " + std::to_string(r.decode_context);
  if (r.prefill_chunks > 0)
    detail += ", " + std::to_string(r.prefill_chunks) + " prefill x " + std::to_string(r.prefill_tokens);
  if (r.precision.any()) detail += ", " + r.precision.describe();

  if (!r.ops.empty()) {
    const StepBreakdown b = model->breakdown(batch);
    double sum = 0.0;
    std::vector<bool> seen(r.ops.size(), false);
    for (const OpReport& op : b.ops) {
      if (op.layer != r.layer) continue;
      for (std::size_t i = 0; i < r.ops.size(); ++i)
        if (op.name == r.ops[i]) {
          sum += op.total.seconds();
          seen[i] = true;
        }
    }
    for (std::size_t i = 0; i < r.ops.size(); ++i)
      if (!seen[i])
        throw ConfigError(c.where, c.id + ".reproduce.step.ops",
                          "op '" + r.ops[i] + "' does not run in layer " + std::to_string(r.layer) + " of this batch");
    detail += ", layer " + std::to_string(r.layer) + " ops";
    return sum;
  }

  const StepBreakdown b = model->breakdown(batch);
  const double step_s = b.cost.total.seconds();
  // Where the step goes, for the report: collectives (EP all-to-all, TP all-reduce) vs the rest.
  double network_s = 0.0;
  for (const OpReport& op : b.ops)
    if (op.cost.bound == Bound::network) network_s += op.total.seconds();
  detail += "; step " + fmt("%.4g", step_s * 1e3) + " ms, collectives " + fmt("%.0f", 100.0 * network_s / step_s) +
            "%, host " + fmt("%.0f", 100.0 * b.cost.host_overhead.seconds() / step_s) + "%";
  if (c.metric == "decode_step_time_s" || c.metric == "prefill_step_time_s") return step_s;
  const double gpus = r.tp;
  if (c.metric == "input_tput_per_node")
    return static_cast<double>(r.prefill_chunks) * r.prefill_tokens / gpus / step_s * node.gpu_count;
  if (c.metric == "output_tput_per_node") {
    const double accept = spec ? card.spec_decode.acceptance_length : 1.0;
    return r.decode_seqs * accept / gpus / step_s * node.gpu_count;
  }
  throw ConfigError(c.where, c.id + ".metric", "no step-level evaluation for " + c.metric);
}

// ---------------------------------------------------------------------------------------------
// Serving cases

// Tokens per second of the requests that finish while the load lasts (Span::loaded).
struct LoadedRates {
  double input = 0.0;   // prompt tokens
  double output = 0.0;  // output tokens
};

struct ServingRun {
  sim::Summary summary;
  int gpus_per_node = 0;  // the decode pool's node under kind disaggregated
  int prefill_gpus_per_node = 0;
  std::optional<LoadedRates> loaded;  // set when a case reads the loaded span
  std::string engine;
  std::string detail;
  std::string calibration;
  double wall_s = 0.0;
  std::string error;
};

std::string run_key(const ServingReproduction& r, const std::string& variant) {
  std::string k = r.scenario + "|" + variant + "|" + to_string(r.pool) + "|" + to_string(r.span) + "|" +
                  r.precision.describe() + "|" + fmt("%.6g", r.target_interactivity);
  for (const auto& s : r.set) k += "|" + s.key + "=" + s.value;
  return k;
}

// Mean decode context of the workload's requests (prompt + half the output), from the source itself.
double mean_decode_context(const scenario::ScenarioParams& p) {
  auto src = p.workload.spec.source(p.seed);
  double sum = 0.0;
  int n = 0;
  sim::Request req;
  while (n < 4096 && src->next(req)) {
    sum += req.prompt_tokens + 0.5 * req.output_tokens;
    ++n;
  }
  if (n == 0) throw std::runtime_error("the workload produced no requests");
  return sum / n;
}

// Largest decode batch (per replica) whose step still gives `target` tokens/s per user.
std::int32_t concurrency_for_interactivity(const StepTimeModel& model, double context, double target, int ranks) {
  const auto rate = [&](std::int64_t seqs) {
    const std::vector<DecodeSeq> d(static_cast<std::size_t>(seqs), DecodeSeq{static_cast<std::int32_t>(context), 1});
    return 1.0 / model.step(BatchShape{{}, d}).total.seconds();
  };
  std::int64_t lo = ranks;  // one sequence per rank
  if (rate(lo) < target) return static_cast<std::int32_t>(lo);
  std::int64_t hi = lo;
  while (rate(hi) >= target && hi < (std::int64_t{1} << 22)) hi *= 2;
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) / 2;
    (rate(mid) >= target ? lo : hi) = mid;
  }
  return static_cast<std::int32_t>(lo);
}

// The loaded span: from the first measured arrival to the last arrival, while every client of a
// closed loop keeps a request in flight (each finish is followed by an arrival at the same time), so
// the requests that finish within it leave at the steady rate, free of the ramp before it and the
// drain after it. Throws when the span is empty or no request finishes within it.
LoadedRates loaded_rates(const std::vector<sim::RequestRecord>& records) {
  Time first = Time::max();
  Time last;
  for (const sim::RequestRecord& rec : records) {
    if (rec.measured) first = std::min(first, rec.arrival);
    last = std::max(last, rec.arrival);
  }
  if (first == Time::max() || !(first < last))
    throw std::runtime_error("the loaded span is empty: no measured request arrives before the last arrival");
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t finished = 0;
  for (const sim::RequestRecord& rec : records) {
    if (rec.status != sim::RequestStatus::finished || !(first < rec.finish) || last < rec.finish) continue;
    input += rec.prompt_tokens;
    output += rec.generated_tokens;
    ++finished;
  }
  if (finished == 0) throw std::runtime_error("no request finishes within the loaded span");
  const double span_s = (last - first).seconds();
  return {static_cast<double>(input) / span_s, static_cast<double>(output) / span_s};
}

ServingRun run_serving(const ServingReproduction& r, const std::string& variant, const EvalOptions& options) {
  ServingRun out;
  const double t0 = wall_now();
  const scenario::ScenarioDocument doc = scenario::read_scenario_document(r.scenario);
  std::vector<scenario::ScenarioVariant> variants = scenario::expand_scenario(doc, r.set);
  const scenario::ScenarioVariant* chosen = nullptr;
  for (const auto& v : variants)
    if (v.name == variant) chosen = &v;
  if (!chosen) {
    std::string names;
    for (const auto& v : variants) names += (names.empty() ? "" : ", ") + (v.name.empty() ? "(none)" : v.name);
    throw ConfigError({r.scenario, 0, 0}, "compare", "no variant '" + variant + "' (variants: " + names + ")");
  }
  scenario::ScenarioParams p = scenario::parse_scenario(ConfigNode(chosen->root, doc.file, ""));
  if (p.calibration)
    throw ConfigError({r.scenario, 0, 0}, "calibration",
                      "validation runs use the default efficiencies or --calibration; remove the scenario's "
                      "calibration profile");
  if (const CalibrationCandidate* cal = calibration_for(options, p.node)) {
    p.calibration = cal->profile;
    p.calibration_path = cal->path;
    out.calibration = cal->path;
  }
  r.precision.apply(p.card);
  out.engine = p.deployment.engine;
  // Measured requests per client (at least one), for a concurrency found below.
  const std::uint64_t waves =
      p.workload.spec.concurrency > 0 && p.workload.spec.max_requests != UINT64_MAX
          ? std::max<std::uint64_t>(1, (p.workload.spec.max_requests - p.workload.spec.warmup_requests) /
                                           static_cast<std::uint64_t>(p.workload.spec.concurrency))
          : 1;
  const double context = r.target_interactivity > 0 ? mean_decode_context(p) : 0.0;
  scenario::BuiltScenario b = scenario::build_scenario(std::move(p));

  // A disaggregated scenario runs whole: its decode pool pays for the prompts it admits, so no
  // pool stands in for it.
  const bool whole = b.run.disaggregation.has_value();
  std::unique_ptr<DecodePoolStepModel> pool;
  if (r.pool == Pool::decode && !whole) {
    pool = std::make_unique<DecodePoolStepModel>(*b.step_memo);
    for (auto& rep : b.run.replicas) rep.step_model = pool.get();
  }
  if (r.target_interactivity > 0) {
    if (b.run.workload.concurrency <= 0)
      throw ConfigError({r.scenario, 0, 0}, "workload", "target_interactivity needs a closed loop");
    const std::int32_t per_replica =
        concurrency_for_interactivity(*b.step_memo, context, r.target_interactivity, b.scheduler_ranks);
    std::int32_t clients = per_replica * static_cast<std::int32_t>(b.replicas);
    if (whole) {
      // The batch is the decode pool's limit; the clients beyond it wait in or behind the prefill pool.
      b.run.scheduler.max_num_seqs = per_replica;
      const auto& d = *b.run.disaggregation;
      clients += d.prefill_scheduler.max_num_seqs * static_cast<std::int32_t>(d.prefill_replicas.size());
    }
    // Warm-up and measured requests keep their number per client; the scenario's source sends no
    // more than it was written for.
    const double warmup_waves = static_cast<double>(b.run.workload.warmup_requests) / b.run.workload.concurrency;
    const auto warmup = static_cast<std::uint64_t>(std::llround(warmup_waves * clients));
    const std::uint64_t requests = warmup + waves * static_cast<std::uint64_t>(clients);
    if (requests > b.run.workload.max_requests)
      throw ConfigError({r.scenario, 0, 0}, "workload.concurrency",
                        "target_interactivity needs " + std::to_string(clients) + " clients, more than the " +
                            std::to_string(b.run.workload.concurrency) +
                            " the scenario's requests were written for: raise workload.concurrency and its requests");
    b.run.workload.concurrency = clients;
    b.run.workload.warmup_requests = warmup;
    b.run.workload.max_requests = requests;
    out.detail += "concurrency " + std::to_string(clients) +
                  (whole ? ", decode batch " + std::to_string(per_replica) : "") + " for " +
                  fmt("%.1f", r.target_interactivity) + " tok/s/user at mean context " + fmt("%.0f", context) + "; ";
  }
  const sim::RunResult result = sim::run_simulation(b.run);
  out.summary = result.summary;
  out.gpus_per_node = b.params.node.gpu_count;
  out.prefill_gpus_per_node = b.prefill_pool ? b.prefill_pool->params.node.gpu_count : b.params.node.gpu_count;
  if (r.span == Span::loaded) out.loaded = loaded_rates(result.requests);
  // A disaggregated deployment: both pools and the KV transfer ("prefill: ...; decode: ...; KV transfer: ...").
  std::string deployment;
  for (const std::string& line : b.deployment_lines()) deployment += (deployment.empty() ? "" : "; ") + line;
  out.detail += b.card.name + ": " + deployment + "; " + b.params.workload.description;
  if (r.pool != Pool::colocated) out.detail += std::string("; ") + to_string(r.pool) + " pool";
  if (r.precision.any()) out.detail += "; " + r.precision.describe();
  out.detail += "; " + std::to_string(result.summary.completed) + " requests, " +
                fmt("%.1f", result.summary.duration_s) + " s simulated";
  out.wall_s = wall_now() - t0;
  return out;
}

// Input and output tokens per second per GPU, over the span and the GPUs the case reads: the
// summary's measured span or the loaded one; all GPUs of the run, or under kind disaggregated with
// `pool:` given, the prefill pool's for input and the decode pool's for output.
struct PerGpuRates {
  double input = 0.0;
  double output = 0.0;
  double total = 0.0;
};

PerGpuRates per_gpu_rates(const ValidationCase& c, const ServingRun& run) {
  const sim::Summary& s = run.summary;
  const double gpus = s.num_gpus;
  const bool by_pool = s.disaggregated && c.serving->pool != Pool::colocated;
  const double input_gpus = by_pool ? s.prefill_gpus : gpus;
  const double output_gpus = by_pool ? s.decode_gpus : gpus;
  if (c.serving->span == Span::loaded) {
    const LoadedRates& l = *run.loaded;
    return {l.input / input_gpus, l.output / output_gpus, (l.input + l.output) / gpus};
  }
  if (by_pool) return {s.input_throughput / input_gpus, s.output_throughput / output_gpus, s.tput_per_gpu};
  return {s.input_tput_per_gpu, s.output_tput_per_gpu, s.tput_per_gpu};
}

double serving_metric(const ValidationCase& c, const ServingRun& run, const ServingRun* base) {
  const sim::Summary& s = run.summary;
  const double keep = 1.0 - c.serving->cached_input_fraction;
  const std::string& m = c.metric;
  const PerGpuRates rate = per_gpu_rates(c, run);
  const bool by_pool = s.disaggregated && c.serving->pool != Pool::colocated;
  if (m == "output_tput_per_gpu") return rate.output;
  if (m == "input_tput_per_gpu") return rate.input / keep;
  if (m == "total_tput_per_gpu") return rate.total;
  if (m == "input_tput_per_node") return rate.input / keep * (by_pool ? run.prefill_gpus_per_node : run.gpus_per_node);
  if (m == "output_tput_per_node") return rate.output * run.gpus_per_node;
  if (m == "total_tokens_per_dollar") return s.tokens_per_dollar;
  if (m == "mean_ttft_ms") return s.ttft.mean;
  if (m == "mean_tpot_ms") return s.tpot.mean;
  if (m == "mean_input_per_request")
    return static_cast<double>(s.total_input_tokens) / static_cast<double>(s.completed);
  if (m == "prefix_hit_rate") return s.prefix_cache_hit_rate;
  if (!base)
    throw ConfigError(c.where, c.id + ".reproduce.serving.baseline",
                      c.metric + " compares two runs: give baseline or baseline_set");
  if (m == "throughput_penalty_pct")
    return (base->summary.output_tput_per_gpu - s.output_tput_per_gpu) / base->summary.output_tput_per_gpu * 100.0;
  if (m == "tput_ratio_hbm_over_dram" || m == "tput_ratio_over_baseline")
    return s.tput_per_gpu / base->summary.tput_per_gpu;
  if (m == "p50_tpot_ratio_over_baseline") return s.tpot.median / base->summary.tpot.median;
  throw ConfigError(c.where, c.id + ".metric", "no serving-level evaluation for " + c.metric);
}

double evaluate_footprint(const ValidationCase& c, std::string& detail) {
  const FootprintReproduction& f = *c.footprint;
  const ModelCard card = load_model_card(f.model);
  const NodeSpec node = load_node(f.node);
  FootprintOptions o;
  o.tp = f.tp;
  o.ep = f.ep;
  o.attention = f.dp_attention ? AttentionParallel::data : AttentionParallel::tensor;
  o.engram_tier = engram_tier_from_string(f.tier).value_or(EngramTier::dram);  // `none`: no Engram module, below
  o.max_num_batched_tokens = f.max_num_batched_tokens;
  o.max_num_seqs = f.max_num_seqs;
  o.max_model_len = f.max_model_len;
  o.gpu_memory_utilization = f.gpu_memory_utilization;
  o.block_size = f.block_size;
  o.engine_memory = load_engine(f.engine).memory;
  o.cuda_graph_capture_tokens = f.max_cudagraph_capture_size;
  ModelCard effective = card;
  if (f.tier == "none") effective.engram.reset();
  const Footprint fp = compute_footprint(effective, node, o);
  detail = card.name + " TP" + std::to_string(f.tp) + " EP" + std::to_string(f.ep) + " on " + node.name + " (Engram " +
           f.tier + "): weights " + fmt("%.1f", fp.per_gpu.weights.gib()) + " GiB, KV pool " +
           fmt("%.1f", fp.per_gpu.kv_pool.gib()) + " GiB per GPU" + (fp.feasible ? "" : "; " + fp.infeasible_reason);
  if (c.metric == "kv_gib_per_gpu") return fp.per_gpu.kv_pool.gib();
  if (c.metric == "weights_gib_per_gpu") return fp.per_gpu.weights.gib();
  if (c.metric == "kv_tokens_engine_logged") return static_cast<double>(fp.engine_logged_kv_tokens);
  return fp.feasible ? 1.0 : 0.0;
}

CaseResult base_result(const ValidationCase& c) {
  CaseResult r;
  r.id = c.id;
  r.level = c.level;
  r.metric = c.metric;
  r.kind = c.kind;
  r.unit = c.unit;
  r.published = c.published;
  r.predicted = kNaN;
  r.rel_error = kNaN;
  r.abs_error = kNaN;
  r.tolerance = c.tolerance;
  r.known_miss = c.known_miss;
  r.source = c.source;
  r.gpu = c.gpu;
  r.model = c.model;
  return r;
}

void judge(CaseResult& r) {
  r.rel_error = (r.predicted - r.published) / r.published;
  r.abs_error = r.predicted - r.published;
  if (r.tolerance && r.tolerance->holds(r.predicted, r.published)) {
    r.status = CaseStatus::pass;
    if (!r.known_miss.empty()) r.message = "listed as a known miss but within tolerance: remove known_miss";
  } else {
    r.status = r.known_miss.empty() ? CaseStatus::fail : CaseStatus::known_miss;
  }
}

bool evaluated_status(CaseStatus s) {
  return s == CaseStatus::pass || s == CaseStatus::fail || s == CaseStatus::known_miss;
}

}  // namespace

const char* to_string(CaseStatus s) { return kCaseStatusNames.name(s); }

int ValidationReport::evaluated() const {
  int n = 0;
  for (const auto& r : results) n += evaluated_status(r.status);
  return n;
}

int ValidationReport::known_misses() const {
  int n = 0;
  for (const auto& r : results) n += r.status == CaseStatus::known_miss;
  return n;
}

std::vector<std::string> ValidationReport::stale_known_misses() const {
  std::vector<std::string> out;
  for (const auto& r : results)
    if (r.status == CaseStatus::pass && !r.known_miss.empty()) out.push_back(r.id);
  return out;
}

std::vector<MetricKind> ValidationReport::targets_missed() const {
  std::vector<MetricKind> out;
  for (const auto& k : kinds)
    if (const double t = mape_target(k.kind); std::isfinite(t) && k.mape > t) out.push_back(k.kind);
  return out;
}

int ValidationReport::failed() const {
  int n = 0;
  for (const auto& r : results) n += r.status == CaseStatus::fail || r.status == CaseStatus::error;
  return n;
}

std::string batch_regime(double decode_rows_per_step) {
  if (!(decode_rows_per_step > 0.0)) return "prefill";
  if (decode_rows_per_step < 8.5) return "decode 1-8";
  if (decode_rows_per_step < 64.5) return "decode 9-64";
  if (decode_rows_per_step < 256.5) return "decode 65-256";
  return "decode 257+";
}

bool is_speed_kind(MetricKind kind) {
  return kind == MetricKind::step || kind == MetricKind::serving_throughput || kind == MetricKind::latency;
}

double speed_error(MetricKind kind, double rel_error) {
  switch (kind) {
    case MetricKind::serving_throughput:
      return rel_error;
    case MetricKind::step:
    case MetricKind::latency:
      return -rel_error;
    case MetricKind::engram_penalty:
    case MetricKind::ratio:
    case MetricKind::footprint:
    case MetricKind::traffic:
      return 0.0;
  }
  return 0.0;
}

std::vector<KindSummary> summarize_kinds(const std::vector<CaseResult>& results) {
  std::map<MetricKind, KindSummary> by;
  for (const auto& r : results) {
    if (!evaluated_status(r.status)) continue;
    KindSummary& k = by[r.kind];
    k.kind = r.kind;
    ++k.cases;
    k.failed += r.status == CaseStatus::fail;
    k.known_misses += r.status == CaseStatus::known_miss;
    k.mape += std::abs(r.rel_error);
    k.mean_abs_error += std::abs(r.abs_error);
    k.lean += speed_error(r.kind, r.rel_error);
  }
  std::vector<KindSummary> out;
  for (auto& [kind, k] : by) {
    k.mape /= k.cases;
    k.mean_abs_error /= k.cases;
    k.lean /= k.cases;
    out.push_back(k);
  }
  return out;
}

namespace {

// Groups the evaluated speed cases by `key` (a case whose key is empty is left out).
template <typename Key>
std::map<std::string, GroupSummary> group_cases(const std::vector<CaseResult>& results, Key key) {
  std::map<std::string, GroupSummary> by;
  for (const auto& r : results) {
    if (!evaluated_status(r.status)) continue;
    if (!is_speed_kind(r.kind)) continue;
    const std::string name = key(r);
    if (name.empty()) continue;  // e.g. an operator-level case has no engine
    GroupSummary& g = by[name];
    g.group = name;
    ++g.cases;
    g.mape += std::abs(r.rel_error);
    g.lean += speed_error(r.kind, r.rel_error);
    if (r.status == CaseStatus::known_miss) g.known_misses.push_back(r.id);
    if (g.worst_id.empty() || std::abs(r.rel_error) > std::abs(g.worst_rel)) {
      g.worst_id = r.id;
      g.worst_rel = r.rel_error;
    }
  }
  for (auto& [name, g] : by) {
    g.mape /= g.cases;
    g.lean /= g.cases;
  }
  return by;
}

}  // namespace

std::string gpu_engine_key(const std::string& gpu, const std::string& engine) {
  return gpu.empty() || engine.empty() ? std::string() : gpu + "/" + engine;
}

std::vector<GroupSummary> summarize_by_gpu_engine(const std::vector<CaseResult>& results) {
  std::vector<GroupSummary> out;
  for (auto& [name, g] : group_cases(results, [](const CaseResult& r) { return gpu_engine_key(r.gpu, r.engine); }))
    out.push_back(g);
  return out;
}

std::vector<GroupSummary> summarize_by(const std::vector<CaseResult>& results, std::string CaseResult::*field) {
  auto by = group_cases(results, [&](const CaseResult& r) { return r.*field; });
  std::vector<GroupSummary> out;
  for (auto& [name, g] : by) out.push_back(g);
  if (field == &CaseResult::batch) {
    static const std::vector<std::string> order = {batch_regime(1), batch_regime(9), batch_regime(65),
                                                   batch_regime(257), batch_regime(0)};
    const auto rank = [&](const GroupSummary& g) {
      return std::find(order.begin(), order.end(), g.group) - order.begin();
    };
    std::stable_sort(out.begin(), out.end(),
                     [&](const GroupSummary& a, const GroupSummary& b) { return rank(a) < rank(b); });
  }
  return out;
}

const CalibrationCandidate* calibration_for(const EvalOptions& options, const NodeSpec& node) {
  return choose_calibration(options.calibrations, node.gpu.name);
}

namespace {

// The distinct serving runs the cases need, in first-use order, and each run's index by key.
struct ServingRuns {
  std::map<std::string, std::size_t> index;
  std::vector<ServingReproduction> runs;
  void need(const ServingReproduction& r) {
    if (index.emplace(run_key(r, r.variant), runs.size()).second) runs.push_back(r);
  }
  const std::size_t& at(const ServingReproduction& r) const { return index.at(run_key(r, r.variant)); }
};

// Every run on `jobs` threads. Bad input (ConfigError) stops the whole evaluation; anything else is
// the run's own error.
std::vector<ServingRun> run_all(const ServingRuns& plan, const EvalOptions& options) {
  const auto& runs = plan.runs;
  std::vector<ServingRun> done(runs.size());
  std::vector<std::exception_ptr> config_errors(runs.size());
  parallel_for(runs.size(), options.jobs, [&](std::size_t i) {
    try {
      done[i] = run_serving(runs[i], runs[i].variant, options);
    } catch (const ConfigError&) {
      config_errors[i] = std::current_exception();
    } catch (const std::exception& e) {
      done[i].error = e.what();
    }
  });
  for (const auto& e : config_errors)
    if (e) std::rethrow_exception(e);
  return done;
}

// A step, footprint or sweep case, evaluated and judged; its own failure becomes an error result.
void evaluate_direct(const ValidationCase& c, const EvalOptions& options, CaseResult& r) {
  const double t0 = wall_now();
  try {
    if (c.step) {
      r.predicted = evaluate_step(c, options, r.detail, r.calibration);
      r.batch = batch_regime(c.step->decode_seqs);
      // Sums of a layer's operators involve no engine host work: they belong to no engine.
      if (c.step->ops.empty()) r.engine = load_engine(c.step->engine).engine;
    } else if (c.footprint) {
      r.predicted = evaluate_footprint(c, r.detail);
    } else {
      if (!options.evaluate_sweep) throw std::runtime_error("sweep cases need the planner (engramsim validate-set)");
      const SweepReading reading = options.evaluate_sweep(c, options.jobs);
      r.predicted = reading.value;
      r.engine = reading.engine;
      r.detail = reading.detail;
    }
    judge(r);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    r.status = CaseStatus::error;
    r.message = e.what();
  }
  r.wall_s = wall_now() - t0;
}

// A serving case from its run (and its baseline run, for a penalty or ratio).
void evaluate_serving(const ValidationCase& c, const ServingRuns& plan, const std::vector<ServingRun>& done,
                      CaseResult& r) {
  const ServingRun& run = done[plan.at(*c.serving)];
  const ServingRun* base = has_baseline(*c.serving) ? &done[plan.at(baseline_run(*c.serving))] : nullptr;
  r.detail = run.detail;
  r.calibration = run.calibration;
  r.engine = run.engine;
  // A prefill pool's figure belongs with the prefill batches, whatever its decode pool runs.
  const bool prefill_pool = run.summary.disaggregated && c.serving->pool == Pool::prefill;
  r.batch = batch_regime(prefill_pool ? 0.0 : run.summary.mean_decode_rows);
  r.wall_s = run.wall_s + (base ? base->wall_s : 0.0);
  if (!run.error.empty() || (base && !base->error.empty())) {
    r.status = CaseStatus::error;
    r.message = !run.error.empty() ? run.error : base->error;
  } else {
    r.predicted = serving_metric(c, run, base);
    judge(r);
  }
}

}  // namespace

ValidationReport evaluate_set(const ValidationSet& set, const EvalOptions& options) {
  ValidationReport report;
  report.file = set.file;
  std::vector<const ValidationCase*> cases;
  for (const auto& c : set.cases)
    if (options.only.empty() || std::find(options.only.begin(), options.only.end(), c.id) != options.only.end())
      cases.push_back(&c);
  for (const auto& id : options.only)
    if (!set.find(id)) throw ConfigError({set.file, 0, 0}, "cases", "no case '" + id + "'");

  ServingRuns plan;
  for (const ValidationCase* c : cases) {
    if (!c->supported() || !c->serving) continue;
    plan.need(*c->serving);
    if (has_baseline(*c->serving)) plan.need(baseline_run(*c->serving));
  }
  const std::vector<ServingRun> done = run_all(plan, options);

  for (const ValidationCase* c : cases) {
    CaseResult r = base_result(*c);
    if (!c->supported()) {
      r.status = CaseStatus::unsupported;
      r.message = c->unsupported;
    } else if (c->step || c->footprint || c->sweep) {
      evaluate_direct(*c, options, r);
    } else {
      evaluate_serving(*c, plan, done, r);
    }
    report.results.push_back(std::move(r));
  }
  report.kinds = summarize_kinds(report.results);
  return report;
}

}  // namespace engramsim::validation
