#include "sim/metrics/log_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace engramsim::sim {
namespace {
constexpr int kSubBits = 10;
constexpr std::int64_t kSub = 1 << kSubBits;  // 1024
// Octaves 10..62 hold values >= 1024; bucket index = (octave - 9) * 1024 + sub.
constexpr std::size_t kBuckets = static_cast<std::size_t>((63 - kSubBits + 1) * kSub);
}  // namespace

LogHistogram::LogHistogram() : buckets_(kBuckets, 0) {}

std::size_t LogHistogram::bucket_of(std::int64_t ns) {
  if (ns < kSub) return static_cast<std::size_t>(ns);
  const int octave = 63 - std::countl_zero(static_cast<std::uint64_t>(ns));  // >= 10
  const std::int64_t sub = (ns >> (octave - kSubBits)) & (kSub - 1);
  return static_cast<std::size_t>((octave - kSubBits + 1) * kSub + sub);
}

std::int64_t LogHistogram::bucket_low(std::size_t b) {
  if (b < static_cast<std::size_t>(kSub)) return static_cast<std::int64_t>(b);
  const int octave = static_cast<int>(b / kSub) + kSubBits - 1;
  const std::int64_t sub = static_cast<std::int64_t>(b % kSub);
  return (std::int64_t{1} << octave) + (sub << (octave - kSubBits));
}

std::int64_t LogHistogram::bucket_high(std::size_t b) {
  if (b < static_cast<std::size_t>(kSub)) return static_cast<std::int64_t>(b);
  const int octave = static_cast<int>(b / kSub) + kSubBits - 1;
  return bucket_low(b) + (std::int64_t{1} << (octave - kSubBits)) - 1;
}

void LogHistogram::add(std::int64_t ns) {
  if (ns < 0) throw std::invalid_argument("LogHistogram: negative value");
  ++buckets_[bucket_of(ns)];
  ++count_;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
  const auto v = static_cast<long double>(ns);
  sum_ += v;
  sum_sq_ += v * v;
}

double LogHistogram::mean() const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(sum_ / static_cast<long double>(count_));
}

double LogHistogram::stddev() const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const long double n = static_cast<long double>(count_);
  const long double m = sum_ / n;
  const long double var = sum_sq_ / n - m * m;
  return static_cast<double>(var > 0 ? std::sqrt(var) : 0.0L);
}

double LogHistogram::value_at_rank(std::uint64_t rank) const {
  if (rank == 0) return static_cast<double>(min_);
  if (rank + 1 >= count_) return static_cast<double>(max_);
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen > rank) {
      const double mid = 0.5 * (static_cast<double>(bucket_low(b)) + static_cast<double>(bucket_high(b)));
      return std::clamp(mid, static_cast<double>(min_), static_cast<double>(max_));
    }
  }
  return static_cast<double>(max_);
}

double LogHistogram::percentile(double p) const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(count_ - 1);
  const auto lo = static_cast<std::uint64_t>(std::floor(rank));
  const auto hi = static_cast<std::uint64_t>(std::ceil(rank));
  const double vlo = value_at_rank(lo);
  if (hi == lo) return vlo;
  const double vhi = value_at_rank(hi);
  return vlo + (vhi - vlo) * (rank - static_cast<double>(lo));
}

}  // namespace engramsim::sim
