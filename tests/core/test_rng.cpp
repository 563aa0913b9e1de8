#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.hpp"

using namespace engramsim;

TEST(Rng, DeterministicPerSeedAndStream) {
  RngStream a(42, "arrivals"), b(42, "arrivals"), c(42, "lengths"), d(43, "arrivals");
  const auto x = a.next_u64();
  EXPECT_EQ(x, b.next_u64());
  EXPECT_NE(x, c.next_u64());
  EXPECT_NE(x, d.next_u64());
}

TEST(Rng, DistributionMoments) {
  RngStream r(7, "moments");
  const int n = 200000;
  double se = 0, sg = 0, su = 0, sn = 0, sn2 = 0;
  for (int i = 0; i < n; ++i) {
    se += r.exponential(2.0);
    sg += r.gamma(0.5, 4.0);
    su += r.uniform(1.0, 3.0);
    const double z = r.normal(1.0, 2.0);
    sn += z;
    sn2 += z * z;
  }
  EXPECT_NEAR(se / n, 0.5, 0.01);
  EXPECT_NEAR(sg / n, 2.0, 0.04);
  EXPECT_NEAR(su / n, 2.0, 0.01);
  EXPECT_NEAR(sn / n, 1.0, 0.02);
  EXPECT_NEAR(sn2 / n - (sn / n) * (sn / n), 4.0, 0.08);
}

TEST(Rng, UniformIntCoversBoundsInclusive) {
  RngStream r(1);
  bool lo = false, hi = false;
  for (int i = 0; i < 10000; ++i) {
    const auto v = r.uniform_int(3, 5);
    ASSERT_GE(v, 3);
    ASSERT_LE(v, 5);
    lo |= v == 3;
    hi |= v == 5;
  }
  EXPECT_TRUE(lo && hi);
}
