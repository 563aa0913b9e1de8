#pragma once
// How routed tokens spread over the expert-parallel ranks, and what the busiest rank receives.
//
// Under expert parallelism every MoE layer waits for its busiest rank: the grouped GEMM and the
// all-to-all receive of that rank set the layer's time. Two effects make that rank busier than the
// mean (docs/cost-model.md, "Expert-load imbalance"):
//   - popularity skew: a router sends more tokens to some experts than to others, and which experts
//     are hot changes per layer and per dataset. Modelled as a log-normal expert popularity with the
//     card's coefficient of variation (moe.popularity_cv), placed on the ranks by the placement
//     policy. The expected busiest-rank share over the mean, `skew`, comes from a fixed-seed Monte
//     Carlo over popularity draws (deterministic, computed once per layout).
//   - sampling noise: a step routes a finite number of rows, so even balanced ranks differ by about
//     sqrt(rows). The busiest of P ranks lies about z_P standard deviations above the mean, z_P the
//     expected maximum of P standard normals.
// The two combine as rows_hot = n + sqrt((n (skew - 1))^2 + z_P^2 n) for n mean rows per rank: the
// skew term binds when the placement leaves a hot rank, the noise term when it is balanced.
//
// Placement policies (chosen by name in a scenario's deployment.expert_placement):
//   ideal   every rank gets exactly the mean (no skew, no noise): the bound of a perfect balancer
//   static  experts in index order, E/P per rank, no balancer (what engines do unless told)
//   eplb    DeepSeek's EPLB: `redundant_experts` extra replicas go one at a time to the expert with
//           the most load per replica, then replicas are packed heaviest first onto the least-loaded
//           rank with a free slot, (E + R) / P slots per rank; the balancer knows the popularity
//           (the best case: its statistics lag the traffic in practice)

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/enum_names.hpp"

namespace engramsim {

//
// Routing (deployment.expert_routing) is how a step's tokens pick their experts, which a balancer
// cannot change:
//   random    each token draws its k experts afresh (what a served model's router does)
//   balanced  every expert receives the same rows: T tokens reach min(E, T k) distinct experts, and no
//             rank is busier than the mean whatever the placement. How kernel benchmarks and
//             profiles route (DeepSeek's profile-data; AIConfigurator's balanced_logits sends token
//             t to experts t s + j s mod E, s = E / k)

enum class ExpertPlacement { ideal, static_order, eplb };
inline constexpr EnumNames<ExpertPlacement, 3> kExpertPlacementNames{{{
    {ExpertPlacement::ideal, "ideal"},
    {ExpertPlacement::static_order, "static"},
    {ExpertPlacement::eplb, "eplb"},
}}};
enum class ExpertRouting { random, balanced };
inline constexpr EnumNames<ExpertRouting, 2> kExpertRoutingNames{{{
    {ExpertRouting::random, "random"},
    {ExpertRouting::balanced, "balanced"},
}}};

struct ExpertBalance {
  ExpertPlacement placement = ExpertPlacement::ideal;
  int redundant_experts = 0;  // eplb only: extra expert replicas over the EP group
  ExpertRouting routing = ExpertRouting::random;
  bool operator==(const ExpertBalance&) const = default;
};

// "ideal", "static", "eplb".
const char* placement_name(ExpertPlacement p);
std::optional<ExpertPlacement> placement_from_name(std::string_view name);
const std::vector<std::string>& placement_names();
// "random", "balanced".
const char* routing_name(ExpertRouting r);
std::optional<ExpertRouting> routing_from_name(std::string_view name);
const std::vector<std::string>& routing_names();
// Each name with its value, in the names' order: the choices of the schema keys
// `expert_placement` and `expert_routing`.
std::vector<std::pair<std::string, ExpertPlacement>> placement_choices();
std::vector<std::pair<std::string, ExpertRouting>> routing_choices();

// Why `balance` cannot place `experts` routed experts on `ranks` EP ranks ("" when it can): eplb
// needs experts + redundant_experts to divide evenly over the ranks.
std::string expert_slots_problem(int experts, int ranks, const ExpertBalance& balance);

// Expected maximum of n independent standard normals (Blom's approximation; 0 for n <= 1).
double expected_max_standard_normal(int n);

// Expected busiest-rank share of routed rows over the mean share, from popularity skew alone, for
// `experts` routed experts on `ranks` EP ranks. 1 for ideal placement, balanced routing, one rank or
// no skew.
// Throws std::invalid_argument on experts < 1, ranks < 1, negative cv, a negative redundancy, or
// eplb slots that do not divide evenly over the ranks.
double hottest_rank_skew(int experts, int ranks, double popularity_cv, const ExpertBalance& balance);

// Share of the `experts` routed experts that `tokens` tokens of top-`top_k` routing reach in one
// layer: 1 - (1 - k/E)^T under random routing; min(1, T k / E) under balanced routing, where every
// routed row goes to a distinct expert until all are reached. 0 for no tokens or no experts.
double experts_touched_share(double tokens, double experts, double top_k, ExpertRouting routing);

// Rows the busiest rank receives when the mean is `mean_rows` (see the header comment).
double hottest_rank_rows(double mean_rows, double skew, double z_ranks);

}  // namespace engramsim
