#include "planner/fleet_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "core/number_text.hpp"
#include "planner/kv_wall.hpp"

namespace engramsim::planner {
namespace {

std::string fmt(double v, const char* spec = "%.4g") { return std::isfinite(v) ? printf_number(v, spec) : "-"; }

double read(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// A candidate's cost inputs and capacity, from its result line's `extra.plan`.
Candidate candidate_of(const ResultLine& l, const std::vector<std::string>& axes, const std::string& baseline_tier) {
  const auto& plan = l.result.at("extra").at("plan");
  Candidate c;
  c.name = config_label(l.assignments, axes, "");
  c.max_rate_per_replica = plan.at("max_rate_per_replica").get<double>();
  c.tokens_per_request = plan.at("tokens_per_request").get<double>();
  c.cost.gpus_per_replica = plan.at("gpus_per_replica").get<int>();
  c.cost.gpus_per_node = plan.at("gpus_per_node").get<int>();
  c.cost.extra_dram_per_node = Bytes(plan.at("extra_dram_per_node_bytes").get<double>());
  c.cost.dram_price = MoneyPerByte(plan.at("dram_usd_per_byte").get<double>());
  c.cost.extra_ssd_per_node = Bytes(plan.at("extra_ssd_per_node_bytes").get<double>());
  c.cost.ssd_price = MoneyPerByte(plan.at("ssd_usd_per_byte").get<double>());
  c.cost.amortization_life = Time::from_seconds(plan.at("amortization_life_s").get<double>());
  for (const auto& [tier, usd] : plan.at("gpu_hour_usd_by_tier").items())
    c.gpu_hour_by_tier[tier] = MoneyRate(usd.get<double>());
  c.cost.gpu_hour = c.gpu_hour_by_tier.at(baseline_tier);
  return c;
}

// A candidate's KV wall over its probes, the rate per replica as the load (kv_wall.hpp).
KvWallAnalysis probe_walls(const nlohmann::json& plan) {
  std::vector<KvWallPoint> pts;
  std::size_t k = 0;
  for (const auto& p : plan.at("probes")) {
    KvWallPoint w;
    w.index = k++;
    w.config = "candidate";
    w.load = read(p, "rate_per_replica");
    w.throughput_per_gpu = read(p, "throughput_per_gpu");
    w.recomputed_tokens = read(p, "recomputed_tokens");
    w.computed_tokens = read(p, "computed_tokens");
    w.prefix_cache_hit_rate = read(p, "prefix_cache_hit_rate");
    w.ideal_prefix_hit_rate = read(p, "ideal_prefix_hit_rate");
    w.kv_evictions = read(p, "kv_evictions");
    pts.push_back(w);
  }
  return find_kv_walls(pts);
}

// Sizes the candidate within its KV wall: a sustained rate at or past the first probed rate past the
// wall is capped at the highest passing probe below it; with no such probe the candidate meets the
// SLO only past its wall (past_kv_wall, ranked after the others). Returns the "KV wall" cell.
std::string apply_kv_wall(const nlohmann::json& plan, Candidate& c) {
  const KvWallAnalysis a = probe_walls(plan);
  if (a.walls.empty() || !a.walls.front().reached()) return "not reached";
  const ConfigKvWall& w = a.walls.front();
  const double from = w.first_past_load;
  const std::string why = kv_wall_why(w, a.mark(*w.first_past_index));
  const std::string past = "past it from " + fmt(from, "%.5g") + " req/s per replica (" + why + ")";
  if (c.max_rate_per_replica < from) return past + ", above the rate sized";
  double below = 0.0;
  std::size_t k = 0;
  for (const auto& p : plan.at("probes")) {
    const double rate = read(p, "rate_per_replica");
    if (p.at("meets_slo").get<bool>() && rate < from && !a.past_wall(k)) below = std::max(below, rate);
    ++k;
  }
  if (below > 0.0) {
    const std::string cell = "sized at " + fmt(below, "%.5g") + " req/s per replica, below its wall; " + past;
    c.max_rate_per_replica = below;
    return cell;
  }
  c.past_kv_wall = true;
  return "meets the SLO only past its wall: " + past;
}

void add_probe_rows(Table& search, const std::string& name, const nlohmann::json& plan) {
  const KvWallAnalysis walls = probe_walls(plan);
  std::size_t k = 0;
  for (const auto& p : plan.at("probes")) {
    search.rows.push_back({name, std::to_string(k + 1), fmt(read(p, "rate_per_replica"), "%.5g"),
                           fmt(read(p, "requests"), "%.0f"), p.at("meets_slo").get<bool>() ? "yes" : "no",
                           fmt(read(p, "ttft_p99_ms")), fmt(read(p, "tpot_p99_ms")), fmt(read(p, "queue_p99_ms")),
                           fmt(read(p, "interactivity")), walls.past_wall(k) ? "yes" : "no",
                           p.value("why", std::string())});
    ++k;
  }
}

std::string target_text(double rate, double tokens_per_request) {
  return fmt(rate, "%.4g") + " req/s" +
         (tokens_per_request > 0.0 ? " (" + fmt(rate * tokens_per_request, "%.4g") + " tok/s at " +
                                         fmt(tokens_per_request, "%.0f") + " tokens per request)"
                                   : std::string());
}

Table fleet_table(const std::vector<RankedPlan>& ranking, const std::vector<Candidate>& candidates,
                  const std::map<std::string, std::string>& walls, const std::string& target,
                  const std::string& baseline_tier) {
  Table fleet{"fleet_plan",
              "Fleet plans at " + target + ", " + baseline_tier + " prices (cheapest within its KV wall first)",
              {"rank", "candidate", "max req/s per replica", "GPUs per replica", "replicas", "nodes", "GPUs",
               "utilization (%)", "GPU $/hour", "Engram DRAM+SSD $/hour", "total $/hour", "$/M tokens", "KV wall"},
              {}};
  int rank = 0;
  for (const auto& r : ranking) {
    const auto* c =
        &*std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& x) { return x.name == r.name; });
    fleet.rows.push_back({std::to_string(++rank), r.name, fmt(r.plan.max_rate_per_replica, "%.4g"),
                          std::to_string(c->cost.gpus_per_replica), std::to_string(r.plan.replicas),
                          std::to_string(r.plan.nodes), std::to_string(r.plan.gpus),
                          fmt(100.0 * r.plan.utilization, "%.1f"), fmt(r.plan.gpu_cost_per_hour.value(), "%.2f"),
                          fmt(r.plan.storage_cost_per_hour.value(), "%.2f"), fmt(r.plan.cost_per_hour.value(), "%.2f"),
                          fmt(r.plan.usd_per_million_tokens, "%.4g"), walls.at(r.name)});
  }
  return fleet;
}

Table sensitivity_table(const SensitivityReport& report, double target_rate) {
  Table sens{"sensitivity",
             "Sensitivity: winner per price tier and load",
             {"price tier", "load factor", "target req/s", "winner", "nodes", "$/hour", "$/M tokens", "runner-up",
              "runner-up $/hour"},
             {}};
  for (const auto& c : report.cases) {
    std::vector<std::string> row = {c.tier, fmt(c.load_factor, "%.2f"), fmt(target_rate * c.load_factor, "%.4g")};
    if (c.ranking.empty()) {
      row.insert(row.end(), {"-", "-", "-", "-", "-", "-"});
    } else {
      const auto& w = c.ranking.front();
      row.insert(row.end(), {w.name, std::to_string(w.plan.nodes), fmt(w.plan.cost_per_hour.value(), "%.2f"),
                             fmt(w.plan.usd_per_million_tokens, "%.4g")});
      if (c.ranking.size() > 1) {
        row.push_back(c.ranking[1].name);
        row.push_back(fmt(c.ranking[1].plan.cost_per_hour.value(), "%.2f"));
      } else {
        row.insert(row.end(), {"-", "-"});
      }
    }
    sens.rows.push_back(std::move(row));
  }
  return sens;
}

// The recommendation the CLI prints and the report leads with.
std::string recommendation(const FleetPlanResult& out, int gpus_per_replica, const std::string& target,
                           const std::string& baseline_tier, const std::map<std::string, std::string>& walls) {
  const RankedPlan& best = out.ranking.front();
  std::string note = "Fleet recommendation: " + best.name +
                     (best.past_kv_wall ? " only past its KV wall (no candidate meets the SLO within its wall)" : "") +
                     ", " + std::to_string(best.plan.nodes) + " node" + (best.plan.nodes == 1 ? "" : "s") + " (" +
                     std::to_string(best.plan.gpus) + " GPUs, " + std::to_string(best.plan.replicas) +
                     (best.plan.replicas == 1 ? " replica of " : " replicas of ") + std::to_string(gpus_per_replica) +
                     " GPUs) serve " + target + " within the SLO at " + fmt(best.plan.cost_per_hour.value(), "%.2f") +
                     " $/hour (" + baseline_tier + " prices), " + fmt(best.plan.usd_per_million_tokens, "%.3g") +
                     " $ per million tokens; one replica sustains up to " +
                     fmt(best.plan.max_rate_per_replica, "%.4g") + " req/s, so the fleet runs at " +
                     fmt(100.0 * best.plan.utilization, "%.0f") + " % of its capacity.";
  // Whole nodes are bought: GPUs left over after the last replica are paid for and idle.
  const int idle_gpus = best.plan.gpus - best.plan.replicas * gpus_per_replica;
  if (idle_gpus > 0)
    note += " " + std::to_string(idle_gpus) + " of its " + std::to_string(best.plan.gpus) +
            " GPUs hold no replica (whole nodes are bought); the price counts them.";
  if (const std::string& w = walls.at(best.name); w != "not reached") note += " KV wall: " + w + ".";
  if (out.ranking.size() > 1 && out.ranking[1].past_kv_wall == best.past_kv_wall) {
    const RankedPlan& second = out.ranking[1];
    note += " Next: " + second.name + " at " + fmt(second.plan.cost_per_hour.value(), "%.2f") + " $/hour (" +
            fmt(second.plan.cost_per_hour.value() / best.plan.cost_per_hour.value(), "%.2f") + "x).";
  }
  for (const auto& r : out.ranking)
    if (r.past_kv_wall && !best.past_kv_wall && r.plan.cost_per_hour.value() < best.plan.cost_per_hour.value())
      note += " " + r.name + " would cost less (" + fmt(r.plan.cost_per_hour.value(), "%.2f") +
              " $/hour) but meets the SLO only past its KV wall; it is not recommended.";
  note += out.sensitivity.winner_stable
              ? " The winner is the same for every price tier and load factor in the sensitivity table."
              : " The winner changes with price tier or load: see the sensitivity table of the report.";
  // The CLI prints this note without the report's point-based recommendation: name it, not its place.
  note +=
      " (The report's recommendation ranks points per GPU at each candidate's own maximum rate; this plan "
      "rounds to whole nodes at the target load.)";
  return note;
}

std::string number_text(double v) { return round_trip_number(v); }

}  // namespace

