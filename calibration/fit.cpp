#include "calibration/fit.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>

namespace engramsim::calibration {
namespace {

void residuals(const std::vector<double>& x, const std::vector<double>& y, AffineFit& f) {
  double ss = 0.0;
  double mx = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = (f.intercept + f.slope * x[i] - y[i]) / y[i];
    ss += r * r;
    mx = std::max(mx, std::abs(r));
  }
  f.rms_relative_residual = std::sqrt(ss / static_cast<double>(x.size()));
  f.max_relative_residual = mx;
}

}  // namespace

AffineFit fit_affine_relative(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("fit: x and y differ in length");
  if (x.size() < 2) throw std::invalid_argument("fit: needs at least two samples");
  bool distinct = false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || x[i] < 0.0) throw std::invalid_argument("fit: x must be finite and >= 0");
    if (!std::isfinite(y[i]) || !(y[i] > 0.0)) throw std::invalid_argument("fit: y must be finite and > 0");
    if (x[i] != x[0]) distinct = true;
  }
  if (!distinct) throw std::invalid_argument("fit: needs at least two distinct x values");

  // Dividing each row by y_i turns relative residuals into ordinary ones: minimise
  // || [1/y, x/y] [a b]^T - 1 ||. Columns are scaled to unit norm first: x/y can be 1e12 times 1/y.
  const auto n = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixX2d a(n, 2);
  Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = 1.0 / y[static_cast<std::size_t>(i)];
    a(i, 1) = x[static_cast<std::size_t>(i)] / y[static_cast<std::size_t>(i)];
  }
  const Eigen::Vector2d scale(a.col(0).norm(), a.col(1).norm());
  if (!(scale(1) > 0.0)) throw std::invalid_argument("fit: all x are zero");
  Eigen::MatrixX2d as = a;
  as.col(0) /= scale(0);
  as.col(1) /= scale(1);
  const Eigen::Vector2d sol = as.colPivHouseholderQr().solve(ones);

  AffineFit f;
  f.samples = static_cast<int>(n);
  f.intercept = sol(0) / scale(0);
  f.slope = sol(1) / scale(1);
  if (f.intercept < 0.0) {
    // Through the origin: minimise sum (b x_i/y_i - 1)^2 -> b = sum(x/y) / sum((x/y)^2).
    const Eigen::VectorXd c = a.col(1);
    f.intercept = 0.0;
    f.slope = c.sum() / c.squaredNorm();
    f.intercept_clamped = true;
  }
  if (!(f.slope > 0.0) || !std::isfinite(f.slope))
    throw std::invalid_argument("fit: time does not grow with size (slope <= 0); no rate can be derived");
  residuals(x, y, f);
  return f;
}

AlphaBeta fit_alpha_beta(const std::vector<double>& bytes, const std::vector<double>& seconds) {
  const AffineFit f = fit_affine_relative(bytes, seconds);
  AlphaBeta ab;
  ab.alpha = Time::from_seconds(f.intercept);
  ab.beta = Bandwidth(1.0 / f.slope);
  ab.rms_relative_residual = f.rms_relative_residual;
  ab.max_relative_residual = f.max_relative_residual;
  ab.samples = f.samples;
  return ab;
}

OverheadRate fit_overhead_rate(const std::vector<double>& flops, const std::vector<double>& seconds) {
  const AffineFit f = fit_affine_relative(flops, seconds);
  return {Time::from_seconds(f.intercept), FlopRate(1.0 / f.slope), f.rms_relative_residual, f.max_relative_residual,
          f.samples};
}

}  // namespace engramsim::calibration
