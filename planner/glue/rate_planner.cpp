#include "planner/glue/rate_planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>

#include "core/number_text.hpp"
#include "hardware/node_spec.hpp"
#include "spec/scenario_workload.hpp"

namespace engramsim::planner {
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

StreamStats scan_stream(const sim::ScenarioWorkload& w, std::uint64_t seed) {
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
std::string slo_misses(const sim::ScenarioSlo& slo, const sim::Summary& s, Time max_queue_p99) {
  std::string why;
  auto add = [&](const std::string& w) { why += (why.empty() ? "" : "; ") + w; };
  if (s.completed < s.num_requests)
    add(std::to_string(s.num_requests - s.completed) + " of " + std::to_string(s.num_requests) + " requests unfinished");
  for (const auto& t : slo.targets) {
    if (sim::slo_target_met(t, s)) continue;
    add(t.key + " " + fmt(sim::slo_statistic_ms(t, s)) + " ms > " + fmt(t.limit.millis()) + " ms");
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

RatePlanner::RatePlanner(const ScenarioEvaluator& evaluator, PlanSettings settings)
    : evaluator_(evaluator), settings_(std::move(settings)) {}

void RatePlanner::validate(const std::vector<SweepPoint>& points) const {
  for (const auto& p : points) {
    const sim::ScenarioParams params = evaluator_.parse(scenario_for_point(evaluator_.base(), p));
    const std::string where = " (sweep point " + std::to_string(p.index) + ": " + p.label() + ")";
    if (params.workload.kind == sim::WorkloadKind::agentx)
      throw ConfigError({evaluator_.file(), 0, 0}, "workload",
                        "plan drives the workload at a request rate; an agentx replay is driven by its lanes "
                        "(sweep workload.concurrency with engramsim sweep instead)" + where);
    if (params.workload.kind == sim::WorkloadKind::closed_loop || params.workload.spec.concurrency > 0)
      throw ConfigError({evaluator_.file(), 0, 0}, "workload",
                        "plan drives the workload at a request rate: use kind open_loop or trace (without "
                        "concurrency)" + where);
    if (params.slo.targets.empty() && !(params.slo.min_interactivity > 0.0))
      throw ConfigError({evaluator_.file(), 0, 0}, "slo",
                        "plan needs an SLO to size against: a percentile target (ttft_p99, tpot_p99, ...) or "
                        "min_interactivity" + where);
  }
}

Outcome RatePlanner::evaluate(const SweepPoint& point) const {
  YAML::Node s = scenario_for_point(evaluator_.base(), point);
  const sim::ScenarioParams first = evaluator_.parse(s);
  const int g = first.node.gpu_count;
  const int tp = first.deployment.tp;
  // The probe unit: one node of replicas (or the nodes one replica spans).
  YAML::Node dep = map_child(s, "deployment", evaluator_.file());
  dep.remove("replicas");
  dep["nodes"] = tp <= g ? 1 : (tp + g - 1) / g;

  sim::BuiltScenario b;
  try {
    b = sim::build_scenario(evaluator_.parse(s));
  } catch (const sim::InfeasibleScenario& e) {
    return Outcome::infeasible(e.what());
  }
  const int replicas = b.replicas;
  YAML::Node wl = map_child(s, "workload", evaluator_.file());
  const bool trace = b.params.workload.kind == sim::WorkloadKind::trace;
  // The offered stream as the scenario gives it: its mean rate (what rate_scale multiplies) and its
  // mean request size (what a token-rate target divides by).
  const StreamStats stream = scan_stream(b.params.workload, b.params.seed);
  const std::uint64_t user_cap = b.params.workload.num_requests;  // 0: none
  double base_scale = 1.0;
  if (trace) {
    const YAML::Node t = wl["trace"];
    if (t["rate_scale"]) base_scale = t["rate_scale"].as<double>();
    if (!(stream.rate() > 0.0))
      throw ConfigError({evaluator_.file(), 0, 0}, "workload.trace",
                        "the replayed trace has fewer than two requests or no time span: it cannot be scaled to a rate");
  }
  const double min_span_s = settings_.min_probe_span.seconds();

  std::vector<nlohmann::json> probe_rows;
  const auto at_rate = [&](double rate_per_replica) -> nlohmann::json {
    const double offered = rate_per_replica * replicas;
    std::uint64_t want = static_cast<std::uint64_t>(settings_.probe_requests) * static_cast<std::uint64_t>(replicas);
    want = std::max<std::uint64_t>(want, static_cast<std::uint64_t>(std::ceil(offered * min_span_s)));
    want = std::min<std::uint64_t>(want, static_cast<std::uint64_t>(sim::kMaxRequestsPerRun));  // a run's limit
    // A trace's num_requests chooses the part of the trace to replay, so it caps the probe; an open
    // loop's count is only the length of a plain run, and the probe sets its own.
    const std::uint64_t ask = trace && user_cap > 0 ? std::min(want, user_cap) : want;
    YAML::Node w = YAML::Clone(wl);
    w["num_requests"] = ask;
    if (trace) w["trace"]["rate_scale"] = base_scale * offered / stream.rate();
    else w["arrival"]["rate_per_s"] = offered;
    const sim::ScenarioWorkload wk = sim::parse_scenario_workload(ConfigNode(w, evaluator_.file(), "workload"));
    sim::RunConfig rc = b.run;
    rc.workload = wk.spec;
    const sim::RunResult run = sim::run_simulation(rc);
    std::string why = slo_misses(b.params.slo, run.summary, settings_.max_queue_p99);
    double span_s = 0.0;
    if (!run.requests.empty()) {
      Time lo = Time::max();
      Time hi = Time::zero();
      for (const auto& q : run.requests) {
        lo = std::min(lo, q.arrival);
        hi = std::max(hi, q.arrival);
      }
      span_s = (hi - lo).seconds();
    }
    // Only a workload that ran out is too short: a trace prefix that happens to be denser than the
    // trace's mean spans a little less than asked for, and that is still a full-length probe.
    if (run.requests.size() < want && span_s < min_span_s) {
      why += (why.empty() ? "" : "; ") + std::string("the workload holds only ") +
             std::to_string(run.requests.size()) + " requests, spanning " + fmt(span_s) + " s at this rate (< min_probe_span " +
             fmt(min_span_s) + " s): cannot show the rate is sustained";
    }
    const PointMetrics m = point_metrics(b, run, evaluator_.cdf_samples());
    probe_rows.push_back({{"rate_per_replica", rate_per_replica},
                          {"requests", run.requests.size()},
                          {"meets_slo", why.empty()},
                          {"ttft_p99_ms", num(run.summary.ttft.p99)},
                          {"tpot_p99_ms", num(run.summary.tpot.p99)},
                          {"queue_p99_ms", num(run.summary.queue.p99)},
                          {"interactivity", num(run.summary.median_intvty)},
                          {"why", why}});
    return {{"meets_slo", why.empty()}, {"why", why}, {"metrics", to_json(m)}};
  };
  const RateSearchResult rs = find_max_rate(
      at_rate, [](const nlohmann::json& j) { return j.at("meets_slo").get<bool>(); }, settings_.search);

  if (!rs.found) {
    const RateProbe* lowest = nullptr;
    for (const auto& p : rs.probes)
      if (lowest == nullptr || p.rate < lowest->rate) lowest = &p;
    return Outcome::infeasible("never meets the SLO: at " + fmt(lowest ? lowest->rate : 0.0) +
                               " req/s per replica, " + (lowest ? lowest->result.value("why", std::string()) : ""));
  }

  nlohmann::json result = rs.best_result.at("metrics");
  nlohmann::json by_tier = nlohmann::json::object();
  for (const char* tier : {"hyperscaler", "neocloud", "rental"})
    by_tier[tier] = gpu_hour_price(b.params.node.gpu_hour, *price_tier_from_string(tier)).value();
  const NodeFootprint& nf = b.footprint.per_node;
  result["extra"]["plan"] = {
      {"max_rate_per_replica", rs.max_rate},
      {"lowest_failing_per_replica", num(rs.lowest_failing)},
      {"non_monotone", rs.non_monotone},
      {"hit_limit", rs.hit_limit},
      {"replicas_per_probe", replicas},
      {"stream_requests", stream.requests},
      {"stream_rate_per_s", stream.rate()},
      {"tokens_per_request", stream.tokens_per_request},
      {"probes", probe_rows},
      {"gpus_per_replica", b.gpus_per_replica},
      {"gpus_per_node", g},
      {"extra_dram_per_node_bytes", (nf.host_dram_engram + b.dram_cache_per_node).value()},
      {"dram_usd_per_byte", b.params.node.dram_price.value()},
      {"extra_ssd_per_node_bytes", nf.ssd_engram.value()},
      {"ssd_usd_per_byte", b.params.node.ssd_price.value()},
      {"amortization_life_s", b.params.node.amortization_life.seconds()},
      {"gpu_hour_usd_by_tier", by_tier},
  };
  return Outcome::ok(std::move(result));
}

}  // namespace engramsim::planner
