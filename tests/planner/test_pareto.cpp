#include <gtest/gtest.h>

#include <cmath>

#include "planner/pareto.hpp"
#include "planner/point_metrics.hpp"

using namespace engramsim::planner;

namespace {
CurvePoint pt(double x, double y, const std::string& config = "c", double conc = 0) {
  CurvePoint p;
  p.x = x;
  p.y = y;
  p.config = config;
  p.concurrency = conc;
  return p;
}
}  // namespace

TEST(Pareto, FrontierKeepsUndominatedPointsSortedByInteractivity) {
  // C is beaten by B on both axes; D by E (same x, higher y); F by A (higher x, same y).
  const auto f = pareto_frontier({pt(10, 100, "A"), pt(20, 80, "B"), pt(15, 70, "C"), pt(30, 40, "D"), pt(30, 50, "E"),
                                  pt(5, 100, "F"), pt(NAN, 1e9, "G")});
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].config, "A");
  EXPECT_EQ(f[1].config, "B");
  EXPECT_EQ(f[2].config, "E");
  EXPECT_TRUE(pareto_frontier({}).empty());
  // Exact duplicates collapse to one point.
  EXPECT_EQ(pareto_frontier({pt(1, 1, "a"), pt(1, 1, "b")}).size(), 1u);
}

TEST(Pareto, CurvesGroupByConfigurationInConcurrencyOrder) {
  const auto curves = build_curves(
      {pt(5, 50, "tp4", 8), pt(9, 10, "tp2", 1), pt(8, 20, "tp4", 1), pt(6, 40, "tp4", 4), pt(INFINITY, 1, "tp2", 2)});
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].config, "tp4");
  ASSERT_EQ(curves[0].points.size(), 3u);
  EXPECT_EQ(curves[0].points[0].concurrency, 1);
  EXPECT_EQ(curves[0].points[2].concurrency, 8);
  EXPECT_EQ(curves[1].points.size(), 1u);  // the non-finite point is dropped
}

TEST(Pareto, TokensPerDollarAndCostPerMillion) {
  // 78.7k tok/s/GPU at $2.34/GPU-hour is about 121M tokens per dollar (facts §3.1).
  EXPECT_NEAR(tokens_per_dollar(78700, 2.34), 78700 * 3600 / 2.34, 1e-6);
  EXPECT_NEAR(tokens_per_dollar(78700, 2.34) / 1e6, 121.08, 0.01);
  EXPECT_DOUBLE_EQ(usd_per_million_tokens(1000, 3.6), 1.0);
  EXPECT_EQ(tokens_per_dollar(1000, 0.0), 0.0);
  EXPECT_TRUE(std::isinf(usd_per_million_tokens(0, 2)));
  const auto t = to_tokens_per_dollar({pt(10, 1000)}, 3.6);
  EXPECT_DOUBLE_EQ(t[0].y, 1e6);
  EXPECT_DOUBLE_EQ(t[0].x, 10);
}

TEST(Steffen, ReproducesAParabolaThroughThreePoints) {
  // Hand computation: s = (1, 3); interior slope 2*min(1, 3, 0.5*2) = 2; end slopes 0 and 4. The
  // Hermite cubics then reduce to x^2 on both intervals.
  SteffenSpline s({0, 1, 2}, {0, 1, 4});
  ASSERT_EQ(s.slopes().size(), 3u);
  EXPECT_DOUBLE_EQ(s.slopes()[0], 0.0);
  EXPECT_DOUBLE_EQ(s.slopes()[1], 2.0);
  EXPECT_DOUBLE_EQ(s.slopes()[2], 4.0);
  EXPECT_DOUBLE_EQ(*s(0.5), 0.25);
  EXPECT_DOUBLE_EQ(*s(1.5), 2.25);
  EXPECT_DOUBLE_EQ(*s(2.0), 4.0);
  EXPECT_DOUBLE_EQ(*s(0.0), 0.0);
  EXPECT_FALSE(s(-0.001).has_value());
  EXPECT_FALSE(s(2.001).has_value());
}

TEST(Steffen, FlatSegmentsStayFlatAndNoOvershoot) {
  // Slopes 0, 1, 0: every knot slope is 0, so the middle interval is the smoothstep -2t^3 + 3t^2.
  SteffenSpline s({0, 1, 2, 3}, {0, 0, 1, 1});
  EXPECT_DOUBLE_EQ(*s(0.5), 0.0);
  EXPECT_DOUBLE_EQ(*s(1.5), 0.5);
  EXPECT_DOUBLE_EQ(*s(2.5), 1.0);
  double prev = -1;
  for (int i = 0; i <= 300; ++i) {
    const double y = *s(i * 0.01);
    EXPECT_GE(y, prev - 1e-12);
    EXPECT_GE(y, 0.0);
    EXPECT_LE(y, 1.0);
    prev = y;
  }
}

