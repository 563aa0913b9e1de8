// Draws ranks 1..n from a Zipf(s) distribution, P(k) proportional to k^-s, in O(1) expected time
// and O(1) memory, so tables of hundreds of millions of rows need no probability table.
//
// Method: rejection-inversion (Hoermann and Derflinger, 1996): invert the integral of x^-s over a
// continuous envelope and accept or reject the rounded point. Valid for s >= 0 (s = 0 is uniform).
// Also provides the analytic hit ratio of a cache holding the top-m ranks (the ideal
// frequency-based cache) and the expected number of distinct ranks in d draws.
#pragma once

#include <cstdint>

#include "core/rng.hpp"

namespace engramsim {

class ZipfSampler {
 public:
  ZipfSampler(std::int64_t n, double s);
  std::int64_t n() const { return n_; }
  double exponent() const { return s_; }
  // A rank in [1, n]; rank 1 is the most popular.
  std::int64_t sample(RngStream& rng) const;

 private:
  double h(double x) const;
  double h_integral(double x) const;
  double h_integral_inverse(double x) const;

  std::int64_t n_;
  double s_;
  double h_integral_x1_;
  double h_integral_n_;
  double threshold_;
};

// Generalised harmonic number H(n, s) = sum_{k=1..n} k^-s, exact for small n and by the
// Euler-Maclaurin expansion beyond (relative error < 1e-9 for n > 1e4).
double generalized_harmonic(std::int64_t n, double s);

// Share of Zipf(s) accesses over n items that fall on the m most popular items.
double zipf_top_share(std::int64_t n, double s, std::int64_t m);

}  // namespace engramsim
