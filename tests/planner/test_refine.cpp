// Refinement near the target interactivity (planner/refine.hpp): midpoints of the brackets, none
// once adjacent, a settled comparison, and load_results reading the rounds back after the grid.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "planner/frontier_plan.hpp"
#include "planner/refine.hpp"
#include "planner/report_data.hpp"
#include "planner_test_util.hpp"

using namespace engramsim;
using namespace engramsim::planner;
namespace fs = std::filesystem;

namespace {

std::vector<SweepPoint> grid(const std::vector<int>& concurrencies) {
  std::vector<SweepPoint> out;
  for (int c : concurrencies)
    out.push_back(
        make_sweep_point(out.size(), {{"deployment.tp", YAML::Node(4)}, {"workload.concurrency", YAML::Node(c)}}));
  return out;
}

ResultLine line_of(const SweepPoint& p, double interactivity, double tput) {
  ResultLine l;
  l.index = p.index;
  l.id = p.id;
  l.assignments = p.assignments_json();
  PointMetrics m;
  m.interactivity = interactivity;
  m.throughput_per_gpu = tput;
  m.gpu_hour_usd = 2.0;
  m.cost_per_gpu_hour_usd = 2.0;
  l.result = to_json(m);
  return l;
}

ReportData data(const std::vector<SweepPoint>& pts, const std::vector<double>& inter) {
  std::vector<ResultLine> lines;
  for (std::size_t i = 0; i < pts.size(); ++i) lines.push_back(line_of(pts[i], inter[i], 1000.0 * (i + 1)));
  ReportContext ctx;
  ctx.target_interactivity = 125.0;
  return make_report_data(ctx, lines, {"deployment.tp", "workload.concurrency"});
}

}  // namespace

// A 4-GPU point at $2 per GPU-hour on 8-GPU nodes, for the plan tests.
PointMetrics tier_metrics(double interactivity, double tput) {
  PointMetrics m;
  m.gpus = 4;
  m.interactivity = interactivity;
  m.throughput_per_gpu = tput;
  m.gpu_hour_usd = 2.0;
  m.cost_per_gpu_hour_usd = 2.0;
  m.extra = {{"gpus_per_node", 8}, {"paid_gpus_per_used_gpu", 1.0}};
  return m;
}

// Point i of configuration `tier` at concurrency `conc`.
ResultLine tier_line(std::size_t i, const char* tier, double conc, const PointMetrics& m) {
  ResultLine l;
  l.index = i;
  l.id = "p" + std::to_string(i);
  l.assignments = {{"tier", tier}, {"workload.concurrency", conc}};
  l.result = to_json(m);
  return l;
}

// The tier configurations' points as a report at a 125 tok/s/user target.
ReportData tier_data(const std::vector<ResultLine>& lines) {
  ReportContext ctx;
  ctx.target_interactivity = 125.0;
  return make_report_data(ctx, lines, {"tier", "workload.concurrency"});
}

TEST(Refine, MidpointOfTheBracketOnly) {
  const auto pts = grid({8, 16, 32, 64});
  const auto d = data(pts, {200, 150, 110, 80});  // 125 lies between concurrency 16 and 32
  const auto next = refinement_points(d, pts, 125.0);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].index, 0u);
  EXPECT_EQ(next[0].assignments[0].key, "deployment.tp");
  EXPECT_EQ(next[0].assignments[0].value.as<int>(), 4);
  EXPECT_EQ(next[0].assignments[1].value.as<int>(), 24);
  EXPECT_EQ(next[0].id, make_sweep_point(9, next[0].assignments).id);
}

TEST(Refine, NothingLeftOnceTheBracketIsAdjacentOrOutOfRange) {
  const auto pts = grid({16, 17});
  EXPECT_TRUE(refinement_points(data(pts, {130, 120}), pts, 125.0).empty());
  // Faster than 125 at every point, throughput still rising: the grid grows to 128.
  const auto far = grid({1, 64});
  const auto grown = refinement_points(data(far, {300, 200}), far, 125.0);
  ASSERT_EQ(grown.size(), 1u);
  EXPECT_EQ(grown[0].assignments[1].value.as<int>(), 128);
}

