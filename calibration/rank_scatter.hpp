// Index streams for gather benchmarks: ranks scattered over a table.
//
// RankScatter maps rank r in [0, n) to a row by multiplication with a constant coprime to n (a
// bijection), so that the hot rows of a Zipf stream (core/zipf_sampler.hpp) are spread over the
// table as hashed Engram rows are, instead of sitting in one cache-friendly block.
#pragma once

#include <cstdint>

namespace engramsim::calibration {

class RankScatter {
 public:
  explicit RankScatter(std::uint64_t n);
  std::uint64_t operator()(std::uint64_t rank) const;  // rank in [0, n) -> row in [0, n)

 private:
  std::uint64_t n_;
  std::uint64_t mult_;
};

}  // namespace engramsim::calibration
