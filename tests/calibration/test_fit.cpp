// Fits on synthetic samples with known parameters: alpha-beta and overhead-rate recover them
// within 1% under noise, exactly without; degenerate inputs are refused.
#include <gtest/gtest.h>

#include <cmath>

#include "calibration/fit.hpp"
#include "core/rng.hpp"

namespace engramsim::calibration {
namespace {

std::vector<double> sizes_4k_to_256m() {
  std::vector<double> x;
  for (double b = 4096; b <= 256.0 * 1024 * 1024; b *= 4) x.push_back(b);
  return x;
}

TEST(Fit, AlphaBetaExactWithoutNoise) {
  const double alpha = 7e-6, beta = 52e9;
  const auto x = sizes_4k_to_256m();
  std::vector<double> y;
  for (const double b : x) y.push_back(alpha + b / beta);
  const AlphaBeta f = fit_alpha_beta(x, y);
  EXPECT_NEAR(f.alpha.seconds(), alpha, 1e-9);
  EXPECT_NEAR(f.beta.value() / beta, 1.0, 1e-9);
  EXPECT_LT(f.rms_relative_residual, 1e-9);
  EXPECT_EQ(f.samples, static_cast<int>(x.size()));
}

TEST(Fit, AlphaBetaRecoversParametersWithinOnePercentUnderNoise) {
  // +-1% multiplicative noise, several repetitions per size, as a real sweep gives.
  for (const auto& [alpha, beta] :
       std::vector<std::pair<double, double>>{{5e-6, 50e9}, {2e-6, 3.3e12}, {80e-6, 12e9}}) {
    RngStream rng(42, "fit-noise");
    std::vector<double> x, y;
    for (const double b : sizes_4k_to_256m())
      for (int r = 0; r < 5; ++r) {
        x.push_back(b);
        y.push_back((alpha + b / beta) * (1.0 + rng.uniform(-0.01, 0.01)));
      }
    const AlphaBeta f = fit_alpha_beta(x, y);
    EXPECT_NEAR(f.alpha.seconds() / alpha, 1.0, 0.01) << "alpha " << alpha;
    EXPECT_NEAR(f.beta.value() / beta, 1.0, 0.01) << "beta " << beta;
    EXPECT_GT(f.rms_relative_residual, 0.001);
    EXPECT_LT(f.rms_relative_residual, 0.01);
    EXPECT_LE(f.max_relative_residual, 0.025);
  }
}

TEST(Fit, RelativeWeightingKeepsTheIntercept) {
  // An absolute least-squares fit would let 256 MiB samples decide the intercept; the relative fit
  // must still find a 3 us fixed cost under 2% noise on the large sizes.
  const double alpha = 3e-6, beta = 25e9;
  std::vector<double> x, y;
  for (const double b : sizes_4k_to_256m()) {
    x.push_back(b);
    const double noise = b > 1e8 ? 1.02 : 1.0;
    y.push_back((alpha + b / beta) * noise);
  }
  const AlphaBeta f = fit_alpha_beta(x, y);
  EXPECT_NEAR(f.alpha.seconds() / alpha, 1.0, 0.05);
}

TEST(Fit, NegativeInterceptIsClampedToZero) {
  // Pure bandwidth with a slight downward bias at small sizes: the free fit dips below zero.
  std::vector<double> x = {1e3, 1e4, 1e5, 1e6}, y;
  for (const double b : x) y.push_back(b / 1e9 * (b < 5e3 ? 0.7 : 1.0));
  const AffineFit f = fit_affine_relative(x, y);
  EXPECT_TRUE(f.intercept_clamped);
  EXPECT_EQ(f.intercept, 0.0);
  EXPECT_GT(f.slope, 0.0);
}

TEST(Fit, OverheadRateForGemm) {
  const double overhead = 9e-6, rate = 700e12;
  std::vector<double> flops, t;
  for (const double m : {1.0, 16.0, 128.0, 1024.0, 16384.0}) {
    const double f = 2.0 * m * 8192 * 28672;
    flops.push_back(f);
    t.push_back(overhead + f / rate);
  }
  const OverheadRate r = fit_overhead_rate(flops, t);
  EXPECT_NEAR(r.overhead.seconds() / overhead, 1.0, 0.01);
  EXPECT_NEAR(r.rate.value() / rate, 1.0, 0.01);
}

TEST(Fit, RefusesDegenerateInput) {
  EXPECT_THROW(fit_alpha_beta({1e6}, {1e-3}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({1e6, 1e6}, {1e-3, 2e-3}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({1e3, 1e6}, {1e-3, 0.0}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({1e3, 1e6}, {1e-3, NAN}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({1e3, 1e6}, {1e-3}), std::invalid_argument);
  // Time falling with size: no rate exists.
  EXPECT_THROW(fit_alpha_beta({1e3, 1e6}, {2e-3, 1e-3}), std::invalid_argument);
}

}  // namespace
}  // namespace engramsim::calibration