TEST(Refine, LargestChange) {
  std::vector<ConfigComparison> a = {{"x", 1.0, 100.0, 1.0}, {"y", 1.0, 50.0, 0.5}};
  std::vector<ConfigComparison> b = {{"x", 1.0, 100.5, 1.0}, {"y", 1.0, 52.0, 0.5}};
  EXPECT_NEAR(largest_change(a, b), 0.04, 1e-12);
  b[1].tokens_per_dollar.reset();
  EXPECT_DOUBLE_EQ(largest_change(a, b), 1.0);
}

// Round files are read after the grid, numbered on from its last point.
TEST(Refine, LoadResultsReadsTheRoundsAfterTheGrid) {
  const planner::testing::TempDir tmp;
  const fs::path dir = tmp.path();
  const auto pts = grid({8, 32});
  const std::vector<ResultLine> main = {line_of(pts[0], 200, 1000), line_of(pts[1], 110, 3000)};
  write_canonical_file(results_path(dir), main);
  write_manifest(dir, {2, {"deployment.tp", "workload.concurrency"}, "f"});
  const auto round = grid({20});
  fs::create_directories(refine_round_dir(dir, 1));
  write_canonical_file(results_path(refine_round_dir(dir, 1)), {line_of(round[0], 130, 2000)});
  write_manifest(refine_round_dir(dir, 1), {1, {"deployment.tp", "workload.concurrency"}, "f"});
  const ReportData d = load_results(dir);
  ASSERT_EQ(d.points.size(), 3u);
  EXPECT_EQ(d.total_points, 3u);
  EXPECT_EQ(d.points[2].index, 2u);
  EXPECT_DOUBLE_EQ(d.points[2].concurrency, 20.0);
}

// The frontier plan: throughput per GPU at the target x GPUs per replica is one replica's rate;
// whole 8-GPU nodes; the cheapest first; a cost margin inside the validation error is a tie.
TEST(FrontierPlan, SizesWholeNodesAtTheTargetAndStatesTies) {
  auto line = [](std::size_t i, const char* tier, int tp, double conc, double inter, double tput) {
    ResultLine l;
    l.index = i;
    l.id = "p" + std::to_string(i);
    l.assignments = {{"tier", tier}, {"tp", tp}, {"workload.concurrency", conc}};
    PointMetrics m;
    m.gpus = tp;
    m.interactivity = inter;
    m.throughput_per_gpu = tput;
    m.gpu_hour_usd = 2.0;
    m.cost_per_gpu_hour_usd = 2.0;
    m.extra = {{"gpus_per_node", 8}, {"paid_gpus_per_used_gpu", 1.0}, {"gpu", "b300"}, {"engine", "vllm"}};
    l.result = to_json(m);
    return l;
  };
  // At 125: hbm 1500 tok/s/GPU, dram 1480 (within 5 %), ssd 500; 59,000 tok/s take 10 replicas of
  // either of the first two (at 60,000 dram would need an 11th, a sixth node: no tie).
  const std::vector<ResultLine> lines = {line(0, "hbm", 4, 8, 150, 1000), line(1, "hbm", 4, 32, 100, 2000),
                                         line(2, "dram", 4, 8, 150, 990), line(3, "dram", 4, 32, 100, 1970),
                                         line(4, "ssd", 4, 8, 150, 300),  line(5, "ssd", 4, 32, 100, 700)};
  ReportContext ctx;
  ctx.target_interactivity = 125.0;
  ctx.validation.by_engine["vllm"] = 0.05;
  const ReportData d = make_report_data(ctx, lines, {"tier", "tp", "workload.concurrency"});
  const FrontierPlan f = plan_at_interactivity(d, 125.0, 59000.0, 0.0);
  ASSERT_EQ(f.ranking.size(), 3u);
  EXPECT_EQ(f.ranking[0].name, "tier=hbm tp=4");
  EXPECT_NEAR(f.ranking[0].plan.max_rate_per_replica, 6000.0, 1e-6);  // 1500 x 4 GPUs
  EXPECT_EQ(f.ranking[0].plan.replicas, 10);
  EXPECT_EQ(f.ranking[0].plan.nodes, 5);
  EXPECT_EQ(f.ranking[0].plan.gpus, 40);
  EXPECT_NEAR(f.ranking[0].plan.cost_per_hour.value(), 80.0, 1e-9);
  EXPECT_EQ(f.ranking[2].name, "tier=ssd tp=4");
  ASSERT_EQ(f.tied.size(), 1u);
  EXPECT_EQ(f.tied[0], "tier=dram tp=4");
  EXPECT_EQ(f.verdict.rfind("At 125 tok/s/user, serving 59000 tok/s takes tier=hbm tp=4: 10 replicas on 5 nodes", 0),
            0u)
      << f.verdict;
  EXPECT_THROW(plan_at_interactivity(d, 125.0, 0.0, 0.0), std::invalid_argument);
}

