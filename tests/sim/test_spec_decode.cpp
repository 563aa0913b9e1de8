#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/serving/spec_decode.hpp"

using namespace engramsim;
using namespace engramsim::sim;

TEST(SpecDecode, SampledMeanMatchesAcceptanceLength) {
  for (const double l : {1.0, 1.7, 2.5, 3.4, 4.0}) {
    const AcceptanceSampler s({3, l});
    EXPECT_NEAR(AcceptanceSampler::expected_length(s.alpha(), 3), l, 1e-9);
    RngStream rng(11, "spec");
    double sum = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const int a = s.sample(4, rng);
      ASSERT_GE(a, 1);
      ASSERT_LE(a, 4);
      sum += a;
    }
    EXPECT_NEAR(sum / n, l, 0.01) << "acceptance length " << l;
  }
}

TEST(SpecDecode, NeverEmitsMorePositionsThanVerified) {
  const AcceptanceSampler s({3, 4.0});  // alpha = 1: every draft accepted
  RngStream rng(1, "spec");
  EXPECT_EQ(s.sample(2, rng), 2);
  EXPECT_EQ(s.sample(1, rng), 1);
}

TEST(SpecDecode, RejectsImpossibleAcceptanceLengths) {
  EXPECT_THROW(AcceptanceSampler({3, 4.5}), ConfigError);
  EXPECT_THROW(AcceptanceSampler({3, 0.9}), ConfigError);
  EXPECT_THROW(AcceptanceSampler({0, 1.5}), ConfigError);
  EXPECT_NO_THROW(AcceptanceSampler({0, 1.0}));
}
