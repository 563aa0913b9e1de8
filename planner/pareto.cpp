#include "planner/pareto.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace engramsim::planner {
namespace {

double sign(double v) { return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0); }

}  // namespace

std::vector<Curve> build_curves(const std::vector<CurvePoint>& points) {
  std::vector<Curve> curves;
  std::map<std::string, std::size_t> where;
  for (const auto& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    auto [it, inserted] = where.emplace(p.config, curves.size());
    if (inserted) curves.push_back(Curve{p.config, {}});
    curves[it->second].points.push_back(p);
  }
  for (auto& c : curves) {
    std::stable_sort(c.points.begin(), c.points.end(),
                     [](const CurvePoint& a, const CurvePoint& b) { return a.concurrency < b.concurrency; });
  }
  return curves;
}

std::vector<CurvePoint> pareto_frontier(const std::vector<CurvePoint>& points) {
  std::vector<CurvePoint> sorted;
  for (const auto& p : points)
    if (std::isfinite(p.x) && std::isfinite(p.y)) sorted.push_back(p);
  // Sweep from the largest x down, keeping a point when its y beats every y seen at larger x.
  // Among equal x, the larger y comes first so the smaller ones are dominated.
  std::stable_sort(sorted.begin(), sorted.end(), [](const CurvePoint& a, const CurvePoint& b) {
    if (a.x != b.x) return a.x > b.x;
    return a.y > b.y;
  });
  std::vector<CurvePoint> front;
  double best_y = -INFINITY;
  for (const auto& p : sorted) {
    if (p.y > best_y) {
      front.push_back(p);
      best_y = p.y;
    }
  }
  std::reverse(front.begin(), front.end());
  return front;
}

std::vector<CurvePoint> to_tokens_per_dollar(const std::vector<CurvePoint>& points, double usd_per_gpu_hour) {
  std::vector<CurvePoint> out = points;
  for (auto& p : out) p.y = usd_per_gpu_hour > 0.0 ? p.y * 3600.0 / usd_per_gpu_hour : 0.0;
  return out;
}

SteffenSpline::SteffenSpline(std::vector<double> x, std::vector<double> y) : x_(std::move(x)), y_(std::move(y)) {
  if (x_.size() != y_.size()) throw std::invalid_argument("SteffenSpline: x and y differ in length");
  if (x_.empty()) throw std::invalid_argument("SteffenSpline: no points");
  for (std::size_t i = 0; i < x_.size(); ++i) {
    if (!std::isfinite(x_[i]) || !std::isfinite(y_[i])) throw std::invalid_argument("SteffenSpline: non-finite point");
    if (i > 0 && !(x_[i] > x_[i - 1])) throw std::invalid_argument("SteffenSpline: x must be strictly increasing");
  }
  const std::size_t n = x_.size();
  d_.assign(n, 0.0);
  if (n == 1) return;
  std::vector<double> h(n - 1);
  std::vector<double> s(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    h[i] = x_[i + 1] - x_[i];
    s[i] = (y_[i + 1] - y_[i]) / h[i];
  }
  if (n == 2) {
    d_[0] = d_[1] = s[0];
    return;
  }
  // Interior knots (Steffen 1990, eq. 11): the parabola slope p_i, limited so the cubic on either
  // side stays within its end values.
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double p = (s[i - 1] * h[i] + s[i] * h[i - 1]) / (h[i - 1] + h[i]);
    d_[i] = (sign(s[i - 1]) + sign(s[i])) * std::min({std::abs(s[i - 1]), std::abs(s[i]), 0.5 * std::abs(p)});
  }
  // End knots (eq. 26-27): slope of the parabola through the first (last) three points, clamped.
  auto end_slope = [](double p, double s0) {
    if (p * s0 <= 0.0) return 0.0;
    if (std::abs(p) > 2.0 * std::abs(s0)) return 2.0 * s0;
    return p;
  };
  const double p0 = s[0] * (1.0 + h[0] / (h[0] + h[1])) - s[1] * h[0] / (h[0] + h[1]);
  d_[0] = end_slope(p0, s[0]);
  const std::size_t m = n - 2;  // last interval
  const double pn = s[m] * (1.0 + h[m] / (h[m] + h[m - 1])) - s[m - 1] * h[m] / (h[m] + h[m - 1]);
  d_[n - 1] = end_slope(pn, s[m]);
}

