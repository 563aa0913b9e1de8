#include "calibration/zipf_sampler.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace engramsim::calibration {
namespace {

// log(1+t)/t and (exp(t)-1)/t, continuous at t = 0, so that exponent 1 needs no special case.
double log1p_over(double t) { return std::abs(t) > 1e-8 ? std::log1p(t) / t : 1.0 - t / 2.0 + t * t / 3.0; }
double expm1_over(double t) { return std::abs(t) > 1e-8 ? std::expm1(t) / t : 1.0 + t / 2.0 + t * t / 6.0; }

}  // namespace

ZipfSampler::ZipfSampler(std::uint64_t n, double exponent) : n_(n), s_(exponent) {
  if (n == 0) throw std::invalid_argument("Zipf sampler over an empty range");
  if (!(exponent > 0.0) || !std::isfinite(exponent)) throw std::invalid_argument("Zipf exponent must be > 0");
  h_integral_x1_ = big_h(1.5) - 1.0;
  h_integral_n_ = big_h(static_cast<double>(n) + 0.5);
}

double ZipfSampler::h(double x) const { return std::exp(-s_ * std::log(x)); }

// H(x) = integral of h from 1 to x (up to a constant): (x^(1-s) - 1) / (1 - s), or log x at s = 1.
double ZipfSampler::big_h(double x) const {
  const double lx = std::log(x);
  return expm1_over((1.0 - s_) * lx) * lx;
}

double ZipfSampler::big_h_inverse(double y) const {
  double t = y * (1.0 - s_);
  if (t < -1.0) t = -1.0;  // rounding guard: H is bounded below by -1/(1-s) for s < 1
  return std::exp(log1p_over(t) * y);
}

std::uint64_t ZipfSampler::operator()(RngStream& rng) const {
  // u falls in [H(1.5) - h(1), H(n + 0.5)]; the stretch around integer k has width >= h(k) by
  // convexity of h, and the part of width exactly h(k) below H(k + 0.5) is accepted.
  for (;;) {
    const double u = h_integral_n_ + rng.uniform01() * (h_integral_x1_ - h_integral_n_);
    const double x = big_h_inverse(u);
    double kd = std::floor(x + 0.5);
    if (kd < 1.0) kd = 1.0;
    if (kd > static_cast<double>(n_)) kd = static_cast<double>(n_);
    if (u >= big_h(kd + 0.5) - h(kd)) return static_cast<std::uint64_t>(kd);
  }
}

RankScatter::RankScatter(std::uint64_t n) : n_(n), mult_(1) {
  if (n == 0) throw std::invalid_argument("rank scatter over an empty range");
  // A large odd constant (the 64-bit golden ratio) reduced mod n, stepped until coprime with n.
  std::uint64_t m = 0x9e3779b97f4a7c15ULL % n;
  if (m == 0) m = 1;
  while (std::gcd(m, n) != 1) m = (m + 1) % n == 0 ? 1 : m + 1;
  mult_ = m;
}

std::uint64_t RankScatter::operator()(std::uint64_t rank) const {
  __extension__ using Wide = unsigned __int128;  // rank * mult_ needs 128 bits before the modulo
  return static_cast<std::uint64_t>((static_cast<Wide>(rank) * mult_) % n_);
}

}  // namespace engramsim::calibration
