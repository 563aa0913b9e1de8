#include "planner/refine.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace engramsim::planner {
namespace {

// The midpoint of two curve-axis values, or nullopt when they are already adjacent.
std::optional<YAML::Node> midpoint(double lo, double hi) {
  if (lo > hi) std::swap(lo, hi);
  const bool integers = std::floor(lo) == lo && std::floor(hi) == hi;
  if (integers) {
    if (hi - lo <= 1.0) return std::nullopt;
    return YAML::Node(static_cast<long long>(std::floor((lo + hi) / 2.0)));
  }
  if (!(hi > 0.0) || (hi - lo) / hi <= kRefineSettled) return std::nullopt;
  return YAML::Node((lo + hi) / 2.0);
}

// A copy of `from` with the curve axis set to `value`.
std::vector<Assignment> with_axis(const SweepPoint& from, const std::string& axis, const YAML::Node& value) {
  std::vector<Assignment> out;
  for (const auto& a : from.assignments) out.push_back({a.key, a.key == axis ? value : YAML::Clone(a.value)});
  return out;
}

}  // namespace

std::vector<SweepPoint> refinement_points(const ReportData& d, const std::vector<SweepPoint>& points, double target) {
  std::map<std::string, const SweepPoint*> by_id;
  for (const auto& p : points) by_id.emplace(p.id, &p);
  std::map<std::string, std::vector<const ReportPoint*>> by_config;
  std::vector<std::string> order;
  for (const auto& p : d.points) {
    if (p.status != PointStatus::ok || !std::isfinite(p.metrics.interactivity) || !by_id.count(p.id)) continue;
    if (!by_config.count(p.config)) order.push_back(p.config);
    by_config[p.config].push_back(&p);
  }
  std::vector<SweepPoint> out;
  std::set<std::string> ids;
  for (const auto& c : order) {
    auto& pts = by_config[c];
    std::stable_sort(pts.begin(), pts.end(),
                     [](const ReportPoint* a, const ReportPoint* b) { return a->concurrency < b->concurrency; });
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
      const double a = pts[i]->metrics.interactivity - target;
      const double b = pts[i + 1]->metrics.interactivity - target;
      if (a * b > 0.0) continue;
      const auto mid = midpoint(pts[i]->concurrency, pts[i + 1]->concurrency);
      if (!mid) continue;
      SweepPoint p = make_sweep_point(out.size(), with_axis(*by_id[pts[i]->id], d.context.curve_axis, *mid));
      if (by_id.count(p.id) || !ids.insert(p.id).second) continue;
      out.push_back(std::move(p));
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].index = i;
  return out;
}

double largest_change(const std::vector<ConfigComparison>& before, const std::vector<ConfigComparison>& after) {
  std::map<std::string, std::optional<double>> old;
  for (const auto& c : before) old[c.config] = c.tokens_per_dollar;
  double worst = 0.0;
  for (const auto& c : after) {
    const auto it = old.find(c.config);
    const std::optional<double> was = it == old.end() ? std::nullopt : it->second;
    if (was.has_value() != c.tokens_per_dollar.has_value()) {
      worst = std::max(worst, 1.0);
      continue;
    }
    if (was && *was > 0.0) worst = std::max(worst, std::abs(*c.tokens_per_dollar / *was - 1.0));
  }
  return worst;
}

}  // namespace engramsim::planner
