// A histogram of non-negative integer durations (ns) with bounded relative error, for metrics with
// too many samples to keep (inter-token latencies: one per token).
//
// Values below 1024 ns have a bucket each (exact); above, each power of two is split into 1024
// equal buckets, so a bucket spans at most 1/1024 (0.1%) of its values. count, sum, min and max are
// exact; percentiles interpolate between bucket midpoints (clamped to [min, max]) with the same
// rank rule as numpy's default (linear), so they carry at most ~0.1% error. Memory is fixed
// (~450 KB) whatever the number of samples.
#pragma once

#include <cstdint>
#include <vector>

#include "core/units.hpp"

namespace engramsim::sim {

class LogHistogram {
 public:
  LogHistogram();
  void add(std::int64_t ns);
  void add(Time t) { add(t.count_ns()); }
  std::uint64_t count() const { return count_; }
  std::int64_t min() const { return min_; }
  std::int64_t max() const { return max_; }
  double mean() const;                // ns; NaN when empty
  double stddev() const;              // population standard deviation, ns; NaN when empty
  double percentile(double p) const;  // p in [0, 100]; ns; NaN when empty

  static std::size_t bucket_of(std::int64_t ns);
  static std::int64_t bucket_low(std::size_t bucket);
  static std::int64_t bucket_high(std::size_t bucket);  // inclusive

 private:
  double value_at_rank(std::uint64_t rank) const;

  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::int64_t min_ = INT64_MAX;
  std::int64_t max_ = 0;
  long double sum_ = 0;
  long double sum_sq_ = 0;
};

}  // namespace engramsim::sim
