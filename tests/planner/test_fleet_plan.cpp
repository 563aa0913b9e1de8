// Fleet sizing from finished plan result lines (planner/fleet_plan.hpp): whole nodes, ranking, the
// token-rate target and the load sensitivity.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planner/fleet_plan.hpp"

namespace engramsim::planner {
namespace {

// A finished plan result line, as RatePlanner::evaluate writes it.
ResultLine plan_line(std::size_t index, const std::string& tp, double max_rate, int gpus_per_replica, double gpu_hour) {
  ResultLine l;
  l.index = index;
  l.id = std::string(16, static_cast<char>('a' + index));
  l.assignments = {{"deployment.tp", std::stoi(tp)}};
  l.status = PointStatus::ok;
  l.result = {{"extra",
               {{"plan",
                 {{"max_rate_per_replica", max_rate},
                  {"tokens_per_request", 500.0},
                  {"gpus_per_replica", gpus_per_replica},
                  {"gpus_per_node", 8},
                  {"extra_dram_per_node_bytes", 0.0},
                  {"dram_usd_per_byte", 5e-9},
                  {"extra_ssd_per_node_bytes", 0.0},
                  {"ssd_usd_per_byte", 1e-10},
                  {"amortization_life_s", 35064.0 * 3600.0},
                  {"gpu_hour_usd_by_tier",
                   {{"hyperscaler", gpu_hour}, {"neocloud", gpu_hour * 1.2}, {"rental", gpu_hour * 1.5}}},
                  {"probes", nlohmann::json::array(
                                 {{{"rate_per_replica", max_rate}, {"requests", 100}, {"meets_slo", true}}})}}}}}};
  return l;
}

TEST(PlanFleet, SizesWholeNodesRanksAndConvertsATokenTarget) {
  // tp1: 10 req/s per replica, 8 replicas per node; tp2: 25 req/s per replica, 4 per node.
  const std::vector<ResultLine> lines = {plan_line(0, "1", 10.0, 1, 2.0), plan_line(1, "2", 25.0, 2, 2.0)};
  PlanSettings s;
  s.target.tokens_per_s = 500.0 * 150.0;  // 150 req/s at 500 tokens per request
  const FleetPlanResult r = plan_fleet(lines, s, "hyperscaler", {"deployment.tp"});
  EXPECT_DOUBLE_EQ(r.target_rate, 150.0);
  EXPECT_DOUBLE_EQ(r.tokens_per_request, 500.0);
  ASSERT_EQ(r.ranking.size(), 2u);
  // tp2: 6 replicas -> 2 nodes (16 GPUs); tp1: 15 replicas -> 2 nodes as well; a tie on cost and
  // GPUs falls to the name.
  EXPECT_EQ(r.ranking[0].plan.nodes, 2);
  EXPECT_EQ(r.ranking[1].plan.nodes, 2);
  EXPECT_EQ(r.ranking[0].name, "tp=1");
  EXPECT_NEAR(r.ranking[0].plan.cost_per_hour.value(), 16 * 2.0, 1e-9);
  // At 0.8 x load tp2 needs 5 replicas (2 nodes) and tp1 12 (2 nodes); at 1.2 x tp2 needs 8 (2
  // nodes), tp1 18 (3 nodes), so tp2 wins there and the winner is not stable.
  EXPECT_FALSE(r.sensitivity.winner_stable);
  ASSERT_EQ(r.sensitivity.cases.size(), 9u);
  std::vector<std::string> names;
  for (const auto& t : r.tables) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fleet_plan", "sensitivity", "rate_search"}));
  EXPECT_EQ(r.tables[0].rows.size(), 2u);
  EXPECT_EQ(r.tables[1].rows.size(), 9u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("Fleet recommendation: tp=1, 2 nodes"), std::string::npos) << r.notes[0];

  ResultLine none;
  none.status = PointStatus::infeasible;
  none.reason = "never meets the SLO";
  const FleetPlanResult empty = plan_fleet({none}, s, "hyperscaler", {"deployment.tp"});
  EXPECT_TRUE(empty.ranking.empty());
  ASSERT_EQ(empty.notes.size(), 1u);
  EXPECT_NE(empty.notes[0].find("no candidate meets the SLO"), std::string::npos);
}

}  // namespace
}  // namespace engramsim::planner
