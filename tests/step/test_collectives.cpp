// Alpha-beta collectives: the fit itself on synthetic data, the stored DGX H100 defaults against a
// refit of the Vidur NCCL table (with the per-size error printed and the achieved quality
// asserted), and the scaling rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/collectives.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

std::string data_file(const char* name) {
  return engramsim::test::source_root() + "/models/data/vidur-h100_dgx/" + name;
}

TEST(Collectives, FitRecoversExactLine) {
  // t = 10 us + S / 100 GB/s, exactly: the fit must return it.
  std::vector<MessageTiming> pts;
  for (double s : {1e3, 1e5, 1e6, 1e7, 1e8}) pts.push_back({s, 10e-6 + s / 100e9});
  const AlphaBetaModel m = fit_collective_alpha_beta(pts);
  EXPECT_NEAR(m.alpha_s, 10e-6, 1e-12);
  EXPECT_NEAR(m.beta().gb_per_s(), 100.0, 1e-6);
  const auto q = collective_fit_quality(m, pts);
  EXPECT_LT(q.max, 1e-9);
}

TEST(Collectives, FitWeightsRelativeError) {
  // Two points, one 10% high at a small size: with two parameters the line passes through both.
  std::vector<MessageTiming> pts = {{1e3, 11e-6}, {1e8, 1e-3}};
  const AlphaBetaModel m = fit_collective_alpha_beta(pts);
  EXPECT_NEAR(m.seconds(1e3), 11e-6, 1e-12);
  EXPECT_NEAR(m.seconds(1e8), 1e-3, 1e-12);
}

TEST(Collectives, FitRejectsDegenerateInput) {
  std::vector<MessageTiming> one = {{1e3, 1e-5}};
  EXPECT_THROW(fit_collective_alpha_beta(one), std::invalid_argument);
  std::vector<MessageTiming> zero = {{1e3, 0.0}, {1e4, 1e-5}};
  EXPECT_THROW(fit_collective_alpha_beta(zero), std::invalid_argument);
}