TEST(Steffen, EndSlopeClampAndDegenerateSizes) {
  // First interval slope 1, second 10: the end parabola slope p0 = 1*1.5 - 10*0.5 < 0 -> 0.
  SteffenSpline s({0, 1, 2}, {0, 1, 11});
  EXPECT_DOUBLE_EQ(s.slopes()[0], 0.0);
  // p_end = 10*1.5 - 1*0.5 = 14.5 < 2*10: kept.
  EXPECT_DOUBLE_EQ(s.slopes()[2], 14.5);
  SteffenSpline line({0, 10}, {10, 0});
  EXPECT_DOUBLE_EQ(*line(2.5), 7.5);
  SteffenSpline one({3}, {7});
  EXPECT_DOUBLE_EQ(*one(3), 7);
  EXPECT_FALSE(one(3.1).has_value());
  EXPECT_THROW(SteffenSpline({0, 0}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(SteffenSpline({1, 0}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(SteffenSpline({}, {}), std::invalid_argument);
  EXPECT_THROW(SteffenSpline({0, 1}, {1}), std::invalid_argument);
}

TEST(Pareto, RatioBetweenFrontiersAtSameInteractivity) {
  const std::vector<CurvePoint> a{pt(10, 200), pt(20, 100)};
  const std::vector<CurvePoint> b{pt(10, 100), pt(20, 50)};
  EXPECT_DOUBLE_EQ(*frontier_value_at(a, 15), 150.0);
  EXPECT_DOUBLE_EQ(*frontier_ratio(a, b, 15), 2.0);
  EXPECT_FALSE(frontier_ratio(a, b, 25).has_value());
  EXPECT_FALSE(frontier_value_at({}, 1).has_value());
  // Three collinear points: Steffen keeps the line, b(x) = 112.5 - 2.5x; a(x) = 300 - 10x on [10, 20].
  const std::vector<CurvePoint> c{pt(5, 100), pt(15, 75), pt(25, 50)};
  EXPECT_DOUBLE_EQ(*frontier_value_at(c, 10), 87.5);
  const auto m = max_frontier_ratio(a, c);
  ASSERT_TRUE(m.has_value());
  EXPECT_DOUBLE_EQ(m->x, 10.0);
  EXPECT_NEAR(m->ratio, 200.0 / 87.5, 1e-12);
  EXPECT_FALSE(max_frontier_ratio(a, {pt(30, 1), pt(40, 0.5)}).has_value());
}

TEST(PointMetrics, JsonRoundTripAndQuantiles) {
  PointMetrics m;
  m.gpus = 2;
  m.interactivity = 125.0;
  m.throughput_per_gpu = NAN;  // stored as null, read back as NaN
  m.ttft_ms = {10, 20, 30};
  m.hbm_footprint = {{"weights", 90.5}, {"kv_pool", 120}};
  m.tpot_samples_ms = {3, 1, 2};
  m.extra = {{"note", "x"}};
  const auto j = to_json(m);
  EXPECT_TRUE(j["throughput_per_gpu"].is_null());
  const auto r = metrics_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(r.gpus, 2);
  EXPECT_DOUBLE_EQ(r.interactivity, 125.0);
  EXPECT_TRUE(std::isnan(r.throughput_per_gpu));
  EXPECT_DOUBLE_EQ(r.ttft_ms.p99, 30);
  ASSERT_EQ(r.hbm_footprint.size(), 2u);
  EXPECT_EQ(r.hbm_footprint[0].term, "weights");
  EXPECT_EQ(r.tpot_samples_ms, (std::vector<double>{3, 1, 2}));
  EXPECT_EQ(r.extra["note"], "x");
  EXPECT_TRUE(std::isnan(metrics_from_json(nlohmann::json::object()).interactivity));
  // Quantiles of 0..100 at 5 points are 0, 25, 50, 75, 100; short inputs come back sorted.
  std::vector<double> v;
  for (int i = 100; i >= 0; --i) v.push_back(i);
  EXPECT_EQ(downsample_quantiles(v, 5), (std::vector<double>{0, 25, 50, 75, 100}));
  EXPECT_EQ(downsample_quantiles({3, 1, 2}, 5), (std::vector<double>{1, 2, 3}));
}
