// Least-squares fits of benchmark samples (Eigen).
//
// Every cost curve here is affine, y = a + b*x: transfers (time = alpha + bytes/beta), gathers
// (time per batch = alpha + payload/beta), collectives, and GEMMs (time = overhead + flops/rate).
// The fit minimises the sum of squared *relative* residuals ((a + b*x - y) / y)^2: samples span
// several decades (4 KiB to 256 MiB), and absolute least squares would let the largest sizes
// decide everything and leave the intercept (alpha) to noise. The intercept is constrained to be
// >= 0 (a negative fixed cost is unphysical); when the free fit gives a < 0 the fit is redone
// through the origin. Residuals are reported relative to each sample.
//
// Inputs: at least two samples with distinct x, all x >= 0, all y > 0 and finite; otherwise
// std::invalid_argument. A fit whose slope is not positive (time not growing with size) also
// throws, since no rate can be derived from it.
#pragma once

#include <vector>

#include "core/units.hpp"
#include "hardware/calibration_profile.hpp"

namespace engramsim::calibration {

struct AffineFit {
  double intercept = 0.0;
  double slope = 0.0;
  double rms_relative_residual = 0.0;
  double max_relative_residual = 0.0;
  int samples = 0;
  bool intercept_clamped = false;  // the free fit gave a negative intercept
};

AffineFit fit_affine_relative(const std::vector<double>& x, const std::vector<double>& y);

// time[s] = alpha + bytes / beta.
AlphaBeta fit_alpha_beta(const std::vector<double>& bytes, const std::vector<double>& seconds);

// time[s] = overhead + flops / rate.
struct OverheadRate {
  Time overhead;
  FlopRate rate;
  double rms_relative_residual = 0.0;
  double max_relative_residual = 0.0;
  int samples = 0;
};
OverheadRate fit_overhead_rate(const std::vector<double>& flops, const std::vector<double>& seconds);

}  // namespace engramsim::calibration
