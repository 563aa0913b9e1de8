#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "sim/workload/arrival_process.hpp"
#include "sim/workload/length_distribution.hpp"
#include "sim/workload/synthetic_source.hpp"
#include "tests/sim/sim_test_support.hpp"
#include "tests/support/test_paths.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {
struct GapStats {
  double mean = 0, cv = 0;
};
GapStats gaps(ArrivalProcess& p, int n) {
  RngStream rng(5, "gaps");
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    const double g = p.next_gap(rng).seconds();
    s += g;
    s2 += g * g;
  }
  const double m = s / n;
  return {m, std::sqrt(s2 / n - m * m) / m};
}
}  // namespace

TEST(ArrivalProcess, PoissonAndGammaHitRateAndBurstiness) {
  PoissonArrivals p(4.0);
  const GapStats ps = gaps(p, 200000);
  EXPECT_NEAR(ps.mean, 0.25, 0.0025);
  EXPECT_NEAR(ps.cv, 1.0, 0.02);
  GammaArrivals g(4.0, 2.0);
  const GapStats gs = gaps(g, 400000);
  EXPECT_NEAR(gs.mean, 0.25, 0.005);
  EXPECT_NEAR(gs.cv, 2.0, 0.06);
  GammaArrivals smooth(4.0, 0.5);
  EXPECT_NEAR(gaps(smooth, 200000).cv, 0.5, 0.02);
  EXPECT_THROW(PoissonArrivals(0.0), ConfigError);
  EXPECT_THROW(GammaArrivals(1.0, -1.0), ConfigError);
}

TEST(LengthDistribution, IndependentFixedUniformAndEmpirical) {
  RngStream rng(1, "len");
  std::int32_t in = 0, out = 0;
  IndependentLengths f(std::make_shared<FixedLength>(1024), std::make_shared<FixedLength>(128));
  f.sample(rng, in, out);
  EXPECT_EQ(in, 1024);
  EXPECT_EQ(out, 128);

  IndependentLengths u(std::make_shared<UniformLength>(800, 1000), std::make_shared<UniformLength>(80, 100));
  double sum_in = 0;
  int lo_seen = 0, hi_seen = 0;
  for (int i = 0; i < 100000; ++i) {
    u.sample(rng, in, out);
    ASSERT_GE(in, 800);
    ASSERT_LE(in, 1000);
    ASSERT_GE(out, 80);
    ASSERT_LE(out, 100);
    lo_seen += in == 800;
    hi_seen += in == 1000;
    sum_in += in;
  }
  EXPECT_NEAR(sum_in / 100000, 900, 2);
  EXPECT_GT(lo_seen, 0);  // both ends inclusive
  EXPECT_GT(hi_seen, 0);

  EmpiricalLengths e(engramsim::test::source_root() +
                     "/scenarios/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv");
  EXPECT_EQ(e.size(), 30731u);
  double mi = 0, mo = 0;
  for (int i = 0; i < 100000; ++i) {
    e.sample(rng, in, out);
    mi += in;
    mo += out;
  }
  EXPECT_NEAR(mi / 100000, 2340, 40);  // published ShareGPT-8k means
  EXPECT_NEAR(mo / 100000, 439, 8);
}

// Gaps that outrun the nanosecond clock: without a duration, a ConfigError located where the rate
// was given (it was a TimeOutOfRange with no location, or a wrapped time); with one, the arrivals
// simply end at the duration.
TEST(SyntheticSource, ArrivalsPastTheClockNameTheRate) {
  auto make = [](Time d) {
    return SyntheticSource(std::make_unique<PoissonArrivals>(1e-12), engramsim::sim::testing::fixed_lengths(8, 2), 1, 5,
                           d);
  };
  SyntheticSource unbounded = make(Time::max());
  unbounded.locate_rate({"s.yaml", 9, 29}, "workload.arrival.rate_per_s");
  Request r;
  ASSERT_TRUE(unbounded.next(r));  // the first arrives at t = 0
  try {
    unbounded.next(r);
    ADD_FAILURE() << "an arrival past the clock was delivered at " << r.arrival.count_ns() << " ns";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("s.yaml:9:29: workload.arrival.rate_per_s:", 0), 0u) << e.what();
  }
  SyntheticSource bounded = make(Time::from_seconds(3600));
  int n = 0;
  while (bounded.next(r)) ++n;
  EXPECT_EQ(n, 1);
}

TEST(SyntheticSource, DeterministicPerSeedAndBoundedByCountAndDuration) {
  auto make = [](std::uint64_t seed, std::uint64_t n, Time d) {
    return SyntheticSource(std::make_unique<PoissonArrivals>(10.0),
                           engramsim::sim::testing::uniform_ratio_lengths(100, 50, 0.8), seed, n, d);
  };
  auto a = make(1, 1000, Time::max());
  auto b = make(1, 1000, Time::max());
  auto c = make(2, 1000, Time::max());
  Request ra, rb, rc;
  int n = 0, differ = 0;
  Time last;
  while (a.next(ra)) {
    ASSERT_TRUE(b.next(rb));
    ASSERT_TRUE(c.next(rc));
    EXPECT_EQ(ra.arrival, rb.arrival);
    EXPECT_EQ(ra.prompt_tokens, rb.prompt_tokens);
    differ += ra.arrival != rc.arrival;
    EXPECT_GE(ra.arrival, last);
    last = ra.arrival;
    if (n == 0) {
      EXPECT_EQ(ra.arrival, Time::zero());
    }
    ++n;
  }
  EXPECT_EQ(n, 1000);
  EXPECT_GT(differ, 900);
  EXPECT_NEAR(last.seconds(), 100.0, 10.0);
  auto d = make(1, UINT64_MAX, Time::from_seconds(10));
  int m = 0;
  while (d.next(ra)) {
    EXPECT_LT(ra.arrival, Time::from_seconds(10));
    ++m;
  }
  EXPECT_NEAR(m, 100, 35);
}
