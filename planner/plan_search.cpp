#include "planner/plan_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace engramsim::planner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Recomputes the answer from every probe so far: the largest pass strictly below the lowest fail.
void settle(RateSearchResult& r) {
  double lowest_fail = kInf;
  for (const auto& p : r.probes)
    if (!p.meets_slo) lowest_fail = std::min(lowest_fail, p.rate);
  r.lowest_failing = lowest_fail;
  r.found = false;
  r.max_rate = 0.0;
  r.non_monotone = false;
  for (const auto& p : r.probes) {
    if (!p.meets_slo) continue;
    if (p.rate >= lowest_fail) {
      r.non_monotone = true;
      continue;
    }
    if (!r.found || p.rate > r.max_rate) {
      r.found = true;
      r.max_rate = p.rate;
      r.best_result = p.result;
    }
  }
}

}  // namespace

RateSearchResult find_max_rate(const RateEvaluator& evaluate_at_rate, const SloCheck& slo_check,
                               const RateSearchOptions& o) {
  if (!(o.lo > 0.0)) throw std::invalid_argument("find_max_rate: lo must be > 0");
  if (!(o.hi > o.lo)) throw std::invalid_argument("find_max_rate: hi must be > lo");
  if (!(o.hi_limit >= o.hi)) throw std::invalid_argument("find_max_rate: hi_limit must be >= hi");
  if (!(o.rel_tolerance > 0.0)) throw std::invalid_argument("find_max_rate: rel_tolerance must be > 0");
  if (o.max_probes < 2) throw std::invalid_argument("find_max_rate: max_probes must be >= 2");
  RateSearchResult r;
  auto probe = [&](double rate) {
    RateProbe p;
    p.rate = rate;
    p.result = evaluate_at_rate(rate);
    p.meets_slo = slo_check(p.result);
    r.probes.push_back(std::move(p));
    settle(r);
    return r.probes.back().meets_slo;
  };
  if (!probe(o.lo)) return r;  // even the lowest rate fails: nothing to search

  // Expansion: double until a failure brackets the answer.
  double rate = o.hi;
  while (static_cast<int>(r.probes.size()) < o.max_probes) {
    if (!probe(rate)) break;
    if (rate >= o.hi_limit) {
      r.hit_limit = true;
      return r;
    }
    rate = std::min(rate * 2.0, o.hi_limit);
  }
  if (!std::isfinite(r.lowest_failing)) {
    r.hit_limit = true;
    return r;
  }
  auto budget_left = [&] { return static_cast<int>(r.probes.size()) < o.max_probes; };
  for (;;) {
    // Bisection between the best pass and the lowest fail; geometric midpoints while the bracket
    // spans more than a factor of 4 (rates range over orders of magnitude), arithmetic after.
    while (budget_left() && r.found) {
      const double pass = r.max_rate;
      const double fail = r.lowest_failing;
      if (fail - pass <= o.rel_tolerance * pass) break;
      probe(fail / pass > 4.0 ? std::sqrt(fail * pass) : 0.5 * (fail + pass));
    }
    if (!r.found) return r;
    bool new_failure = false;
    for (double f : o.confirm_fractions) {
      const double rate_c = r.max_rate * f;
      if (!(rate_c >= o.lo) || !budget_left()) continue;
      const bool probed = std::any_of(r.probes.begin(), r.probes.end(), [&](const RateProbe& p) {
        return std::abs(p.rate - rate_c) <= o.rel_tolerance * rate_c;
      });
      if (probed) continue;
      if (!probe(rate_c)) {
        new_failure = true;
        break;
      }
    }
    if (!new_failure || !budget_left()) return r;
  }
}

RateSearchResult find_max_rate(const RateEvaluator& evaluate_at_rate, const SloCheck& slo_check, double lo, double hi,
                               double rel_tolerance) {
  RateSearchOptions o;
  o.lo = lo;
  o.hi = hi;
  o.hi_limit = std::max(o.hi_limit, hi);
  o.rel_tolerance = rel_tolerance;
  return find_max_rate(evaluate_at_rate, slo_check, o);
}