std::optional<double> SteffenSpline::operator()(double x) const {
  if (!(x >= x_.front() && x <= x_.back())) return std::nullopt;
  if (x_.size() == 1) return y_.front();
  // The interval [x_i, x_{i+1}] holding x (the last one for x == x_max).
  std::size_t i = static_cast<std::size_t>(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin());
  i = i == 0 ? 0 : i - 1;
  if (i >= x_.size() - 1) i = x_.size() - 2;
  const double h = x_[i + 1] - x_[i];
  const double s = (y_[i + 1] - y_[i]) / h;
  const double t = x - x_[i];
  const double a = (d_[i] + d_[i + 1] - 2.0 * s) / (h * h);
  const double b = (3.0 * s - 2.0 * d_[i] - d_[i + 1]) / h;
  return ((a * t + b) * t + d_[i]) * t + y_[i];
}

std::optional<SteffenSpline> frontier_spline(const std::vector<CurvePoint>& frontier) {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto& p : frontier) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    if (!xs.empty() && !(p.x > xs.back())) continue;  // a frontier has distinct x; be safe with raw input
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  if (xs.empty()) return std::nullopt;
  return SteffenSpline(std::move(xs), std::move(ys));
}

std::optional<double> frontier_value_at(const std::vector<CurvePoint>& frontier, double x) {
  const auto s = frontier_spline(frontier);
  if (!s) return std::nullopt;
  return (*s)(x);
}

FrontierReading frontier_reading_at(const std::vector<CurvePoint>& frontier, double x) {
  FrontierReading r;
  const auto s = frontier_spline(frontier);
  if (!s || !std::isfinite(x)) return r;
  if (x < s->x_min()) {
    for (const auto& p : frontier)
      if (std::isfinite(p.y) && (!r.value || p.y > *r.value)) r.value = p.y;
    r.at_least = r.value.has_value();
    return r;
  }
  r.value = (*s)(x);
  if (!r.value) return r;
  // The frontier points around x (a frontier is sorted by ascending x).
  const auto hi = std::find_if(frontier.begin(), frontier.end(), [&](const CurvePoint& p) { return p.x >= x; });
  if (hi == frontier.begin() || hi == frontier.end() || hi->x == x || !(*r.value != 0.0)) return r;
  const auto lo = hi - 1;
  const double line = lo->y + (hi->y - lo->y) * (x - lo->x) / (hi->x - lo->x);
  r.interpolation_error = std::abs(*r.value - line) / std::abs(*r.value);
  return r;
}

std::optional<double> frontier_ratio(const std::vector<CurvePoint>& a, const std::vector<CurvePoint>& b, double x) {
  const auto ya = frontier_value_at(a, x);
  const auto yb = frontier_value_at(b, x);
  if (!ya || !yb || !(*yb > 0.0)) return std::nullopt;
  return *ya / *yb;
}

std::optional<RatioExtremum> max_frontier_ratio(const std::vector<CurvePoint>& a, const std::vector<CurvePoint>& b,
                                                std::size_t samples) {
  if (a.empty() || b.empty()) return std::nullopt;
  const double lo = std::max(a.front().x, b.front().x);
  const double hi = std::min(a.back().x, b.back().x);
  if (!(lo <= hi)) return std::nullopt;
  std::vector<double> xs;
  for (const auto* f : {&a, &b})
    for (const auto& p : *f)
      if (p.x >= lo && p.x <= hi) xs.push_back(p.x);
  const bool log_spaced = lo > 0.0;
  for (std::size_t k = 0; k < samples; ++k) {
    const double f = samples == 1 ? 0.0 : static_cast<double>(k) / static_cast<double>(samples - 1);
    xs.push_back(log_spaced ? lo * std::pow(hi / lo, f) : lo + f * (hi - lo));
  }
  std::sort(xs.begin(), xs.end());
  const auto sa = frontier_spline(a);
  const auto sb = frontier_spline(b);
  if (!sa || !sb) return std::nullopt;
  std::optional<RatioExtremum> best;
  for (double x : xs) {
    // Log spacing can land a hair outside the overlap through rounding.
    const double xc = std::clamp(x, lo, hi);
    const auto ya = (*sa)(xc);
    const auto yb = (*sb)(xc);
    if (!ya || !yb || !(*yb > 0.0)) continue;
    const double r = *ya / *yb;
    if (!best || r > best->ratio) best = RatioExtremum{xc, r};
  }
  return best;
}

}  // namespace engramsim::planner