// Refits every rank count of the stored table, checks the compiled-in defaults are that fit, prints
// the error per message size (sizes nearest each power of two, plus summary percentiles) and
// asserts the quality this two-parameter model actually achieves on the data.
TEST(Collectives, DgxH100AllReduceDefaultsAreTheFit) {
  const CollectiveParams defaults = dgx_h100_nccl_defaults();
  ASSERT_EQ(defaults.all_reduce.size(), 3u);
  for (const auto& stored : defaults.all_reduce) {
    const auto pts = read_vidur_collective_csv(data_file("all_reduce.csv"), stored.ranks, 0);
    ASSERT_GT(pts.size(), 900u) << "ranks " << stored.ranks;
    const AlphaBetaModel fit = fit_collective_alpha_beta(pts);
    EXPECT_NEAR(fit.alpha_s, stored.model.alpha_s, 1e-6 * stored.model.alpha_s) << "ranks " << stored.ranks;
    EXPECT_NEAR(fit.seconds_per_byte, stored.model.seconds_per_byte, 1e-6 * stored.model.seconds_per_byte)
        << "ranks " << stored.ranks;

    std::printf("all-reduce, %d ranks: alpha %.2f us, beta %.1f GB/s\n", stored.ranks, fit.alpha_s * 1e6,
                fit.beta().gb_per_s());
    std::printf("  %12s %12s %12s %8s\n", "bytes", "measured_us", "model_us", "err_%");
    double last_printed = -1;
    for (int k = 11; k <= 26; ++k) {
      const double target = std::exp2(k);
      const MessageTiming* best = &pts.front();
      for (const auto& p : pts)
        if (std::abs(std::log2(p.bytes / target)) < std::abs(std::log2(best->bytes / target))) best = &p;
      if (best->bytes == last_printed) continue;
      last_printed = best->bytes;
      const double pred = fit.seconds(best->bytes);
      std::printf("  %12.0f %12.1f %12.1f %8.1f\n", best->bytes, best->seconds * 1e6, pred * 1e6,
                  100.0 * (pred - best->seconds) / best->seconds);
    }
    // The table's sizes are evenly spaced (8 KiB steps up to 64 MiB), so most points are large
    // messages; the quality is reported per size band as well.
    auto band = [&](double lo, double hi) {
      std::vector<MessageTiming> b;
      for (const auto& p : pts)
        if (p.bytes >= lo && p.bytes < hi) b.push_back(p);
      return b;
    };
    const double mib = 1024.0 * 1024.0;
    const auto small = band(0, mib);
    const auto mid = band(mib, 4 * mib);
    const auto large = band(4 * mib, 1e18);
    const auto q = collective_fit_quality(fit, pts);
    const auto qs = collective_fit_quality(fit, small);
    const auto qm = collective_fit_quality(fit, mid);
    const auto ql = collective_fit_quality(fit, large);
    std::printf("  all %zu sizes: median %.1f%%, mean %.1f%%, p90 %.1f%%, max %.1f%%\n", pts.size(), 100 * q.median,
                100 * q.mean, 100 * q.p90, 100 * q.max);
    std::printf(
        "  < 1 MiB (%zu): median %.1f%%, p90 %.1f%%; 1-4 MiB (%zu): median %.1f%%, p90 %.1f%%; "
        ">= 4 MiB (%zu): median %.1f%%, p90 %.1f%%, max %.1f%%\n",
        small.size(), 100 * qs.median, 100 * qs.p90, mid.size(), 100 * qm.median, 100 * qm.p90, large.size(),
        100 * ql.median, 100 * ql.p90, 100 * ql.max);
    // Achieved on this table (2/4/8 ranks): median 7.7/6.8/4.4 %, mean 15.8/8.8/5.5 %; 1-4 MiB
    // median 15.9/12.8/4.2 %; >= 4 MiB median 7.0/6.1/3.8 %, p90 16.6/9.7/8.1 %. Below 1 MiB the
    // measured times are bimodal (7 us or ~40 us at 2 ranks) and flat up to ~4 MiB at 2 and 4
    // ranks, which no straight line follows: errors there reach 30-300 % and are only reported.
    // Bounds sit ~10 % above what the fit achieves, per rank count.
    struct Bounds {
      int ranks;
      double median, mean, mid_median, large_median, large_p90;
    };
    constexpr Bounds bounds[] = {{2, 0.085, 0.175, 0.175, 0.077, 0.183},
                                 {4, 0.075, 0.097, 0.141, 0.067, 0.107},
                                 {8, 0.049, 0.061, 0.047, 0.042, 0.090}};
    const Bounds* b = nullptr;
    for (const auto& x : bounds)
      if (x.ranks == stored.ranks) b = &x;
    ASSERT_NE(b, nullptr);
    EXPECT_LT(q.median, b->median);
    EXPECT_LT(q.mean, b->mean);
    EXPECT_LT(qm.median, b->mid_median);
    EXPECT_LT(ql.median, b->large_median);
    EXPECT_LT(ql.p90, b->large_p90);
  }
}

TEST(Collectives, DgxH100PointToPointDefaultIsTheFit) {
  const auto pts = read_vidur_collective_csv(data_file("send_recv.csv"), 0, 2);
  ASSERT_GT(pts.size(), 900u);
  const AlphaBetaModel fit = fit_collective_alpha_beta(pts);
  const auto stored = dgx_h100_nccl_defaults().point_to_point;
  EXPECT_NEAR(fit.alpha_s, stored.alpha_s, 1e-6 * stored.alpha_s);
  EXPECT_NEAR(fit.seconds_per_byte, stored.seconds_per_byte, 1e-6 * stored.seconds_per_byte);
  const auto q = collective_fit_quality(fit, pts);
  std::printf("send/recv intra-node: alpha %.2f us, beta %.1f GB/s; median %.1f%%, p90 %.1f%%, max %.1f%%\n",
              fit.alpha_s * 1e6, fit.beta().gb_per_s(), 100 * q.median, 100 * q.p90, 100 * q.max);
  // Achieved: median 1.9 %, p90 7.7 %.
  EXPECT_LT(q.median, 0.03);
  EXPECT_LT(q.p90, 0.10);
}

