#include <gtest/gtest.h>

#include <cmath>

#include "planner/plan_search.hpp"

using namespace engramsim;
using namespace engramsim::planner;

namespace {

// M/M/1 with service rate 100/s: mean latency 1/(100 - rate) s; an SLO of 100 ms holds up to 90/s.
nlohmann::json mm1(double rate) { return {{"latency_s", rate < 100.0 ? 1.0 / (100.0 - rate) : 1e9}}; }
bool within_100ms(const nlohmann::json& r) { return r["latency_s"].get<double>() <= 0.1; }

}  // namespace

TEST(FindMaxRate, ConvergesOnTheAnalyticLimit) {
  const auto r = find_max_rate(mm1, within_100ms, 1.0, 2.0, 0.001);
  ASSERT_TRUE(r.found);
  EXPECT_LE(r.max_rate, 90.0);
  EXPECT_GE(r.max_rate, 90.0 * (1.0 - 0.001));
  EXPECT_GT(r.lowest_failing, 90.0);
  EXPECT_FALSE(r.non_monotone);
  EXPECT_FALSE(r.hit_limit);
  EXPECT_LT(r.probes.size(), 30u);
  EXPECT_DOUBLE_EQ(r.best_result["latency_s"].get<double>(), 1.0 / (100.0 - r.max_rate));
}

TEST(FindMaxRate, LowestRateFailingMeansNotFound) {
  const auto r = find_max_rate(mm1, within_100ms, 95.0, 96.0, 0.01);
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.probes.size(), 1u);
  EXPECT_EQ(r.max_rate, 0.0);
}

TEST(FindMaxRate, StopsAtTheUpperLimit) {
  RateSearchOptions o;
  o.lo = 1;
  o.hi = 2;
  o.hi_limit = 50;
  const auto r =
      find_max_rate([](double) { return nlohmann::json::object(); }, [](const nlohmann::json&) { return true; }, o);
  EXPECT_TRUE(r.found);
  EXPECT_TRUE(r.hit_limit);
  EXPECT_DOUBLE_EQ(r.max_rate, 50.0);
}

TEST(FindMaxRate, NonMonotoneRegionIsCaughtAndTheAnswerStaysBelowEveryFailure) {
  // Passes up to 50 and, spuriously, in [60, 70]. Doubling jumps from 32 to a lucky 64.
  auto slo = [](const nlohmann::json& r) {
    const double x = r["rate"].get<double>();
    return x <= 50.0 || (x >= 60.0 && x <= 70.0);
  };
  const auto r = find_max_rate([](double x) { return nlohmann::json{{"rate", x}}; }, slo, 1.0, 2.0, 0.01);
  ASSERT_TRUE(r.found);
  EXPECT_TRUE(r.non_monotone);
  EXPECT_LE(r.max_rate, 50.0);
  EXPECT_GE(r.max_rate, 50.0 * 0.99);
  for (const auto& p : r.probes) {
    if (!p.meets_slo) {
      EXPECT_GT(p.rate, r.max_rate);
    }
  }
}

TEST(FindMaxRate, RejectsBadArguments) {
  EXPECT_THROW(find_max_rate(mm1, within_100ms, 0.0, 1.0, 0.01), std::invalid_argument);
  EXPECT_THROW(find_max_rate(mm1, within_100ms, 2.0, 1.0, 0.01), std::invalid_argument);
  EXPECT_THROW(find_max_rate(mm1, within_100ms, 1.0, 2.0, 0.0), std::invalid_argument);
}

