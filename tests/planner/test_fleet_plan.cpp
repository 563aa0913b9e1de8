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

// A probe row with the KV figures of its run: preemption recompute out of 1000 tokens computed.
nlohmann::json probe(double rate, bool meets, double tput, double recomputed) {
  return {
      {"rate_per_replica", rate},        {"requests", 100},          {"meets_slo", meets}, {"throughput_per_gpu", tput},
      {"recomputed_tokens", recomputed}, {"computed_tokens", 1000.0}};
}

// A candidate whose rate search passed at 8 req/s per replica recomputing a fifth of its work is
// sized at 4, its highest passing rate within its KV wall; one that meets the SLO only past its wall
// ranks last, though cheaper, and the recommendation says so.
TEST(PlanFleet, SizesWithinTheKvWallAndRanksPastTheWallLast) {
  std::vector<ResultLine> lines = {plan_line(0, "1", 8.0, 1, 2.0), plan_line(1, "2", 40.0, 2, 2.0),
                                   plan_line(2, "4", 10.0, 4, 2.0)};
  auto& p0 = lines[0].result["extra"]["plan"]["probes"];
  p0 = {probe(2, true, 100, 0), probe(4, true, 200, 0), probe(16, false, 300, 500), probe(8, true, 350, 200),
        probe(12, false, 320, 300)};
  // tp=2 is the cheapest, but preempts from its first probe on.
  lines[1].result["extra"]["plan"]["probes"] = {probe(20, true, 100, 100), probe(40, true, 200, 200)};
  lines[2].result["extra"]["plan"]["probes"] = {probe(10, true, 100, 0)};
  PlanSettings s;
  s.target.requests_per_s = 40.0;
  const FleetPlanResult r = plan_fleet(lines, s, "hyperscaler", {"deployment.tp"});
  ASSERT_EQ(r.ranking.size(), 3u);
  // tp=1 at 4 req/s: 10 replicas, 2 nodes; tp=4 at 10: 4 replicas, 2 nodes (name breaks the tie).
  EXPECT_EQ(r.ranking[0].name, "tp=1");
  EXPECT_DOUBLE_EQ(r.ranking[0].plan.max_rate_per_replica, 4.0);
  EXPECT_EQ(r.ranking[0].plan.nodes, 2);
  EXPECT_FALSE(r.ranking[0].past_kv_wall);
  EXPECT_EQ(r.ranking[2].name, "tp=2");  // one node of 4 replicas at 40 req/s: the cheapest
  EXPECT_TRUE(r.ranking[2].past_kv_wall);
  EXPECT_LT(r.ranking[2].plan.cost_per_hour.value(), r.ranking[0].plan.cost_per_hour.value());
  const Table& fleet = r.tables[0];
  EXPECT_EQ(fleet.columns.back(), "KV wall");
  EXPECT_EQ(fleet.rows[0].back(),
            "sized at 4 req/s per replica, below its wall; past it from 8 req/s per replica (preemption recompute 20 % "
            "of the tokens computed)");
  EXPECT_EQ(fleet.rows[1].back(), "not reached");
  EXPECT_EQ(fleet.rows[2].back().rfind("meets the SLO only past its wall: past it from 20 req/s", 0), 0u)
      << fleet.rows[2].back();
  const std::string& note = r.notes[0];
  EXPECT_NE(note.find("KV wall: sized at 4 req/s per replica, below its wall"), std::string::npos) << note;
  EXPECT_NE(note.find("tp=2 would cost less (16.00 $/hour) but meets the SLO only past its KV wall"), std::string::npos)
      << note;
  // Every sensitivity case keeps the candidates past their wall last.
  for (const auto& c : r.sensitivity.cases) EXPECT_NE(c.ranking.front().name, "tp=2");
  // The probes past the wall are marked in the rate search.
  const Table& search = r.tables[2];
  EXPECT_EQ(search.columns[9], "past KV wall");
  EXPECT_EQ(search.rows[1][9], "no");
  EXPECT_EQ(search.rows[2][9], "yes");  // 16 req/s, above the first flagged rate
  EXPECT_EQ(search.rows[3][9], "yes");

  // Only tp=2: it is recommended, and the note says it runs past its wall.
  const FleetPlanResult only = plan_fleet({lines[1]}, s, "hyperscaler", {"deployment.tp"});
  EXPECT_EQ(only.notes[0].rfind("Fleet recommendation: tp=2 only past its KV wall (no candidate meets the SLO within "
                                "its wall), ",
                                0),
            0u)
      << only.notes[0];
}

}  // namespace
}  // namespace engramsim::planner
