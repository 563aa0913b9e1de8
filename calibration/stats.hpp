// Order statistics for benchmark samples: percentiles and medians.
//
// percentile() uses linear interpolation between closest ranks (q in [0, 1]); an empty input
// throws std::invalid_argument. The input is copied, so callers keep their order.
#pragma once

#include <vector>

namespace engramsim::calibration {

double percentile(std::vector<double> values, double q);
inline double median(const std::vector<double>& values) { return percentile(values, 0.5); }

}  // namespace engramsim::calibration
