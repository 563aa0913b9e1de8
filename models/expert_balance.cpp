#include "models/expert_balance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>

namespace engramsim {

const char* placement_name(ExpertPlacement p) { return kExpertPlacementNames.name(p); }

std::optional<ExpertPlacement> placement_from_name(std::string_view name) { return kExpertPlacementNames.parse(name); }

const std::vector<std::string>& placement_names() {
  static const std::vector<std::string> names = kExpertPlacementNames.names();
  return names;
}

const char* routing_name(ExpertRouting r) { return kExpertRoutingNames.name(r); }

std::optional<ExpertRouting> routing_from_name(std::string_view name) { return kExpertRoutingNames.parse(name); }

const std::vector<std::string>& routing_names() {
  static const std::vector<std::string> names = kExpertRoutingNames.names();
  return names;
}

std::vector<std::pair<std::string, ExpertPlacement>> placement_choices() { return kExpertPlacementNames.choices(); }

std::vector<std::pair<std::string, ExpertRouting>> routing_choices() { return kExpertRoutingNames.choices(); }

namespace {

// Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9).
double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2.0 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  if (p > 1.0 - lo) return -normal_quantile(1.0 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

constexpr int kTrials = 256;                          // popularity draws averaged
constexpr std::uint64_t kSeed = 0x5eed'e4b1'0a1bULL;  // fixed: the same layout gives the same skew

// Busiest rank's load over the mean for one popularity draw `w` (mean 1) under EPLB.
double eplb_max_over_mean(const std::vector<double>& w, int ranks, int redundant) {
  const int experts = static_cast<int>(w.size());
  std::vector<int> replicas(static_cast<std::size_t>(experts), 1);
  for (int r = 0; r < redundant; ++r) {
    int best = 0;
    for (int e = 1; e < experts; ++e)
      if (w[e] / replicas[e] > w[best] / replicas[best]) best = e;
    ++replicas[best];
  }
  std::vector<double> slots;
  slots.reserve(static_cast<std::size_t>(experts + redundant));
  for (int e = 0; e < experts; ++e)
    for (int k = 0; k < replicas[e]; ++k) slots.push_back(w[e] / replicas[e]);
  std::sort(slots.begin(), slots.end(), std::greater<>());
  const int per_rank = (experts + redundant) / ranks;
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  std::vector<int> used(static_cast<std::size_t>(ranks), 0);
  for (const double s : slots) {
    int pick = -1;
    for (int p = 0; p < ranks; ++p)
      if (used[p] < per_rank && (pick < 0 || load[p] < load[pick])) pick = p;
    load[pick] += s;
    ++used[pick];
  }
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / ranks;
  return *std::max_element(load.begin(), load.end()) / mean;
}

}  // namespace

std::string expert_slots_problem(int experts, int ranks, const ExpertBalance& balance) {
  if (balance.placement != ExpertPlacement::eplb || ranks < 1 || (experts + balance.redundant_experts) % ranks == 0)
    return "";
  return "eplb needs the " + std::to_string(experts) + " experts + " + std::to_string(balance.redundant_experts) +
         " redundant replicas to divide evenly over ep " + std::to_string(ranks);
}

double expected_max_standard_normal(int n) {
  if (n <= 1) return 0.0;
  return normal_quantile((n - 0.375) / (n + 0.25));
}

double experts_touched_share(double tokens, double experts, double top_k, ExpertRouting routing) {
  if (!(tokens > 0.0) || !(experts > 0.0) || !(top_k > 0.0)) return 0.0;
  if (routing == ExpertRouting::balanced) return std::min(1.0, tokens * top_k / experts);
  return -std::expm1(tokens * std::log1p(-std::min(1.0, top_k / experts)));
}

double hottest_rank_skew(int experts, int ranks, double popularity_cv, const ExpertBalance& balance) {
  if (experts < 1 || ranks < 1) throw std::invalid_argument("expert balance: need experts >= 1 and ranks >= 1");
  if (!(popularity_cv >= 0.0)) throw std::invalid_argument("expert balance: popularity_cv must be >= 0");
  if (balance.redundant_experts < 0) throw std::invalid_argument("expert balance: redundant_experts must be >= 0");
  if (const std::string why = expert_slots_problem(experts, ranks, balance); !why.empty())
    throw std::invalid_argument("expert balance: " + why);
  if (balance.placement == ExpertPlacement::ideal || balance.routing == ExpertRouting::balanced || ranks == 1 ||
      popularity_cv == 0.0)
    return 1.0;

  const double sigma = std::sqrt(std::log1p(popularity_cv * popularity_cv));
  std::mt19937_64 rng(kSeed);  // fully specified by the standard, unlike its distributions
  auto normal = [&rng] {       // Box-Muller on 53-bit uniforms
    const double u1 = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  };
  std::vector<double> w(static_cast<std::size_t>(experts));
  double sum_ratio = 0.0;
  for (int t = 0; t < kTrials; ++t) {
    double total = 0.0;
    for (auto& x : w) total += (x = std::exp(sigma * normal()));
    for (auto& x : w) x *= experts / total;
    if (balance.placement == ExpertPlacement::eplb) {
      sum_ratio += eplb_max_over_mean(w, ranks, balance.redundant_experts);
      continue;
    }
    // Static: experts in index order, as even a split as the counts allow (the last ranks may hold
    // one fewer); popularity is independent of the index, so this is a random placement.
    double worst = 0.0;
    for (int p = 0; p < ranks; ++p) {
      const int from = static_cast<int>(static_cast<std::int64_t>(experts) * p / ranks);
      const int to = static_cast<int>(static_cast<std::int64_t>(experts) * (p + 1) / ranks);
      double load = 0.0;
      for (int e = from; e < to; ++e) load += w[e];
      worst = std::max(worst, load / (static_cast<double>(experts) / ranks));
    }
    sum_ratio += worst;
  }
  return sum_ratio / kTrials;
}

double hottest_rank_rows(double mean_rows, double skew, double z_ranks) {
  if (!(mean_rows > 0.0)) return 0.0;
  const double excess = mean_rows * (skew - 1.0);
  return mean_rows + std::sqrt(excess * excess + z_ranks * z_ranks * mean_rows);
}

}  // namespace engramsim
