// Pruning a frontier plan's candidates by an upper bound (planner/bound_prune.hpp): the floor of
// the simulated configurations, the bound fleet, both sides of the prune test, the order, and the
// table that states the gap.
#include <gtest/gtest.h>

#include "planner/bound_prune.hpp"
#include "planner/frontier_plan.hpp"

using namespace engramsim;
using namespace engramsim::planner;

namespace {

// A 4-GPU unit at $2 per GPU-hour on 8-GPU nodes.
ResultLine line(std::size_t i, const char* tier, double conc, double inter, double tput, double recomputed = 0.0) {
  PointMetrics m;
  m.gpus = 4;
  m.interactivity = inter;
  m.throughput_per_gpu = tput;
  m.gpu_hour_usd = 2.0;
  m.cost_per_gpu_hour_usd = 2.0;
  m.extra = {{"gpus_per_node", 8},       {"paid_gpus_per_used_gpu", 1.0}, {"total_input_tokens", 1000},
             {"cached_input_tokens", 0}, {"total_output_tokens", 1000},   {"recomputed_tokens", recomputed}};
  ResultLine l;
  l.index = i;
  l.id = "p" + std::to_string(i);
  l.assignments = {{"tier", tier}, {"workload.concurrency", conc}};
  l.result = to_json(m);
  return l;
}

ReportData data(const std::vector<ResultLine>& lines) {
  ReportContext ctx;
  ctx.target_interactivity = 125.0;
  return make_report_data(ctx, lines, {"tier", "workload.concurrency"});
}

BoundCandidate candidate(const std::string& config, double bound) {
  return {config, bound, unit_cost_inputs(4, 8, 2.0, 1.0)};
}

}  // namespace

// The floor is the best point at or above the target within the KV wall: never above what the plan
// reads there (Steffen between the points), so its fleet costs at least the plan's.
TEST(BoundPrune, TheFloorIsTheBestPointAtOrAboveTheTargetAndNeverBelowThePlansCost) {
  const ReportData d = data({line(0, "hbm", 8, 150, 1000), line(1, "hbm", 16, 130, 1400), line(2, "hbm", 32, 100, 2000),
                             line(3, "ssd", 8, 140, 500), line(4, "ssd", 32, 90, 900)});
  const FleetTarget t{60000.0, 1.0};
  const auto best = cheapest_floor(d, 125.0, t);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config, "tier=hbm");
  EXPECT_DOUBLE_EQ(best->throughput_per_gpu, 1400.0);  // concurrency 16, at 130 tok/s/user
  const FrontierPlan f = plan_at_interactivity(d, 125.0, t.tokens_per_s, 0.0);
  ASSERT_EQ(f.ranking.front().name, "tier=hbm");
  EXPECT_GE(best->plan.cost_per_hour.value(), f.ranking.front().plan.cost_per_hour.value());
  // No point at or above the target: no floor.
  EXPECT_FALSE(cheapest_floor(data({line(0, "hbm", 32, 100, 2000)}), 125.0, t));
}

// A point past the KV wall gives no floor: the plan ranks readings past the wall last.
TEST(BoundPrune, APointPastTheKvWallGivesNoFloor) {
  const ReportData d = data({line(0, "hbm", 8, 150, 1000), line(1, "hbm", 16, 130, 1400, 1000.0)});
  const auto best = cheapest_floor(d, 125.0, {60000.0, 1.0});
  ASSERT_TRUE(best);
  EXPECT_DOUBLE_EQ(best->throughput_per_gpu, 1000.0);
}

// Both sides of the test: a bound fleet within best x (1 + margin) is simulated, one above it is
// pruned, and the reason names the bound and the simulated value that pruned it.
TEST(BoundPrune, PrunesOnlyABoundFleetAboveTheBestFloorFleetWithItsMargin) {
  const FleetTarget t{60000.0, 1.0};
  const SimulatedFloor best{"tier=hbm", 1500.0, bound_fleet(candidate("tier=hbm", 1500.0), t)};
  ASSERT_EQ(best.plan.replicas, 10);
  EXPECT_NEAR(best.plan.cost_per_hour.value(), 80.0, 1e-9);  // 5 nodes of 8 GPUs at $2
  // Half the throughput: 20 replicas, 10 nodes, $160/hour: 2x the best.
  EXPECT_TRUE(bound_prune_reason(candidate("tier=ssd", 750.0), t, best, 0.5, 125.0));
  EXPECT_FALSE(bound_prune_reason(candidate("tier=ssd", 750.0), t, best, 1.0, 125.0)) << "equal is not above";
  EXPECT_TRUE(bound_prune_reason(candidate("tier=ssd", 750.0), t, best, 0.999, 125.0)) << "$160 > $80 x 1.999";
  // Whole nodes: 4 GPUs more throughput than 750 do not buy a node less ($160/hour still).
  EXPECT_FALSE(bound_prune_reason(candidate("tier=ssd", 760.0), t, best, 1.0, 125.0));
  const auto why = bound_prune_reason(candidate("tier=ssd", 600.0), t, best, 0.192, 125.0);
  ASSERT_TRUE(why);
  EXPECT_EQ(why->rfind(kBoundPrunedReason, 0), 0u) << *why;
  EXPECT_NE(why->find("600 tok/s/GPU"), std::string::npos) << *why;
  EXPECT_NE(why->find("tier=hbm needs at its simulated 1500 tok/s/GPU ($80/hour on 5 nodes)"), std::string::npos)
      << *why;
  EXPECT_NE(why->find("19.2 % validation error"), std::string::npos) << *why;
}

TEST(BoundPrune, CandidatesRunCheapestBoundFleetFirst) {
  const FleetTarget t{60000.0, 1.0};
  const auto order = by_bound({candidate("a", 500.0), candidate("b", 2000.0), candidate("c", 1000.0)}, t);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].config, "b");
  EXPECT_EQ(order[1].config, "c");
  EXPECT_EQ(order[2].config, "a");
}

// The gap table: the bound beside the simulated reading, or why the candidate was not simulated.
TEST(BoundPrune, TheGapTableSaysBoundAndSimulatedOrPruned) {
  ResultLine pruned;
  pruned.index = 2;
  pruned.id = "p2";
  pruned.assignments = {{"tier", "ssd"}, {"workload.concurrency", 8}};
  pruned.status = PointStatus::infeasible;
  pruned.reason = "pruned: its bound ...";
  const ReportData d = data({line(0, "hbm", 8, 150, 1000), line(1, "hbm", 32, 100, 2000), pruned});
  const Table t = bound_gap_table(d, 125.0, {candidate("tier=hbm", 1600.0), candidate("tier=ssd", 600.0)},
                                  FleetTarget{60000.0, 1.0});
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][0], "tier=hbm");
  EXPECT_EQ(t.rows[0][1], "1600");
  EXPECT_FALSE(t.rows[0][2].empty());
  EXPECT_EQ(t.rows[0].back(), "yes");
  EXPECT_EQ(t.rows[1][2], "");
  EXPECT_EQ(t.rows[1].back(), "no, pruned: its bound ...");
}
