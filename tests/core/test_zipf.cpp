#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/zipf_sampler.hpp"

using namespace engramsim;

TEST(Zipf, HarmonicNumbersExactAndAsymptotic) {
  // H(4, 1) = 1 + 1/2 + 1/3 + 1/4 = 25/12.
  EXPECT_NEAR(generalized_harmonic(4, 1.0), 25.0 / 12.0, 1e-12);
  // H(n, 0) = n.
  EXPECT_NEAR(generalized_harmonic(50000, 0.0), 50000.0, 1e-6);
  // Beyond the direct-sum range the Euler-Maclaurin tail must match a brute-force sum.
  double brute = 0.0;
  for (int k = 1; k <= 200000; ++k) brute += std::pow(k, -0.8);
  EXPECT_NEAR(generalized_harmonic(200000, 0.8) / brute, 1.0, 1e-9);
}

TEST(Zipf, SampleFrequenciesMatchTheDistribution) {
  const std::int64_t n = 1000;
  for (double s : {0.0, 0.6, 1.0, 1.3}) {
    ZipfSampler z(n, s);
    RngStream rng(11, "zipf");
    std::vector<int> counts(static_cast<std::size_t>(n + 1), 0);
    const int draws = 400000;
    for (int i = 0; i < draws; ++i) {
      const auto k = z.sample(rng);
      ASSERT_GE(k, 1);
      ASSERT_LE(k, n);
      ++counts[static_cast<std::size_t>(k)];
    }
    const double hn = generalized_harmonic(n, s);
    for (int k : {1, 2, 10, 100}) {
      const double expected = draws * std::pow(k, -s) / hn;
      EXPECT_NEAR(counts[static_cast<std::size_t>(k)], expected, 5.0 * std::sqrt(expected) + 1.0)
          << "s=" << s << " k=" << k;
    }
  }
}

TEST(Zipf, TopShareLimits) {
  EXPECT_DOUBLE_EQ(zipf_top_share(100, 1.0, 0), 0.0);
  EXPECT_DOUBLE_EQ(zipf_top_share(100, 1.0, 100), 1.0);
  EXPECT_NEAR(zipf_top_share(100, 0.0, 25), 0.25, 1e-12);  // uniform: share = m/n
  EXPECT_GT(zipf_top_share(768000000, 1.0, 1000000), zipf_top_share(768000000, 0.8, 1000000));
}

TEST(Zipf, HugeTablesNeedNoMemory) {
  ZipfSampler z(768022850, 0.9);
  RngStream rng(3);
  for (int i = 0; i < 1000; ++i) {
    const auto k = z.sample(rng);
    ASSERT_GE(k, 1);
    ASSERT_LE(k, 768022850);
  }
}