TEST(Collectives, ModelMatchesFitOnReferenceFabric) {
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  EXPECT_DOUBLE_EQ(net.bandwidth_scale(), 1.0);
  // 8 ranks, 16 MiB: 30.08113 us + 16777216 B x 5.114157e-12 s/B = 30.081 + 85.801 = 115.88 us.
  EXPECT_NEAR(net.all_reduce_seconds(16777216.0, 8), 30.08113e-6 + 16777216.0 * 5.114157e-12, 1e-12);
  // 2 ranks: alpha 28.55 us, 1 MiB / 337.2 GB/s = 3.109 us -> 31.66 us.
  EXPECT_NEAR(net.all_reduce_seconds(1048576.0, 2), 2.855270e-05 + 1048576.0 * 2.965226e-12, 1e-12);
  EXPECT_EQ(net.all_reduce_seconds(1e6, 1), 0.0);
  EXPECT_EQ(net.all_to_all_seconds(1e6, 1), 0.0);
}

TEST(Collectives, ScalesBandwidthByFabricRatio) {
  // NVLink5 (1.8 TB/s) doubles the bandwidth term and keeps alpha.
  const CollectiveModel h100(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  const CollectiveModel b300(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(1800));
  const double s = 64.0 * 1024 * 1024;
  const double alpha8 = 3.008113e-05;
  EXPECT_NEAR(b300.all_reduce_seconds(s, 8) - alpha8, 0.5 * (h100.all_reduce_seconds(s, 8) - alpha8), 1e-12);
  // All-to-all: 7.70 us + sent x 2.797e-12 / 2.
  EXPECT_NEAR(b300.all_to_all_seconds(1e7, 8), 7.695772e-06 + 1e7 * 2.797235e-12 / 2.0, 1e-12);
}

TEST(Collectives, InterpolatesAndExtrapolatesRankCounts) {
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  // 16 ranks: alpha of the 8-rank fit; bus bandwidth of 8 ranks (1/5.114157e-12 x 2x7/8 = 342.2
  // GB/s) turned into algbw 342.2 x 16 / 30 = 182.5 GB/s.
  const double busbw8 = 1.0 / 5.114157e-12 * 2.0 * 7.0 / 8.0;
  const double s = 1e8;
  EXPECT_NEAR(net.all_reduce_seconds(s, 16), 3.008113e-05 + s / (busbw8 * 16.0 / 30.0), 1e-12);
  // 6 ranks sit between the 4- and 8-rank fits in log2: f = log2(6/4) = 0.585.
  const double f = std::log2(1.5);
  const double busbw4 = 1.0 / 3.845208e-12 * 2.0 * 3.0 / 4.0;
  const double alpha = 3.362300e-05 + f * (3.008113e-05 - 3.362300e-05);
  const double busbw = busbw4 + f * (busbw8 - busbw4);
  EXPECT_NEAR(net.all_reduce_seconds(s, 6), alpha + s / (busbw * 6.0 / 10.0), 1e-12);
}

TEST(Collectives, MeasuredAllReduceInterpolatesInLogSpace) {
  const MeasuredAllReduce t{8, {{1000.0, 4e-6}, {4000.0, 16e-6}, {16000.0, 16e-6}}};
  EXPECT_DOUBLE_EQ(measured_all_reduce_seconds(t, 1000.0), 4e-6);
  EXPECT_DOUBLE_EQ(measured_all_reduce_seconds(t, 10.0), 4e-6);  // below the table: its first time
  // Halfway in log(size) between 1,000 and 4,000 B: the geometric mean of 4 and 16 us.
  EXPECT_NEAR(measured_all_reduce_seconds(t, 2000.0), 8e-6, 1e-15);
  EXPECT_NEAR(measured_all_reduce_seconds(t, 8000.0), 16e-6, 1e-15);
  // Above the table: in proportion to the size, the last point's bandwidth.
  EXPECT_NEAR(measured_all_reduce_seconds(t, 32000.0), 32e-6, 1e-15);
}

TEST(Collectives, MeasuredAllReduceReplacesTheFitAtItsRankCounts) {
  CollectiveParams p = dgx_h100_nccl_defaults();
  p.measured_all_reduce = {{8, {{1000.0, 5e-6}, {2000.0, 6e-6}}}};
  const CollectiveModel net(p, Bandwidth::gb_per_s(900));
  const CollectiveModel fit(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  EXPECT_DOUBLE_EQ(net.all_reduce_seconds(2000.0, 8), 6e-6);
  EXPECT_DOUBLE_EQ(net.all_reduce_seconds(2000.0, 4), fit.all_reduce_seconds(2000.0, 4));
  EXPECT_EQ(net.all_reduce_seconds(2000.0, 1), 0.0);
  p.measured_all_reduce = {{8, {{2000.0, 5e-6}, {1000.0, 6e-6}}}};
  EXPECT_THROW(CollectiveModel(p, Bandwidth::gb_per_s(900)), std::invalid_argument);
}

// SGLang 0.5.9's custom all-reduce in CUDA-graph replay (models/data/engine-allreduce): every
// rank count has increasing sizes on both GPUs, and the H200 table agrees with the one in-step
// measurement of that kernel in the repository: InferenceX issue 1004's trace of dsr1-fp8-h200-sglang
// at 16 in flight (SGLang v0.5.9, TP8), 12.7 us per all-reduce of 16 x 7,168 BF16 (229,376 B), fused
// there with the residual RMSNorm. Bound stated before the comparison: 20 %, the bound the kernel
// tables of this folder are held to.
TEST(Collectives, SglangAllReduceTableMatchesTheInStepTrace) {
  EXPECT_EQ(engine_all_reduce_tables(), std::vector<std::string>{"sglang-0.5.9"});
  for (const char* gpu : {"h200-sxm", "b200"}) {
    const std::vector<MeasuredAllReduce> t = engine_all_reduce_table("sglang-0.5.9", gpu);
    ASSERT_EQ(t.size(), 3u) << gpu;
    for (const MeasuredAllReduce& m : t) {
      EXPECT_EQ(m.points.size(), 23u) << gpu << " " << m.ranks;
      CollectiveParams p = dgx_h100_nccl_defaults();
      p.measured_all_reduce = {m};
      EXPECT_NO_THROW(CollectiveModel(p, Bandwidth::gb_per_s(900))) << gpu << " " << m.ranks;
    }
  }
  EXPECT_TRUE(engine_all_reduce_table("sglang-0.5.9", "h100-sxm").empty());
  EXPECT_THROW(engine_all_reduce_table("nccl", "h200-sxm"), std::invalid_argument);
  const std::vector<MeasuredAllReduce> h200 = engine_all_reduce_table("sglang-0.5.9", "h200-sxm");
  const double t = measured_all_reduce_seconds(h200[2], 16.0 * 7168 * 2);
  std::printf(
      "SGLang H200 TP8 all-reduce of 229,376 B: %.2f us (trace 12.7 us; NCCL fit %.2f us)\n", t * 1e6,
      CollectiveModel(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900)).all_reduce_seconds(229376.0, 8) * 1e6);
  EXPECT_EQ(h200[2].ranks, 8);
  EXPECT_NEAR(t, 12.7e-6, 0.2 * 12.7e-6);
}

// DeepEP's low-latency table (models/data/deepep-h800/low_latency.csv): rows at EP >= 32 as
// (bytes a rank sends to experts on other 8-GPU nodes, latency). Dispatch carries FP8 plus one FP32
// scale per 128 elements, combine BF16. The stored scale-out default is this fit on a 50 GB/s NIC.
std::vector<MessageTiming> deepep_low_latency_points() {
  std::FILE* f = std::fopen((engramsim::test::source_root() + "/models/data/deepep-h800/low_latency.csv").c_str(), "r");
  EXPECT_NE(f, nullptr);
  std::vector<MessageTiming> pts;
  if (f == nullptr) return pts;
  char line[256];
  EXPECT_NE(std::fgets(line, sizeof line, f), nullptr);  // header
  char kernel[32];
  int ep = 0, tokens = 0, hidden = 0, top_k = 0;
  double latency_us = 0.0, gbps = 0.0;
  while (std::fscanf(f, " %31[a-z],%d,%d,%d,%d,%lf,%lf", kernel, &ep, &tokens, &hidden, &top_k, &latency_us, &gbps) ==
         7) {
    if (ep < 32) continue;
    const bool dispatch = std::string(kernel) == "dispatch";
    const double payload = dispatch ? hidden * (1.0 + 4.0 / 128.0) : 2.0 * hidden;
    const double remote = (ep - 8.0) / ep;
    pts.push_back({tokens * top_k * remote * payload, latency_us * 1e-6});
  }
  std::fclose(f);
  return pts;
}

TEST(Collectives, DeepEpLowLatencyDefaultIsTheFit) {
  const auto pts = deepep_low_latency_points();
  ASSERT_EQ(pts.size(), 8u);
  const AlphaBetaModel fit = fit_collective_alpha_beta(pts);
  const double nic = 50e9;  // CX7 400 Gb/s per direction
  const auto stored = deepep_h800_defaults().low_latency;
  std::printf("DeepEP low latency: alpha %.2f us, %.1f GB/s = %.3f of the NIC\n", fit.alpha_s * 1e6,
              fit.beta().gb_per_s(), fit.beta().value() / nic);
  for (const auto& p : pts)
    std::printf("  %8.0f B: measured %6.1f us, fit %6.1f us (%+.1f%%)\n", p.bytes, p.seconds * 1e6,
                fit.seconds(p.bytes) * 1e6, 100.0 * (fit.seconds(p.bytes) - p.seconds) / p.seconds);
  EXPECT_NEAR(stored.alpha_s, fit.alpha_s, 0.01 * fit.alpha_s);
  EXPECT_NEAR(stored.seconds_per_byte / nic, fit.seconds_per_byte, 0.01 * fit.seconds_per_byte);
  // Achieved: every row within 7 %.
  EXPECT_LT(collective_fit_quality(fit, pts).max, 0.07);
}

TEST(Collectives, DeepEpNormalDefaultIsTheMeanRdmaBandwidth) {
  // Normal-kernel RDMA bottleneck bandwidths at EP 16/32/64 (normal.csv): 43, 58, 51 (dispatch),
  // 43, 57, 50 (combine) GB/s; mean 50.33 GB/s on the 50 GB/s NIC.
  const double mean = (43.0 + 58.0 + 51.0 + 43.0 + 57.0 + 50.0) / 6.0;
  EXPECT_NEAR(1.0 / deepep_h800_defaults().normal.seconds_per_byte, mean / 50.0, 1e-3);
}

TEST(Collectives, ExpertAllToAllAcrossDomainsHandComputed) {
  // H800: scale-up 400 GB/s bidirectional (scale 400/900 of the DGX H100 fit), NIC 50 GB/s.
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(400.0), Bandwidth::gb_per_s(50.0));
  const ScaleOutParams so = deepep_h800_defaults();
  // Low latency, 10 MB over the NIC, 1 MB over NVLink: alpha + 10e6 / (50e9 x 0.830).
  const double ll = net.expert_all_to_all_seconds(10e6, 1e6, ExpertKernels::low_latency);
  EXPECT_NEAR(ll, so.low_latency.alpha_s + 10e6 * so.low_latency.seconds_per_byte / 50e9, 1e-12);
  // Normal, NVLink-bound: 1 MB over the NIC (20 us) against 10 MB over NVLink at 357 x 4/9 GB/s (63 us).
  const double nvl = 10e6 * dgx_h100_nccl_defaults().point_to_point.seconds_per_byte * 900.0 / 400.0;
  const double nrm = net.expert_all_to_all_seconds(1e6, 10e6, ExpertKernels::normal);
  EXPECT_NEAR(nrm, so.normal.alpha_s + nvl, 1e-12);
  EXPECT_GT(nvl, 1e6 * so.normal.seconds_per_byte / 50e9);
  EXPECT_EQ(net.expert_all_to_all_seconds(0.0, 0.0, ExpertKernels::normal), 0.0);
  // No NIC stated: a cross-domain all-to-all is a logic error, not a silent zero.
  const CollectiveModel single(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(400.0));
  EXPECT_THROW(single.expert_all_to_all_seconds(1e6, 0.0, ExpertKernels::normal), std::logic_error);
}

}  // namespace
}  // namespace engramsim