// A configuration that reaches the target only past its KV wall ranks after one that reaches it
// within its wall, though it would cost less, and the verdict names it; alone, it is sized with the
// wall said in the verdict.
TEST(FrontierPlan, PastTheKvWallRanksLastAndIsSaid) {
  auto line = [](std::size_t i, const char* tier, double conc, double inter, double tput, double recomputed) {
    PointMetrics m = tier_metrics(inter, tput);
    m.extra.update({{"total_input_tokens", 1000},
                    {"cached_input_tokens", 0},
                    {"total_output_tokens", 1000},
                    {"recomputed_tokens", recomputed}});
    return tier_line(i, tier, conc, m);
  };
  // At 125: hbm 1500 tok/s/GPU within its wall; dram about 3000, read between points that each
  // recompute a third of what they compute (a point of dram within its wall that beat hbm on both
  // axes would win instead: compare_at reads it at least there).
  const std::vector<ResultLine> lines = {line(0, "hbm", 8, 150, 1000, 0), line(1, "hbm", 32, 100, 2000, 0),
                                         line(2, "dram", 8, 150, 2000, 1000), line(3, "dram", 32, 100, 4000, 1000)};
  const ReportData d = tier_data(lines);
  const FrontierPlan f = plan_at_interactivity(d, 125.0, 60000.0, 0.0);
  ASSERT_EQ(f.ranking.size(), 2u);
  EXPECT_EQ(f.ranking[0].name, "tier=hbm");
  EXPECT_EQ(f.ranking[1].name, "tier=dram");
  EXPECT_LT(f.ranking[1].plan.cost_per_hour.value(), f.ranking[0].plan.cost_per_hour.value());
  ASSERT_EQ(f.past_wall.size(), 1u);
  EXPECT_EQ(f.past_wall[0], "tier=dram");
  EXPECT_EQ(f.verdict.rfind("At 125 tok/s/user, serving 60000 tok/s takes tier=hbm: ", 0), 0u) << f.verdict;
  EXPECT_NE(f.verdict.find("tier=dram would cost less ($"), std::string::npos) << f.verdict;
  EXPECT_NE(f.verdict.find("but only past its KV wall"), std::string::npos) << f.verdict;
  EXPECT_EQ(f.verdict.find("Next: "), std::string::npos) << f.verdict;
  EXPECT_EQ(f.table.rows[1].back(), "yes");
  EXPECT_EQ(f.table.rows[0].back(), "no");
  // Without hbm, dram is the only way to the target: the verdict says it runs past its wall.
  const ReportData only = tier_data({lines[2], lines[3]});
  const FrontierPlan g = plan_at_interactivity(only, 125.0, 60000.0, 0.0);
  ASSERT_EQ(g.ranking.size(), 1u);
  EXPECT_EQ(g.verdict.rfind("At 125 tok/s/user, serving 60000 tok/s takes tier=dram only past its KV wall (no "
                            "configuration reaches this interactivity within its wall): ",
                            0),
            0u)
      << g.verdict;
}

