// SLO-constrained capacity search and fleet sizing, as pure functions over callbacks and numbers.
//
// find_max_rate: the highest request rate one replica sustains within the SLO. Each probe runs the
// caller's evaluator (a simulation) at one rate; slo_check judges the result. The search assumes
// the SLO holds below some rate and fails above it (latency grows with load): it expands upward
// from `lo` by doubling until a probe fails (or `hi_limit`), then bisects that bracket until it is
// within `rel_tolerance`. Simulations are noisy and batching is discrete, so the assumption can
// break; the guard: every probe is recorded, and the answer is the largest passing rate below the
// smallest failing rate seen anywhere, so a lucky pass above a failure is never reported; and after
// converging it probes a few fractions of the answer (confirm_fractions), which catches a failing
// region that the doubling jumped over. Inversions set `non_monotone` so the caller can warn or
// rerun with more requests.
//
// Fleet sizing: replicas = ceil(target / max_rate_per_replica); whole nodes are bought, so
// nodes = ceil(replicas * gpus_per_replica / gpus_per_node) for replicas that fit inside a node and
// replicas * ceil(gpus_per_replica / gpus_per_node) for ones that span nodes. $/hour charges every
// GPU in those nodes at the tier's GPU-hour price plus the Engram DRAM and SSD capacity added per
// node, amortised straight-line over its economic life. $/M tokens divides by the tokens the fleet
// serves at the target load.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/units.hpp"

namespace engramsim::planner {

struct RateProbe {
  double rate = 0.0;  // requests/s
  bool meets_slo = false;
  nlohmann::json result;
};

struct RateSearchOptions {
  double lo = 0.1;              // first probe, requests/s (> 0)
  double hi = 1.0;              // second probe; the expansion starts here
  double hi_limit = 1e6;        // never probe above this
  double rel_tolerance = 0.02;  // stop when (fail - pass) <= rel_tolerance * pass
  int max_probes = 40;
  // After converging on r, also probe these fractions of r; a failure there exposes a
  // non-monotone region the doubling skipped over, and the search restarts below it.
  std::vector<double> confirm_fractions = {0.5, 0.8};
};

struct RateSearchResult {
  bool found = false;             // some probed rate met the SLO
  double max_rate = 0.0;          // largest passing rate below the lowest failing one
  double lowest_failing = 0.0;    // +inf when nothing failed (hit hi_limit or max_probes)
  bool non_monotone = false;      // some passing probe lies above a failing one
  bool hit_limit = false;         // stopped at hi_limit or max_probes before bracketing
  std::vector<RateProbe> probes;  // in probe order
  nlohmann::json best_result;     // the result at max_rate
};

using RateEvaluator = std::function<nlohmann::json(double rate)>;
using SloCheck = std::function<bool(const nlohmann::json& result)>;

// Throws std::invalid_argument for lo <= 0, hi <= lo, hi_limit < hi, tolerance <= 0 or max_probes < 2.
RateSearchResult find_max_rate(const RateEvaluator& evaluate_at_rate, const SloCheck& slo_check,
                               const RateSearchOptions& options);
// The signature from the design notes: lo, hi and tolerance, other options at their defaults.
RateSearchResult find_max_rate(const RateEvaluator& evaluate_at_rate, const SloCheck& slo_check, double lo, double hi,
                               double rel_tolerance);

// What one replica of a candidate deployment costs and needs.
struct FleetCostInputs {
  int gpus_per_replica = 1;
  int gpus_per_node = 8;
  MoneyRate gpu_hour;         // $/GPU-hour at the chosen tier
  Bytes extra_dram_per_node;  // host DRAM added for Engram beyond the base server
  MoneyPerByte dram_price;
  Bytes extra_ssd_per_node;  // NVMe capacity added for Engram
  MoneyPerByte ssd_price;
  Time amortization_life = Time::from_seconds(4.0 * 8766.0 * 3600.0);  // 4 years of 8,766 h, as the node presets
};

struct FleetPlan {
  double target_rate = 0.0;  // requests/s to serve
  double max_rate_per_replica = 0.0;
  int replicas = 0;
  int nodes = 0;
  int gpus = 0;              // all GPUs in the bought nodes
  double utilization = 0.0;  // target / (replicas * max_rate_per_replica)
  MoneyRate gpu_cost_per_hour;
  MoneyRate storage_cost_per_hour;      // amortised extra DRAM + SSD
  MoneyRate cost_per_hour;              // the sum
  double usd_per_million_tokens = 0.0;  // at the target load
};

// Throws std::invalid_argument for non-positive rates, tokens per request or GPU counts.
FleetPlan size_fleet(double target_rate, double max_rate_per_replica, double tokens_per_request,
                     const FleetCostInputs& cost);

struct Candidate {
  std::string name;
  double max_rate_per_replica = 0.0;                  // from find_max_rate
  bool past_kv_wall = false;                          // it meets the SLO only past its KV wall (kv_wall.hpp)
  double tokens_per_request = 0.0;                    // input + output tokens per request of the workload
  FleetCostInputs cost;                               // gpu_hour is overridden per tier by the sensitivity analysis
  std::map<std::string, MoneyRate> gpu_hour_by_tier;  // "hyperscaler", "neocloud", "rental"
};

struct RankedPlan {
  std::string name;
  FleetPlan plan;
  bool past_kv_wall = false;  // sized at a rate past its KV wall
};

// Plans within their KV wall first; then cheapest first; ties by fewer GPUs, then by lower
// utilization (more headroom), then by name (a total, deterministic order).
std::vector<RankedPlan> rank_plans(std::vector<RankedPlan> plans);

// Sizes every candidate at target_rate (cost as given in each candidate) and ranks them. A
// candidate with max_rate_per_replica <= 0 (never meets the SLO) is left out.
std::vector<RankedPlan> plan_fleets(const std::vector<Candidate>& candidates, double target_rate);

struct SensitivityCase {
  std::string tier;
  double load_factor = 1.0;  // target multiplied by this
  std::vector<RankedPlan> ranking;
};

struct SensitivityReport {
  std::vector<SensitivityCase> cases;
  std::string baseline_winner;  // at (baseline tier, factor 1)
  bool winner_stable = true;    // the same candidate wins every case
};

// Re-ranks the candidates for every (tier, load factor) pair; a tier a candidate has no price for
// is an error (std::invalid_argument). Default factors are 0.8, 1.0, 1.2 (±20 % load).
SensitivityReport sensitivity(const std::vector<Candidate>& candidates, double target_rate,
                              const std::vector<std::string>& tiers, const std::string& baseline_tier,
                              const std::vector<double>& load_factors = {0.8, 1.0, 1.2});

}  // namespace engramsim::planner
