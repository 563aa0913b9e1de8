#include "study/rate_planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>

#include "core/number_text.hpp"
#include "hardware/node_spec.hpp"
#include "planner/report_data.hpp"
#include "scenario/schema/scenario_workload.hpp"

namespace engramsim::study {
namespace {

std::string fmt(double v, const char* spec = "%.4g") { return std::isfinite(v) ? printf_number(v, spec) : "-"; }

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// The offered stream of a workload: how many requests, over which span, how many tokens each.
struct StreamStats {
  std::uint64_t requests = 0;
  double span_s = 0.0;
  double tokens_per_request = 0.0;
  double rate() const { return requests > 1 && span_s > 0.0 ? static_cast<double>(requests - 1) / span_s : 0.0; }
};

StreamStats scan_stream(const scenario::ScenarioWorkload& w, std::uint64_t seed) {
  StreamStats st;
  auto src = w.spec.source(seed);
  sim::Request r;
  Time first;
  Time last;
  double tokens = 0.0;
  while (st.requests < w.spec.max_requests && src->next(r)) {
    if (st.requests == 0) first = r.arrival;
    last = r.arrival;
    tokens += static_cast<double>(r.prompt_tokens) + static_cast<double>(r.output_tokens);
    ++st.requests;
  }
  st.span_s = (last - first).seconds();
  st.tokens_per_request = st.requests > 0 ? tokens / static_cast<double>(st.requests) : 0.0;
  return st;
}

// Why a probe misses the SLO; empty when it meets it.
std::string slo_misses(const scenario::ScenarioSlo& slo, const sim::Summary& s, Time max_queue_p99) {
  std::string why;
  auto add = [&](const std::string& w) { why += (why.empty() ? "" : "; ") + w; };
  if (s.completed < s.num_requests)
    add(std::to_string(s.num_requests - s.completed) + " of " + std::to_string(s.num_requests) +
        " requests unfinished");
  for (const auto& t : slo.targets) {
    if (scenario::slo_target_met(t, s)) continue;
    add(t.key + " " + fmt(scenario::slo_statistic_ms(t, s)) + " ms > " + fmt(t.limit.millis()) + " ms");
  }
  if (slo.min_interactivity > 0.0 && !(s.median_intvty >= slo.min_interactivity))
    add("interactivity " + fmt(s.median_intvty) + " < " + fmt(slo.min_interactivity) + " tok/s/user");
  if (!(s.queue.p99 <= max_queue_p99.millis()))
    add("queue p99 " + fmt(s.queue.p99) + " ms > " + fmt(max_queue_p99.millis()) + " ms (overloaded)");
  return why;
}

YAML::Node map_child(YAML::Node parent, const char* key, const std::string& file) {
  YAML::Node c = parent[key];
  if (!c.IsMap()) throw ConfigError({file, 0, 0}, key, "expected a map");
  return c;
}

}  // namespace

RatePlanner::RatePlanner(const ScenarioEvaluator& evaluator, planner::PlanSettings settings)
    : evaluator_(evaluator), settings_(std::move(settings)) {}

void RatePlanner::validate(const std::vector<planner::SweepPoint>& points) const {
  for (const auto& p : points) {
    const scenario::ScenarioParams params = evaluator_.parse(scenario_for_point(evaluator_.base(), p));
    const std::string where = " (sweep point " + std::to_string(p.index) + ": " + p.label() + ")";
    if (params.workload.kind == scenario::WorkloadKind::agentx)
      throw ConfigError({evaluator_.file(), 0, 0}, "workload",
                        "plan drives the workload at a request rate; an agentx replay is driven by its lanes "
                        "(sweep workload.concurrency with engramsim sweep instead)" +
                            where);
    if (params.workload.kind == scenario::WorkloadKind::closed_loop || params.workload.spec.concurrency > 0)
      throw ConfigError({evaluator_.file(), 0, 0}, "workload",
                        "plan drives the workload at a request rate: use kind open_loop or trace (without "
                        "concurrency)" +
                            where);
    if (params.slo.targets.empty() && !(params.slo.min_interactivity > 0.0))
      throw ConfigError({evaluator_.file(), 0, 0}, "slo",
                        "plan needs an SLO to size against: a percentile target (ttft_p99, tpot_p99, ...) or "
                        "min_interactivity" +
                            where);
  }
}

namespace {

// The units a probe runs side by side: its replicas, or one whole disaggregated deployment.
int probe_units(const scenario::BuiltScenario& b) { return b.prefill_pool ? 1 : b.replicas; }

// What every probe of one configuration shares: the probe unit (one node of replicas) built once,
// its workload section, and the offered stream as the scenario gives it (its mean rate, what
// rate_scale multiplies, and its mean request size).
struct ProbeContext {
  scenario::BuiltScenario b;
  YAML::Node workload;
  bool trace = false;
  StreamStats stream;
  std::uint64_t user_cap = 0;  // the scenario's num_requests; 0: none
  double base_scale = 1.0;     // the trace's own rate_scale
  const planner::PlanSettings* settings = nullptr;
  const ScenarioEvaluator* evaluator = nullptr;
};

// Requests a probe at `offered` req/s asks for: enough for the probe count and the minimum span,
// within a run's limit, and (for a trace, whose num_requests chooses the part replayed) the user's cap.
std::pair<std::uint64_t, std::uint64_t> probe_requests(const ProbeContext& c, double offered) {
  std::uint64_t want =
      static_cast<std::uint64_t>(c.settings->probe_requests) * static_cast<std::uint64_t>(probe_units(c.b));
  want = std::max<std::uint64_t>(want,
                                 static_cast<std::uint64_t>(std::ceil(offered * c.settings->min_probe_span.seconds())));
  want = std::min<std::uint64_t>(want, static_cast<std::uint64_t>(scenario::kMaxRequestsPerRun));
  const std::uint64_t ask = c.trace && c.user_cap > 0 ? std::min(want, c.user_cap) : want;
  return {want, ask};
}

// Seconds between the first and the last arrival of a run.
double arrival_span_s(const sim::RunResult& run) {
  if (run.requests.empty()) return 0.0;
  Time lo = Time::max();
  Time hi = Time::zero();
  for (const auto& q : run.requests) {
    lo = std::min(lo, q.arrival);
    hi = std::max(hi, q.arrival);
  }
  return (hi - lo).seconds();
}

// One probe at `rate_per_replica`: the run, whether it meets the SLO and why not; its row for the
// results file is appended to `rows`.
nlohmann::json probe_at(const ProbeContext& c, double rate_per_replica, std::vector<nlohmann::json>& rows) {
  const double offered = rate_per_replica * probe_units(c.b);
  const auto [want, ask] = probe_requests(c, offered);
  YAML::Node w = YAML::Clone(c.workload);
  w["num_requests"] = ask;
  if (c.trace)
    w["trace"]["rate_scale"] = c.base_scale * offered / c.stream.rate();
  else
    w["arrival"]["rate_per_s"] = offered;
  sim::RunConfig rc = c.b.run;
  rc.workload = scenario::parse_scenario_workload(ConfigNode(w, c.evaluator->file(), "workload")).spec;
  const sim::RunResult run = sim::run_simulation(rc);
  std::string why = slo_misses(c.b.params.slo, run.summary, c.settings->max_queue_p99);
  // Only a workload that ran out is too short: a trace prefix that happens to be denser than the
  // trace's mean spans a little less than asked for, and that is still a full-length probe.
  const double span_s = arrival_span_s(run), min_span_s = c.settings->min_probe_span.seconds();
  if (run.requests.size() < want && span_s < min_span_s)
    why += (why.empty() ? "" : "; ") + std::string("the workload holds only ") + std::to_string(run.requests.size()) +
           " requests, spanning " + fmt(span_s) + " s at this rate (< min_probe_span " + fmt(min_span_s) +
           " s): cannot show the rate is sustained";
  const planner::PointMetrics m = point_metrics(c.b, run, c.evaluator->cdf_samples());
  const sim::Summary& s = run.summary;
  // The KV figures the plan judges its wall by over the probes (fleet_plan.hpp, kv_wall.hpp).
  const double computed =
      static_cast<double>(s.total_input_tokens - s.cached_input_tokens + s.total_output_tokens + s.recomputed_tokens);
  rows.push_back({{"rate_per_replica", rate_per_replica},
                  {"requests", run.requests.size()},
                  {"meets_slo", why.empty()},
                  {"ttft_p99_ms", num(s.ttft.p99)},
                  {"tpot_p99_ms", num(s.tpot.p99)},
                  {"queue_p99_ms", num(s.queue.p99)},
                  {"interactivity", num(s.median_intvty)},
                  {"throughput_per_gpu", num(s.tput_per_gpu)},
                  {"recomputed_tokens", s.recomputed_tokens},
                  {"computed_tokens", computed},
                  {"prefix_cache_hit_rate", num(s.prefix_cache_hit_rate)},
                  {"ideal_prefix_hit_rate", num(s.ideal_prefix_hit_rate)},
                  {"kv_evictions", s.kv_evictions},
                  {"peak_kv_usage", m.extra.value("peak_kv_usage", nlohmann::json(nullptr))},
                  {"why", why}});
  return {{"meets_slo", why.empty()}, {"why", why}, {"metrics", to_json(m)}};
}

// The plan's record of a configuration: its sustained rate, the search, the probes and the prices
// the fleet sizing reads.
nlohmann::json plan_extra(const ProbeContext& c, const planner::RateSearchResult& rs,
                          std::vector<nlohmann::json> rows) {
  const scenario::BuiltScenario& b = c.b;
  nlohmann::json by_tier = nlohmann::json::object();
  for (const char* tier : {"hyperscaler", "neocloud", "rental"})
    by_tier[tier] = gpu_hour_price(b.params.node.gpu_hour, *price_tier_from_string(tier)).value();
  const NodeFootprint& nf = b.footprint.per_node;
  return {
      {"max_rate_per_replica", rs.max_rate},
      {"lowest_failing_per_replica", num(rs.lowest_failing)},
      {"non_monotone", rs.non_monotone},
      {"hit_limit", rs.hit_limit},
      {"replicas_per_probe", probe_units(b)},
      {"stream_requests", c.stream.requests},
      {"stream_rate_per_s", c.stream.rate()},
      {"tokens_per_request", c.stream.tokens_per_request},
      {"probes", std::move(rows)},
      {"gpus_per_replica", b.planning_unit_gpus()},
      {"gpus_per_node", b.params.node.gpu_count},
      {"extra_dram_per_node_bytes", (nf.host_dram_engram + b.dram_cache_per_node).value()},
      {"dram_usd_per_byte", b.params.node.dram_price.value()},
      {"extra_ssd_per_node_bytes", nf.ssd_engram.value()},
      {"ssd_usd_per_byte", b.params.node.ssd_price.value()},
      {"amortization_life_s", b.params.node.amortization_life.seconds()},
      {"gpu_hour_usd_by_tier", by_tier},
  };
}

// The probe unit of a point: one node of replicas (or the nodes one replica spans).
std::optional<std::string> prepare_probes(const ScenarioEvaluator& evaluator, const planner::PlanSettings& settings,
                                          const planner::SweepPoint& point, ProbeContext& c) {
  YAML::Node s = scenario_for_point(evaluator.base(), point);
  const scenario::ScenarioParams first = evaluator.parse(s);
  const int g = first.node.gpu_count;
  const int tp = first.deployment.tp;
  // A disaggregated deployment is probed whole: its prefill:decode ratio is the configuration.
  if (!first.disaggregation) {
    YAML::Node dep = map_child(s, "deployment", evaluator.file());
    dep.remove("replicas");
    dep["nodes"] = tp <= g ? 1 : (tp + g - 1) / g;
  }
  try {
    c.b = scenario::build_scenario(evaluator.parse(s));
  } catch (const scenario::InfeasibleScenario& e) {
    return std::string(e.what());
  }
  c.workload = map_child(s, "workload", evaluator.file());
  c.trace = c.b.params.workload.kind == scenario::WorkloadKind::trace;
  c.stream = scan_stream(c.b.params.workload, c.b.params.seed);
  c.user_cap = c.b.params.workload.num_requests;
  if (c.trace) {
    const YAML::Node t = c.workload["trace"];
    if (t["rate_scale"]) c.base_scale = t["rate_scale"].as<double>();
    if (!(c.stream.rate() > 0.0))
      throw ConfigError(
          {evaluator.file(), 0, 0}, "workload.trace",
          "the replayed trace has fewer than two requests or no time span: it cannot be scaled to a rate");
  }
  c.settings = &settings;
  c.evaluator = &evaluator;
  return std::nullopt;
}

}  // namespace

planner::Outcome RatePlanner::evaluate(const planner::SweepPoint& point) const {
  ProbeContext c;
  if (const auto why = prepare_probes(evaluator_, settings_, point, c)) return planner::Outcome::infeasible(*why);
  std::vector<nlohmann::json> rows;
  const planner::RateSearchResult rs =
      find_max_rate([&](double rate) { return probe_at(c, rate, rows); },
                    [](const nlohmann::json& j) { return j.at("meets_slo").get<bool>(); }, settings_.search);
  if (!rs.found) {
    const planner::RateProbe* lowest = nullptr;
    for (const auto& p : rs.probes)
      if (lowest == nullptr || p.rate < lowest->rate) lowest = &p;
    return planner::Outcome::infeasible(std::string(planner::kSloMissReason) + ": at " +
                                        fmt(lowest ? lowest->rate : 0.0) + " req/s per replica, " +
                                        (lowest ? lowest->result.value("why", std::string()) : ""));
  }
  nlohmann::json result = rs.best_result.at("metrics");
  result["extra"]["plan"] = plan_extra(c, rs, std::move(rows));
  return planner::Outcome::ok(std::move(result));
}

}  // namespace engramsim::study
