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

// Each configuration's ok points with a finite interactivity that `by_id` knows, ascending in the
// curve axis; configurations in order of first appearance.
struct ConfigPoints {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ReportPoint*>> by_config;
};

ConfigPoints ok_points(const ReportData& d, const std::map<std::string, const SweepPoint*>& by_id) {
  ConfigPoints cp;
  for (const auto& p : d.points) {
    if (p.status != PointStatus::ok || !std::isfinite(p.metrics.interactivity) || !by_id.count(p.id)) continue;
    if (!cp.by_config.count(p.config)) cp.order.push_back(p.config);
    cp.by_config[p.config].push_back(&p);
  }
  for (auto& [c, pts] : cp.by_config)
    std::stable_sort(pts.begin(), pts.end(),
                     [](const ReportPoint* a, const ReportPoint* b) { return a->concurrency < b->concurrency; });
  return cp;
}

std::map<std::string, const SweepPoint*> index_by_id(const std::vector<SweepPoint>& points) {
  std::map<std::string, const SweepPoint*> by_id;
  for (const auto& p : points) by_id.emplace(p.id, &p);
  return by_id;
}

// Whether a point of `config` that did not run ok lies beyond `value` (above it when `up`).
bool failed_beyond(const ReportData& d, const std::string& config, double value, bool up) {
  return std::any_of(d.points.begin(), d.points.end(), [&](const ReportPoint& p) {
    return p.config == config && p.status != PointStatus::ok && (up ? p.concurrency > value : p.concurrency < value);
  });
}

// The value past the end of `pts` to run next, or nullopt when the grid should not grow there.
std::optional<YAML::Node> extension(const ReportData& d, const std::vector<const ReportPoint*>& pts, double target) {
  const ReportPoint& lo = *pts.front();
  const ReportPoint& hi = *pts.back();
  const bool integers = std::all_of(pts.begin(), pts.end(),
                                    [](const ReportPoint* p) { return std::floor(p->concurrency) == p->concurrency; });
  const auto node = [&](double v) { return integers ? YAML::Node(static_cast<long long>(v)) : YAML::Node(v); };
  double slowest = lo.metrics.interactivity, fastest = lo.metrics.interactivity;
  for (const auto* p : pts) {
    slowest = std::min(slowest, p->metrics.interactivity);
    fastest = std::max(fastest, p->metrics.interactivity);
  }
  if (slowest > target) {  // every point faster than the target: load it more
    if (pts.size() >= 2 &&
        hi.metrics.throughput_per_gpu <= (1.0 + kSaturated) * pts[pts.size() - 2]->metrics.throughput_per_gpu)
      return std::nullopt;
    const double v = 2.0 * hi.concurrency;
    if (!(v > hi.concurrency) || v > kMaxExtendedLoad || failed_beyond(d, hi.config, hi.concurrency, true))
      return std::nullopt;
    return node(v);
  }
  if (fastest < target) {  // every point slower: load it less
    const double v = integers ? std::floor(lo.concurrency / 2.0) : lo.concurrency / 2.0;
    if (!(v > 0.0) || !(v < lo.concurrency) || failed_beyond(d, lo.config, lo.concurrency, false)) return std::nullopt;
    return node(v);
  }
  return std::nullopt;
}

}  // namespace

std::vector<SweepPoint> extension_points(const ReportData& d, const std::vector<SweepPoint>& points, double target) {
  const auto by_id = index_by_id(points);
  const ConfigPoints cp = ok_points(d, by_id);
  std::vector<SweepPoint> out;
  for (const auto& c : cp.order) {
    const auto& pts = cp.by_config.at(c);
    const auto v = extension(d, pts, target);
    if (!v) continue;
    const ReportPoint& from = v->as<double>() > pts.back()->concurrency ? *pts.back() : *pts.front();
    SweepPoint p = make_sweep_point(out.size(), with_axis(*by_id.at(from.id), d.context.curve_axis, *v));
    if (!by_id.count(p.id)) out.push_back(std::move(p));
  }
  return out;
}

std::vector<SweepPoint> refinement_points(const ReportData& d, const std::vector<SweepPoint>& points, double target) {
  const auto by_id = index_by_id(points);
  const ConfigPoints cp = ok_points(d, by_id);
  std::vector<SweepPoint> out;
  std::set<std::string> ids;
  for (const auto& c : cp.order) {
    const auto& pts = cp.by_config.at(c);
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
      const double a = pts[i]->metrics.interactivity - target;
      const double b = pts[i + 1]->metrics.interactivity - target;
      if (a * b > 0.0) continue;
      const auto mid = midpoint(pts[i]->concurrency, pts[i + 1]->concurrency);
      if (!mid) continue;
      SweepPoint p = make_sweep_point(out.size(), with_axis(*by_id.at(pts[i]->id), d.context.curve_axis, *mid));
      if (by_id.count(p.id) || !ids.insert(p.id).second) continue;
      out.push_back(std::move(p));
    }
  }
  for (auto& p : extension_points(d, points, target))
    if (ids.insert(p.id).second) out.push_back(std::move(p));
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
