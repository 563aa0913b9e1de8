#include "core/cost_metrics.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace engramsim {
namespace {

// B200 at the July-2026 hyperscaler price, 5000 tok/s/GPU of which 4000 input and 1000 output.
CostInputs b200() { return {5000.0, 4000.0, 1000.0, MoneyRate(1.73), 1.71}; }

TEST(CostMetrics, HandComputedValues) {
  const CostMetrics m = cost_metrics(b200());
  // 5000 tok/s x 3600 s = 18 M tok per GPU-hour; 14.4 M input, 3.6 M output.
  EXPECT_NEAR(m.usd_per_m_total_tokens, 1.73 / 18.0, 1e-12);
  EXPECT_NEAR(m.usd_per_m_input_tokens, 1.73 / 14.4, 1e-12);
  EXPECT_NEAR(m.usd_per_m_output_tokens, 1.73 / 3.6, 1e-12);
  EXPECT_NEAR(m.m_tokens_per_usd, 18.0 / 1.73, 1e-12);
  EXPECT_NEAR(m.m_output_tokens_per_usd, 3.6 / 1.73, 1e-12);
  EXPECT_NEAR(m.tokens_per_s_per_mw, 5000.0 / 0.00171, 1e-6);
  EXPECT_NEAR(m.joules_per_token, 1710.0 / 5000.0, 1e-12);
}

TEST(CostMetrics, ReciprocalOfTokensPerDollar) {
  const CostMetrics m = cost_metrics(b200());
  EXPECT_NEAR(m.usd_per_m_total_tokens * m.m_tokens_per_usd, 1.0, 1e-12);
}

TEST(CostMetrics, UndefinedFiguresAreNaN) {
  CostInputs no_tokens = b200();
  no_tokens.total_tokens_per_s_per_gpu = no_tokens.input_tokens_per_s_per_gpu = 0.0;
  const CostMetrics a = cost_metrics(no_tokens);
  EXPECT_TRUE(std::isnan(a.usd_per_m_total_tokens));
  EXPECT_TRUE(std::isnan(a.usd_per_m_input_tokens));
  EXPECT_TRUE(std::isnan(a.joules_per_token));
  EXPECT_DOUBLE_EQ(a.m_tokens_per_usd, 0.0);  // no tokens is zero tokens per dollar
  EXPECT_DOUBLE_EQ(a.tokens_per_s_per_mw, 0.0);

  CostInputs unpriced = b200();
  unpriced.usd_per_gpu_hour = MoneyRate(0.0);
  unpriced.power_kw_per_gpu = 0.0;
  const CostMetrics b = cost_metrics(unpriced);
  EXPECT_TRUE(std::isnan(b.usd_per_m_total_tokens));
  EXPECT_TRUE(std::isnan(b.m_tokens_per_usd));
  EXPECT_TRUE(std::isnan(b.tokens_per_s_per_mw));
  EXPECT_TRUE(std::isnan(b.joules_per_token));

  CostInputs infinite = b200();
  infinite.usd_per_gpu_hour = MoneyRate(std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(cost_metrics(infinite).m_tokens_per_usd));
}

TEST(CostMetrics, HumanFormatsAreFixedPoint) {
  const CostMetrics m = cost_metrics(b200());
  EXPECT_EQ(format_usd_per_mtok(m.usd_per_m_total_tokens), "$0.0961 /M tok");
  EXPECT_EQ(format_usd_per_mtok(0.43), "$0.43 /M tok");
  EXPECT_EQ(format_mtok_per_usd(82.8), "82.8 M tok/$");
  EXPECT_EQ(format_mtok_per_usd(m.m_tokens_per_usd), "10.4 M tok/$");
  EXPECT_EQ(format_mtok_per_usd(1234.6), "1235 M tok/$");
  EXPECT_EQ(format_usd_per_mtok(0.000012345), "$0.0000123 /M tok");
  EXPECT_EQ(format_tokens_per_mw(m.tokens_per_s_per_mw), "2.92 M tok/s per MW");
  EXPECT_EQ(format_joules_per_token(m.joules_per_token), "0.342 J/tok");
  EXPECT_EQ(format_usd_per_mtok(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

}  // namespace
}  // namespace engramsim

namespace engramsim {
namespace {

// Whole nodes are paid for: a replica that divides the node pays for itself only; TP5 on 8 GPUs
// holds one replica per node and pays 8 GPUs for 5; TP16 on 8-GPU nodes spans two whole nodes;
// TP3 on 8 holds two replicas (6 GPUs) and pays 8 for 6.
TEST(PaidGpus, IdleGpusOfWholeNodesArePaidFor) {
  for (int tp : {1, 2, 4, 8}) EXPECT_DOUBLE_EQ(paid_gpus_per_used_gpu(tp, 8), 1.0) << tp;
  EXPECT_DOUBLE_EQ(paid_gpus_per_used_gpu(5, 8), 8.0 / 5.0);
  EXPECT_DOUBLE_EQ(paid_gpus_per_used_gpu(3, 8), 8.0 / 6.0);
  EXPECT_DOUBLE_EQ(paid_gpus_per_used_gpu(16, 8), 1.0);
  EXPECT_DOUBLE_EQ(paid_gpus_per_used_gpu(12, 8), 16.0 / 12.0);
  EXPECT_THROW(paid_gpus_per_used_gpu(0, 8), std::invalid_argument);
}

}  // namespace
}  // namespace engramsim