std::string PlanSettings::evaluation_key() const {
  std::string s = "plan-v1 probe_requests=" + std::to_string(probe_requests);
  s += " lo=" + number_text(search.lo) + " hi=" + number_text(search.hi) + " max=" + number_text(search.hi_limit);
  s += " tol=" + number_text(search.rel_tolerance) + " probes=" + std::to_string(search.max_probes);
  s += " confirm=";
  for (double f : search.confirm_fractions) s += number_text(f) + ",";
  s += " max_queue_p99_ns=" + std::to_string(max_queue_p99.count_ns());
  s += " min_probe_span_ns=" + std::to_string(min_probe_span.count_ns());
  return s;
}

FleetPlanResult plan_fleet(const std::vector<ResultLine>& lines, const PlanSettings& settings,
                           const std::string& baseline_tier, const std::vector<std::string>& axes) {
  FleetPlanResult out;
  std::vector<Candidate> candidates;
  std::map<std::string, int> gpus_per_replica;
  Table search{"rate_search",
               "Rate search per candidate (every probe, in probe order)",
               {"candidate", "probe", "req/s per replica", "requests", "meets SLO", "TTFT p99 (ms)", "TPOT p99 (ms)",
                "queue p99 (ms)", "tok/s/user", "past KV wall", "why not"},
               {}};
  std::map<std::string, std::string> walls;  // the "KV wall" cell per candidate
  for (const auto& l : lines) {
    if (l.status != PointStatus::ok) continue;
    Candidate c = candidate_of(l, axes, baseline_tier);
    c.max_rate_per_replica *= settings.target_utilization;
    walls[c.name] = apply_kv_wall(l.result.at("extra").at("plan"), c);
    if (out.tokens_per_request <= 0.0) out.tokens_per_request = c.tokens_per_request;
    add_probe_rows(search, c.name, l.result.at("extra").at("plan"));
    gpus_per_replica[c.name] = c.cost.gpus_per_replica;
    candidates.push_back(std::move(c));
  }
  out.target_rate = settings.target.requests_per_s > 0.0 ? settings.target.requests_per_s
                    : out.tokens_per_request > 0.0       ? settings.target.tokens_per_s / out.tokens_per_request
                                                         : 0.0;
  const std::string target = target_text(out.target_rate, out.tokens_per_request);
  if (candidates.empty() || !(out.target_rate > 0.0)) {
    out.notes.push_back("Fleet plan: no candidate meets the SLO at any probed rate, so no fleet serves " + target +
                        ". The report lists the infeasible points with their reasons.");
    out.tables.push_back(std::move(search));
    return out;
  }
  out.ranking = plan_fleets(candidates, out.target_rate);
  out.sensitivity = sensitivity(candidates, out.target_rate, settings.tiers, baseline_tier, settings.load_factors);
  out.notes.push_back(recommendation(out, gpus_per_replica.at(out.ranking.front().name), target, baseline_tier, walls));
  out.tables.push_back(fleet_table(out.ranking, candidates, walls, target, baseline_tier));
  out.tables.push_back(sensitivity_table(out.sensitivity, out.target_rate));
  out.tables.push_back(std::move(search));
  return out;
}

}  // namespace engramsim::planner
