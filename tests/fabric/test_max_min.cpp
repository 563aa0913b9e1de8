#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/rng.hpp"
#include "sim/fabric/max_min_solver.hpp"

namespace engramsim::fabric {
namespace {

struct Case {
  std::vector<std::vector<std::uint32_t>> paths;
  std::vector<double> counts;
  std::vector<double> bounds;
};

std::vector<double> solve(const std::vector<double>& caps, const Case& c) {
  MaxMinSolver solver(caps);
  std::vector<FlowClassDemand> demands;
  for (std::size_t i = 0; i < c.paths.size(); ++i)
    demands.push_back({c.paths[i], c.counts.empty() ? 1.0 : c.counts[i],
                       c.bounds.empty() ? std::numeric_limits<double>::infinity() : c.bounds[i]});
  std::vector<double> rates(demands.size(), -1.0);
  solver.solve(demands, rates);
  return rates;
}

TEST(MaxMin, TwoFlowsShareOneLinkEqually) {
  const auto r = solve({10.0}, {{{0}, {0}}, {}, {}});
  EXPECT_DOUBLE_EQ(r[0], 5.0);
  EXPECT_DOUBLE_EQ(r[1], 5.0);
}

TEST(MaxMin, BottleneckElsewhereLeavesTheRestToOthers) {
  // Flow 1 crosses A (10) and B (4); flows 0 and 2 use only A and only B.
  const auto r = solve({10.0, 4.0}, {{{0}, {0, 1}, {1}}, {}, {}});
  EXPECT_DOUBLE_EQ(r[1], 2.0);
  EXPECT_DOUBLE_EQ(r[2], 2.0);
  EXPECT_DOUBLE_EQ(r[0], 8.0);
}

TEST(MaxMin, ParkingLotLongFlowGetsHalf) {
  const auto r = solve({1.0, 1.0, 1.0}, {{{0, 1, 2}, {0}, {1}, {2}}, {}, {}});
  for (const double x : r) EXPECT_DOUBLE_EQ(x, 0.5);
}

TEST(MaxMin, ClassCountsActLikeThatManyFlows) {
  const auto r = solve({9.0}, {{{0}, {0}}, {3.0, 1.0}, {}});
  EXPECT_DOUBLE_EQ(r[0], 2.25);
  EXPECT_DOUBLE_EQ(r[1], 2.25);
}

TEST(MaxMin, BoundBelowFairShareCapsAndFreesCapacity) {
  const auto r = solve({10.0}, {{{0}, {0}}, {}, {3.0, std::numeric_limits<double>::infinity()}});
  EXPECT_DOUBLE_EQ(r[0], 3.0);
  EXPECT_DOUBLE_EQ(r[1], 7.0);
}

TEST(MaxMin, BoundJustAboveFairShareDoesNotBind) {
  const auto r = solve({10.0}, {{{0}, {0}}, {}, {5.0 + 1e-6, std::numeric_limits<double>::infinity()}});
  EXPECT_DOUBLE_EQ(r[0], 5.0);
  EXPECT_DOUBLE_EQ(r[1], 5.0);
  const auto s = solve({10.0}, {{{0}, {0}}, {}, {5.0 - 1e-6, std::numeric_limits<double>::infinity()}});
  EXPECT_DOUBLE_EQ(s[0], 5.0 - 1e-6);
  EXPECT_DOUBLE_EQ(s[1], 5.0 + 1e-6);
}

TEST(MaxMin, SolverIsReusableAcrossCalls) {
  MaxMinSolver solver({10.0, 4.0});
  const std::vector<std::uint32_t> a{0}, ab{0, 1};
  std::vector<FlowClassDemand> d1{{a, 1.0}, {ab, 1.0}};
  std::vector<double> r1(2);
  solver.solve(d1, r1);
  EXPECT_DOUBLE_EQ(r1[1], 4.0);
  std::vector<FlowClassDemand> d2{{a, 1.0}};
  std::vector<double> r2(1);
  solver.solve(d2, r2);
  EXPECT_DOUBLE_EQ(r2[0], 10.0);
}

// The defining property of max-min fairness on random instances: the allocation is feasible, and
// every flow either sits at its bound or crosses a saturated resource on which no flow is faster.
TEST(MaxMin, RandomInstancesAreFeasibleAndEveryFlowHasABottleneck) {
  RngStream rng(7, "max-min");
  for (int trial = 0; trial < 300; ++trial) {
    const auto n_res = static_cast<std::uint32_t>(rng.uniform_int(1, 12));
    std::vector<double> caps(n_res);
    for (double& c : caps) c = rng.uniform(1.0, 100.0);
    Case c;
    const auto n_cls = rng.uniform_int(1, 20);
    for (std::int64_t k = 0; k < n_cls; ++k) {
      std::vector<std::uint32_t> all(n_res);
      for (std::uint32_t r = 0; r < n_res; ++r) all[r] = r;
      for (std::uint32_t r = n_res; r > 1; --r)
        std::swap(all[r - 1], all[static_cast<std::size_t>(rng.uniform_int(0, r - 1))]);
      all.resize(static_cast<std::size_t>(rng.uniform_int(1, std::min<std::int64_t>(n_res, 4))));
      c.paths.push_back(all);
      c.counts.push_back(static_cast<double>(rng.uniform_int(1, 5)));
      c.bounds.push_back(rng.uniform01() < 0.3 ? rng.uniform(0.5, 30.0) : std::numeric_limits<double>::infinity());
    }
    const auto rates = solve(caps, c);
    std::vector<double> used(n_res, 0.0), fastest(n_res, 0.0);
    for (std::size_t k = 0; k < rates.size(); ++k) {
      ASSERT_GT(rates[k], 0.0);
      ASSERT_LE(rates[k], c.bounds[k] * (1 + 1e-12));
      for (const auto r : c.paths[k]) {
        used[r] += rates[k] * c.counts[k];
        fastest[r] = std::max(fastest[r], rates[k]);
      }
    }
    for (std::uint32_t r = 0; r < n_res; ++r) ASSERT_LE(used[r], caps[r] * (1 + 1e-9)) << "trial " << trial;
    for (std::size_t k = 0; k < rates.size(); ++k) {
      bool bottleneck = rates[k] >= c.bounds[k] * (1 - 1e-9);
      for (const auto r : c.paths[k])
        bottleneck = bottleneck || (used[r] >= caps[r] * (1 - 1e-9) && rates[k] >= fastest[r] * (1 - 1e-9));
      EXPECT_TRUE(bottleneck) << "trial " << trial << " class " << k;
    }
  }
}

}  // namespace
}  // namespace engramsim::fabric
