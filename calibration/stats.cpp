#include "calibration/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace engramsim::calibration {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) throw std::invalid_argument("percentile of no samples");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("percentile rank outside [0, 1]");
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (hi == lo) return a;
  // The next order statistic is the minimum of the upper part.
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (b - a) * (pos - static_cast<double>(lo));
}

}  // namespace engramsim::calibration