FleetPlan size_fleet(double target_rate, double max_rate_per_replica, double tokens_per_request,
                     const FleetCostInputs& c) {
  if (!(target_rate > 0.0)) throw std::invalid_argument("size_fleet: target rate must be > 0");
  if (!(max_rate_per_replica > 0.0)) throw std::invalid_argument("size_fleet: max rate per replica must be > 0");
  if (!(tokens_per_request > 0.0)) throw std::invalid_argument("size_fleet: tokens per request must be > 0");
  if (c.gpus_per_replica < 1 || c.gpus_per_node < 1) throw std::invalid_argument("size_fleet: GPU counts must be >= 1");
  if (!(c.amortization_life.seconds() > 0.0)) throw std::invalid_argument("size_fleet: amortization life must be > 0");
  FleetPlan p;
  p.target_rate = target_rate;
  p.max_rate_per_replica = max_rate_per_replica;
  // A hair of slack so that a target exactly equal to k * capacity needs k replicas, not k + 1.
  const double need = target_rate / max_rate_per_replica;
  p.replicas = std::max(1, static_cast<int>(std::ceil(need * (1.0 - 1e-12))));
  if (c.gpus_per_replica <= c.gpus_per_node) {
    const int per_node = c.gpus_per_node / c.gpus_per_replica;
    p.nodes = (p.replicas + per_node - 1) / per_node;
  } else {
    const int nodes_per_replica = (c.gpus_per_replica + c.gpus_per_node - 1) / c.gpus_per_node;
    p.nodes = p.replicas * nodes_per_replica;
  }
  p.gpus = p.nodes * c.gpus_per_node;
  p.utilization = target_rate / (p.replicas * max_rate_per_replica);
  p.gpu_cost_per_hour = c.gpu_hour * static_cast<double>(p.gpus);
  const double life_hours = c.amortization_life.seconds() / 3600.0;
  const double storage_usd =
      c.extra_dram_per_node.value() * c.dram_price.value() + c.extra_ssd_per_node.value() * c.ssd_price.value();
  p.storage_cost_per_hour = MoneyRate(storage_usd / life_hours * p.nodes);
  p.cost_per_hour = p.gpu_cost_per_hour + p.storage_cost_per_hour;
  const double mtok_per_hour = target_rate * tokens_per_request * 3600.0 / 1e6;
  p.usd_per_million_tokens = p.cost_per_hour.value() / mtok_per_hour;
  return p;
}

std::vector<RankedPlan> rank_plans(std::vector<RankedPlan> plans) {
  std::sort(plans.begin(), plans.end(), [](const RankedPlan& a, const RankedPlan& b) {
    if (a.past_kv_wall != b.past_kv_wall) return !a.past_kv_wall;
    if (a.plan.cost_per_hour.value() != b.plan.cost_per_hour.value())
      return a.plan.cost_per_hour.value() < b.plan.cost_per_hour.value();
    if (a.plan.gpus != b.plan.gpus) return a.plan.gpus < b.plan.gpus;
    if (a.plan.utilization != b.plan.utilization) return a.plan.utilization < b.plan.utilization;  // more headroom
    return a.name < b.name;
  });
  return plans;
}

std::vector<RankedPlan> plan_fleets(const std::vector<Candidate>& candidates, double target_rate) {
  std::vector<RankedPlan> plans;
  for (const auto& c : candidates) {
    if (!(c.max_rate_per_replica > 0.0)) continue;
    plans.push_back(
        {c.name, size_fleet(target_rate, c.max_rate_per_replica, c.tokens_per_request, c.cost), c.past_kv_wall});
  }
  return rank_plans(std::move(plans));
}

SensitivityReport sensitivity(const std::vector<Candidate>& candidates, double target_rate,
                              const std::vector<std::string>& tiers, const std::string& baseline_tier,
                              const std::vector<double>& load_factors) {
  SensitivityReport rep;
  std::vector<std::string> winners;
  for (const auto& tier : tiers) {
    std::vector<Candidate> priced = candidates;
    for (auto& c : priced) {
      auto it = c.gpu_hour_by_tier.find(tier);
      if (it == c.gpu_hour_by_tier.end())
        throw std::invalid_argument("sensitivity: candidate " + c.name + " has no price for tier " + tier);
      c.cost.gpu_hour = it->second;
    }
    for (double f : load_factors) {
      SensitivityCase sc;
      sc.tier = tier;
      sc.load_factor = f;
      sc.ranking = plan_fleets(priced, target_rate * f);
      winners.push_back(sc.ranking.empty() ? std::string() : sc.ranking.front().name);
      if (tier == baseline_tier && f == 1.0) rep.baseline_winner = winners.back();
      rep.cases.push_back(std::move(sc));
    }
  }
  for (const auto& w : winners)
    if (w != winners.front()) rep.winner_stable = false;
  return rep;
}

}  // namespace engramsim::planner
