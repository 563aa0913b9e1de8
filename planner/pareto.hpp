// Throughput/interactivity analysis in the InferenceX style, as pure functions.
//
// x is interactivity (tok/s/user), y is a per-GPU figure of merit (total tok/s/GPU, or tokens
// per dollar). Each configuration (everything but the concurrency axis) traces a curve as
// concurrency grows: interactivity falls, throughput per GPU rises. The upper-right Pareto
// frontier keeps the points no other point beats on both axes; sorted by x it is strictly
// decreasing in y, so it is a monotone function of interactivity, and a Steffen (1990) monotone
// cubic through its points compares configurations at the same interactivity without the
// overshoot an ordinary spline would add. No extrapolation: outside a frontier's interactivity
// range the value is unknown (nullopt).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace engramsim::planner {

struct CurvePoint {
  double x = 0.0;  // interactivity, tok/s/user
  double y = 0.0;  // per-GPU figure of merit
  double concurrency = 0.0;
  std::string config;     // which configuration produced it
  std::size_t index = 0;  // sweep point index
};

struct Curve {
  std::string config;
  std::vector<CurvePoint> points;  // ascending concurrency
};

// Groups points by config (curves in order of first appearance), each sorted by concurrency.
// Points with a non-finite x or y are dropped.
std::vector<Curve> build_curves(const std::vector<CurvePoint>& points);

// The upper-right frontier: points not dominated (another point with x' >= x and y' >= y, one of
// them strictly). Sorted by ascending x (so y strictly descends). Exact duplicates keep the first.
std::vector<CurvePoint> pareto_frontier(const std::vector<CurvePoint>& points);

// Tokens per dollar from tok/s/GPU and $/GPU-hour (see point_metrics.hpp), applied to y.
std::vector<CurvePoint> to_tokens_per_dollar(const std::vector<CurvePoint>& points, double usd_per_gpu_hour);

// Steffen's monotone cubic Hermite interpolant through (x_i, y_i), x strictly increasing. Between
// two data points it never leaves the range of their y values; a monotone data set gives a monotone
// curve. One point: defined only at that x. Two points: the straight line.
class SteffenSpline {
 public:
  // Throws std::invalid_argument when sizes differ, the set is empty, or x is not strictly increasing.
  SteffenSpline(std::vector<double> x, std::vector<double> y);

  double x_min() const { return x_.front(); }
  double x_max() const { return x_.back(); }
  // nullopt outside [x_min, x_max].
  std::optional<double> operator()(double x) const;
  const std::vector<double>& slopes() const { return d_; }  // derivative at each knot

 private:
  std::vector<double> x_;
  std::vector<double> y_;
  std::vector<double> d_;
};

// The Steffen spline through a frontier (points with non-increasing x skipped); nullopt when empty.
std::optional<SteffenSpline> frontier_spline(const std::vector<CurvePoint>& frontier);
// The frontier's y at interactivity x (Steffen through the frontier points); nullopt outside its range.
std::optional<double> frontier_value_at(const std::vector<CurvePoint>& frontier, double x);

// A configuration's figure at interactivity x read off its frontier. Inside the frontier's range:
// the Steffen value, with `interpolation_error` the relative gap between it and the straight line
// through the two frontier points around x (two interpolants of different order; 0 at a knot).
// When every frontier point is faster than x (x below the range): the best y among them,
// `at_least` set: the configuration meets x at that figure, and a heavier load might read more.
// Below-range frontiers (all slower than x) and empty ones read nothing.
struct FrontierReading {
  std::optional<double> value;
  bool at_least = false;
  double interpolation_error = 0.0;
};
FrontierReading frontier_reading_at(const std::vector<CurvePoint>& frontier, double x);

// a(x) / b(x) for two frontiers; nullopt when x is outside either range or b(x) <= 0.
std::optional<double> frontier_ratio(const std::vector<CurvePoint>& a, const std::vector<CurvePoint>& b, double x);

struct RatioExtremum {
  double x = 0.0;
  double ratio = 0.0;
};
// The largest a(x)/b(x) over the overlap of the two ranges, sampled at `samples` log-spaced x
// (x > 0) plus the knots of both frontiers inside the overlap; nullopt when they do not overlap.
std::optional<RatioExtremum> max_frontier_ratio(const std::vector<CurvePoint>& a, const std::vector<CurvePoint>& b,
                                                std::size_t samples = 256);

}  // namespace engramsim::planner