TEST(SizeFleet, HandComputedPlan) {
  FleetCostInputs c;
  c.gpus_per_replica = 2;
  c.gpus_per_node = 8;
  c.gpu_hour = MoneyRate(2.0);
  c.extra_dram_per_node = Bytes(1e12);
  c.dram_price = MoneyPerByte::per_gb(4.0);  // $4000 per node
  c.amortization_life = Time::from_seconds(4.0 * 8760.0 * 3600.0);
  const auto p = size_fleet(100.0, 30.0, 2000.0, c);
  EXPECT_EQ(p.replicas, 4);  // ceil(3.33)
  EXPECT_EQ(p.nodes, 1);     // 4 replicas of 2 GPUs in one 8-GPU node
  EXPECT_EQ(p.gpus, 8);
  EXPECT_NEAR(p.utilization, 100.0 / 120.0, 1e-12);
  EXPECT_DOUBLE_EQ(p.gpu_cost_per_hour.value(), 16.0);
  EXPECT_NEAR(p.storage_cost_per_hour.value(), 4000.0 / 35040.0, 1e-9);
  EXPECT_NEAR(p.cost_per_hour.value(), 16.0 + 4000.0 / 35040.0, 1e-9);
  // 100 req/s x 2000 tokens = 720 M tokens per hour.
  EXPECT_NEAR(p.usd_per_million_tokens, (16.0 + 4000.0 / 35040.0) / 720.0, 1e-12);
  // Both sides of a replica boundary.
  EXPECT_EQ(size_fleet(90.0, 30.0, 1.0, c).replicas, 3);
  EXPECT_EQ(size_fleet(90.001, 30.0, 1.0, c).replicas, 4);
  // 5 replicas of 2 GPUs need a second node.
  EXPECT_EQ(size_fleet(150.0, 30.0, 1.0, c).nodes, 2);
  // A replica spanning two nodes.
  c.gpus_per_replica = 16;
  const auto big = size_fleet(100.0, 30.0, 1.0, c);
  EXPECT_EQ(big.nodes, 8);
  EXPECT_EQ(big.gpus, 64);
  EXPECT_THROW(size_fleet(0.0, 30.0, 1.0, c), std::invalid_argument);
  EXPECT_THROW(size_fleet(1.0, 0.0, 1.0, c), std::invalid_argument);
}

TEST(PlanFleets, RankingAndSensitivityToTierAndLoad) {
  Candidate a;
  a.name = "tp4-hbm";
  a.max_rate_per_replica = 10.0;
  a.tokens_per_request = 1000;
  a.cost.gpus_per_replica = 4;
  a.gpu_hour_by_tier = {{"hyperscaler", MoneyRate(3.0)}, {"rental", MoneyRate(2.0)}};
  Candidate b;
  b.name = "tp2-dram";
  b.max_rate_per_replica = 4.0;
  b.tokens_per_request = 1000;
  b.cost.gpus_per_replica = 2;
  b.gpu_hour_by_tier = {{"hyperscaler", MoneyRate(1.5)}, {"rental", MoneyRate(2.0)}};
  Candidate never;
  never.name = "ssd";
  never.max_rate_per_replica = 0.0;  // never met the SLO
  never.tokens_per_request = 1000;
  never.gpu_hour_by_tier = a.gpu_hour_by_tier;

  // At 40 req/s: a needs 4 replicas = 16 GPUs (2 nodes); b needs 10 replicas = 3 nodes = 24 GPUs.
  a.cost.gpu_hour = MoneyRate(3.0);
  b.cost.gpu_hour = MoneyRate(1.5);
  const auto ranked = plan_fleets({a, b, never}, 40.0);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].name, "tp2-dram");  // 24 x 1.5 = 36 < 16 x 3 = 48
  EXPECT_DOUBLE_EQ(ranked[0].plan.cost_per_hour.value(), 36.0);
  EXPECT_DOUBLE_EQ(ranked[1].plan.cost_per_hour.value(), 48.0);

  const auto s = sensitivity({a, b}, 40.0, {"hyperscaler", "rental"}, "hyperscaler");
  ASSERT_EQ(s.cases.size(), 6u);
  EXPECT_EQ(s.baseline_winner, "tp2-dram");
  EXPECT_FALSE(s.winner_stable);  // at rental prices a wins: 16 x 2 = 32 < 24 x 2 = 48
  EXPECT_EQ(s.cases[4].tier, "rental");
  EXPECT_DOUBLE_EQ(s.cases[4].load_factor, 1.0);
  EXPECT_EQ(s.cases[4].ranking.front().name, "tp4-hbm");
  EXPECT_THROW(sensitivity({a, b}, 40.0, {"neocloud"}, "neocloud"), std::invalid_argument);

  // Ties: equal cost and GPUs order by name.
  RankedPlan x{"b", {}};
  RankedPlan y{"a", {}};
  EXPECT_EQ(rank_plans({x, y}).front().name, "a");
}
