// Index streams for gather benchmarks: Zipf-distributed ranks scattered over a table.
//
// ZipfSampler draws k in [1, n] with P(k) proportional to k^-s (s > 0) by rejection-inversion
// (Hoermann and Derflinger, 1996): O(1) memory and expected O(1) time per draw for any n, so a
// table of billions of rows needs no CDF array. RankScatter maps rank r in [0, n) to a row by
// multiplication with a constant coprime to n (a bijection), so that the hot rows are spread over
// the table as hashed Engram rows are, instead of sitting in one cache-friendly block.
#pragma once

#include <cstdint>

#include "core/rng.hpp"

namespace engramsim::calibration {

class ZipfSampler {
 public:
  ZipfSampler(std::uint64_t n, double exponent);
  std::uint64_t operator()(RngStream& rng) const;  // in [1, n]
  std::uint64_t n() const { return n_; }
  double exponent() const { return s_; }

 private:
  double h(double x) const;
  double big_h(double x) const;
  double big_h_inverse(double y) const;

  std::uint64_t n_;
  double s_;
  double h_integral_x1_;
  double h_integral_n_;
};

class RankScatter {
 public:
  explicit RankScatter(std::uint64_t n);
  std::uint64_t operator()(std::uint64_t rank) const;  // rank in [0, n) -> row in [0, n)

 private:
  std::uint64_t n_;
  std::uint64_t mult_;
};

}  // namespace engramsim::calibration
