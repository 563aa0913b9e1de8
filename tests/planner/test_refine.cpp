// Refinement near the target interactivity (planner/refine.hpp): midpoints of the brackets, none
// once adjacent, a settled comparison, and load_results reading the rounds back after the grid.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

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
    out.push_back(make_sweep_point(out.size(), {{"deployment.tp", YAML::Node(4)}, {"workload.concurrency", YAML::Node(c)}}));
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
  const auto far = grid({1, 64});
  EXPECT_TRUE(refinement_points(data(far, {300, 200}), far, 125.0).empty());  // never reaches 125
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
