#include "core/zipf_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace engramsim {
namespace {
// log1p(x)/x and expm1(x)/x, continuous at 0.
double log1p_over_x(double x) { return std::fabs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x / 2.0 + x * x / 3.0; }
double expm1_over_x(double x) { return std::fabs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x / 2.0 + x * x / 6.0; }
}  // namespace

ZipfSampler::ZipfSampler(std::int64_t n, double s) : n_(n), s_(s) {
  if (n < 1) throw std::invalid_argument("ZipfSampler: n must be >= 1");
  if (!(s >= 0.0) || !std::isfinite(s)) throw std::invalid_argument("ZipfSampler: exponent must be finite and >= 0");
  h_integral_x1_ = h_integral(1.5) - 1.0;
  h_integral_n_ = h_integral(static_cast<double>(n) + 0.5);
  threshold_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
}

double ZipfSampler::h(double x) const { return std::exp(-s_ * std::log(x)); }

// Integral of x^-s from 1 to x: (x^(1-s) - 1) / (1 - s), or log(x) when s = 1.
double ZipfSampler::h_integral(double x) const {
  const double lx = std::log(x);
  return expm1_over_x((1.0 - s_) * lx) * lx;
}

double ZipfSampler::h_integral_inverse(double x) const {
  double t = x * (1.0 - s_);
  if (t < -1.0) t = -1.0;  // guards rounding at the lower end of the support
  return std::exp(log1p_over_x(t) * x);
}

std::int64_t ZipfSampler::sample(RngStream& rng) const {
  for (;;) {
    const double u = h_integral_n_ + rng.uniform01() * (h_integral_x1_ - h_integral_n_);
    const double x = h_integral_inverse(u);
    std::int64_t k = static_cast<std::int64_t>(x + 0.5);
    k = std::clamp<std::int64_t>(k, 1, n_);
    const double kd = static_cast<double>(k);
    if (kd - x <= threshold_ || u >= h_integral(kd + 0.5) - h(kd)) return k;
  }
}

double generalized_harmonic(std::int64_t n, double s) {
  if (n <= 0) return 0.0;
  constexpr std::int64_t direct = 10000;
  double sum = 0.0;
  const std::int64_t m = std::min(n, direct);
  for (std::int64_t k = m; k >= 1; --k) sum += std::pow(static_cast<double>(k), -s);
  if (n == m) return sum;
  // Euler-Maclaurin for sum_{k=m+1..n} k^-s.
  const double a = static_cast<double>(m + 1), b = static_cast<double>(n);
  double integral =
      std::fabs(s - 1.0) < 1e-12 ? std::log(b / a) : (std::pow(b, 1.0 - s) - std::pow(a, 1.0 - s)) / (1.0 - s);
  const double fa = std::pow(a, -s), fb = std::pow(b, -s);
  const double dfa = -s * std::pow(a, -s - 1.0), dfb = -s * std::pow(b, -s - 1.0);
  return sum + integral + 0.5 * (fa + fb) + (dfb - dfa) / 12.0;
}

double zipf_top_share(std::int64_t n, double s, std::int64_t m) {
  if (m <= 0) return 0.0;
  if (m >= n) return 1.0;
  return generalized_harmonic(m, s) / generalized_harmonic(n, s);
}

}  // namespace engramsim
