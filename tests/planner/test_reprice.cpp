// Re-pricing finished results (planner/reprice.hpp): only the GPU-hour price and what follows from
// it change; the Engram capital and whole-node factor stay the point's own.
#include <cmath>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "planner/reprice.hpp"

namespace engramsim::planner {
namespace {

ReportPoint ok_point(std::size_t index, const std::string& config, double tok_s_gpu, nlohmann::json extra) {
  ReportPoint p;
  p.index = index;
  p.config = config;
  p.status = PointStatus::ok;
  p.metrics.throughput_per_gpu = tok_s_gpu;
  p.metrics.output_throughput_per_gpu = tok_s_gpu / 100.0;
  p.metrics.gpu_hour_usd = 2.0;
  p.metrics.extra = std::move(extra);
  p.metrics.cost_per_gpu_hour_usd = 2.0;
  p.usd_per_gpu_hour = 2.0;
  p.tokens_per_dollar = tokens_per_dollar(tok_s_gpu, 2.0);
  return p;
}

TEST(Reprice, OnlyTheGpuHourPriceChangesAndTheRestFollows) {
  const nlohmann::json extra = {{"node", "hgx-b200"},
                                {"engram_capacity_usd_per_gpu_hour", 0.25},
                                {"paid_gpus_per_used_gpu", 2.0},
                                {"tokens_per_dollar", 1.0}};
  const ReportPoint p = reprice_point(ok_point(0, "a", 1000.0, extra), 3.0);
  EXPECT_DOUBLE_EQ(p.metrics.gpu_hour_usd, 3.0);
  EXPECT_DOUBLE_EQ(p.metrics.cost_per_gpu_hour_usd, (3.0 + 0.25) * 2.0);
  EXPECT_DOUBLE_EQ(p.usd_per_gpu_hour, 6.5);
  EXPECT_DOUBLE_EQ(p.tokens_per_dollar, 1000.0 * 3600.0 / 6.5);
  EXPECT_DOUBLE_EQ(p.metrics.extra["tokens_per_dollar"].get<double>(), p.tokens_per_dollar);
  EXPECT_DOUBLE_EQ(p.metrics.throughput_per_gpu, 1000.0);  // simulated figures stay
  EXPECT_NEAR(cost_metrics_of(p.metrics).usd_per_m_total_tokens, 6.5 / (1000.0 * 3600.0 / 1e6), 1e-12);
}

TEST(Reprice, WithoutEngramOrWholeNodeFiguresThePriceIsTheGpusAlone) {
  const ReportPoint p = reprice_point(ok_point(0, "a", 500.0, nlohmann::json::object()), 1.5);
  EXPECT_DOUBLE_EQ(p.usd_per_gpu_hour, 1.5);
  const ReportPoint unpriced = reprice_point(ok_point(0, "a", 500.0, {}), 0.0);  // no price: NaN, as read
  EXPECT_TRUE(std::isnan(unpriced.usd_per_gpu_hour));
  EXPECT_TRUE(std::isnan(unpriced.tokens_per_dollar));
}

TEST(Reprice, PointsThatDidNotRunAreLeftAlone) {
  ReportPoint p;
  p.status = PointStatus::infeasible;
  p.usd_per_gpu_hour = 7.0;
  EXPECT_DOUBLE_EQ(reprice_point(p, 1.0).usd_per_gpu_hour, 7.0);
}

TEST(Reprice, EachPointTakesItsOwnNodesPriceAndTheContextSaysSo) {
  ReportData d;
  d.context.price_tier = "hyperscaler";
  d.context.assumptions.push_back({"price tier", "hyperscaler", "scenario price_tier", "assumed"});
  d.points.push_back(ok_point(0, "b200", 1000.0, {{"node", "hgx-b200"}}));
  d.points.push_back(ok_point(1, "h200", 1000.0, {{"node", "hgx-h200"}}));
  ReportPoint swept = ok_point(2, "swept", 1000.0, {{"node", "hgx-h200"}});
  swept.assignments = {{"node", "hgx-b200"}};  // the sweep's axis names the node it ran
  d.points.push_back(swept);
  int lookups = 0;
  const GpuHourPrice price = [&](const std::string& node) {
    ++lookups;
    return node == "hgx-b200" ? 4.0 : 3.0;
  };
  const ReportData r = reprice(d, price, "rental", "", std::nullopt);
  EXPECT_DOUBLE_EQ(r.points[0].usd_per_gpu_hour, 4.0);
  EXPECT_DOUBLE_EQ(r.points[1].usd_per_gpu_hour, 3.0);
  EXPECT_DOUBLE_EQ(r.points[2].usd_per_gpu_hour, 4.0);
  EXPECT_EQ(lookups, 2);  // once per node
  EXPECT_EQ(r.context.price_tier, "rental");
  EXPECT_EQ(r.context.assumptions.front().value, "rental");
  ASSERT_FALSE(r.context.notes.empty());
  EXPECT_NE(r.context.notes.back().find("from hyperscaler to rental"), std::string::npos);
}

TEST(Reprice, APointWithoutANodeTakesTheFallbackOrIsRefusedByIndex) {
  ReportData d;
  d.points.push_back(ok_point(5, "a", 1000.0, nlohmann::json::object()));
  const GpuHourPrice price = [](const std::string&) { return 2.5; };
  EXPECT_DOUBLE_EQ(reprice(d, price, "neocloud", "", std::string("hgx-b200")).points[0].usd_per_gpu_hour, 2.5);
  try {
    reprice(d, price, "neocloud", "", std::nullopt);
    FAIL() << "a point without a node was re-priced";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("point 5"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace engramsim::planner