// The grid grows past its ends until each configuration brackets the target or shows it cannot:
// up while every point is faster and throughput still rises; down to 1 while every point is
// slower; never past a point that failed.
TEST(Refine, TheGridGrowsUntilTheTargetIsBracketedOrShownOutOfReach) {
  const auto pts = grid({4, 16, 64});
  const auto ext = [&](const std::vector<double>& inter, const std::vector<double>& tput) {
    std::vector<ResultLine> lines;
    for (std::size_t i = 0; i < pts.size(); ++i) lines.push_back(line_of(pts[i], inter[i], tput[i]));
    ReportContext ctx;
    ctx.target_interactivity = 125.0;
    return extension_points(make_report_data(ctx, lines, {"deployment.tp", "workload.concurrency"}), pts, 125.0);
  };
  auto e = ext({300, 200, 150}, {1000, 3000, 6000});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].assignments[1].value.as<int>(), 128);
  EXPECT_EQ(e[0].assignments[0].value.as<int>(), 4);              // the configuration's other keys are kept
  EXPECT_TRUE(ext({300, 200, 150}, {1000, 6000, 6050}).empty());  // saturated: more load only queues
  e = ext({100, 90, 80}, {1000, 3000, 6000});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].assignments[1].value.as<int>(), 2);
  EXPECT_TRUE(ext({200, 150, 110}, {1000, 3000, 6000}).empty());  // bracketed: midpoints only
  const auto one = grid({1, 2});
  std::vector<ResultLine> lines = {line_of(one[0], 100, 1000), line_of(one[1], 90, 1500)};
  ReportContext ctx;
  ctx.target_interactivity = 125.0;
  const ReportData slow = make_report_data(ctx, lines, {"deployment.tp", "workload.concurrency"});
  EXPECT_TRUE(extension_points(slow, one, 125.0).empty());  // slower even at concurrency 1
  EXPECT_NE(out_of_range_at(slow, 125.0)[0].why.find("1 included: it cannot reach the target"), std::string::npos)
      << out_of_range_at(slow, 125.0)[0].why;
  // A failed point above the largest ok one stops the growth there.
  lines = {line_of(pts[0], 300, 1000), line_of(pts[1], 200, 3000)};
  ResultLine failed;
  failed.index = pts[2].index;
  failed.id = pts[2].id;
  failed.assignments = pts[2].assignments_json();
  failed.status = PointStatus::error;
  failed.reason = "out of memory";
  lines.push_back(failed);
  EXPECT_TRUE(
      extension_points(make_report_data(ctx, lines, {"deployment.tp", "workload.concurrency"}), pts, 125.0).empty());
}

// Inside a power budget: whole nodes of each configuration's provisioned kW, the most tokens first.
TEST(PowerPlan, MostTokensInsideTheBudgetOnWholeNodes) {
  auto line = [](std::size_t i, const char* tier, double conc, double inter, double tput, double kw) {
    PointMetrics m = tier_metrics(inter, tput);
    m.power_kw_per_gpu = kw;
    return tier_line(i, tier, conc, m);
  };
  // At 125: hbm 1500 tok/s/GPU at 2 kW per GPU, dram 1200 at 1 kW.
  const std::vector<ResultLine> lines = {line(0, "hbm", 8, 150, 1000, 2.0), line(1, "hbm", 32, 100, 2000, 2.0),
                                         line(2, "dram", 8, 150, 800, 1.0), line(3, "dram", 32, 100, 1600, 1.0)};
  const ReportData d = tier_data(lines);
  const PowerPlan f = plan_in_power(d, 125.0, 0.1);  // 100 kW: hbm 6 nodes (16 kW each), dram 12 (8 kW each)
  ASSERT_EQ(f.ranking.size(), 2u);
  EXPECT_EQ(f.ranking[0].config, "tier=dram");
  EXPECT_EQ(f.ranking[0].nodes, 12);
  EXPECT_EQ(f.ranking[0].gpus, 96);
  EXPECT_DOUBLE_EQ(f.ranking[0].tokens_per_s, 96 * 1200.0);
  EXPECT_EQ(f.ranking[1].nodes, 6);
  EXPECT_DOUBLE_EQ(f.ranking[1].tokens_per_s, 48 * 1500.0);
  EXPECT_EQ(f.verdict.rfind("Inside 0.1 MW at 125 tok/s/user, tier=dram serves the most: 115200 tok/s on 12 nodes", 0),
            0u)
      << f.verdict;
  EXPECT_DOUBLE_EQ(plan_in_power(d, 125.0, 0.1, 0.5).ranking[0].tokens_per_s, 96 * 1200.0 * 0.5);
  EXPECT_THROW(plan_in_power(d, 125.0, 0.0), std::invalid_argument);
}
