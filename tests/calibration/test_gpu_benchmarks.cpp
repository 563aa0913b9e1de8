// CUDA benchmarks at small sizes, each with its CPU-reference check. Without a GPU (or without
// nvcc at build time) every test skips and says why; the probe itself must work everywhere.
#include <gtest/gtest.h>

#include "calibration/calibration_runner.hpp"
#include "calibration/gpu_benchmarks.hpp"
#include "calibration/stats.hpp"

namespace engramsim::calibration {
namespace {

GpuBenchConfig small() {
  GpuBenchConfig c;
  c.warmup = 1;
  c.repetitions = 3;
  return c;
}

#define REQUIRE_GPU()                                 \
  const GpuEnvironment env = probe_gpu_environment(); \
  if (!env.available) GTEST_SKIP() << "no GPU to run on: " << env.reason

TEST(GpuProbe, AnswersWithoutThrowing) {
  const GpuEnvironment env = probe_gpu_environment();
  if (env.available) {
    EXPECT_TRUE(env.compiled);
    ASSERT_FALSE(env.devices.empty());
    EXPECT_FALSE(env.devices[0].name.empty());
    EXPECT_GT(env.devices[0].sm_count, 0);
    EXPECT_FALSE(env.driver_version.empty());
    EXPECT_FALSE(env.runtime_version.empty());
  } else {
    EXPECT_FALSE(env.reason.empty());
  }
}

TEST(GpuRunner, WithoutAGpuEveryGpuSectionSaysWhy) {
  const GpuEnvironment env = probe_gpu_environment();
  if (env.available) GTEST_SKIP() << "a GPU is present; this test covers machines without one";
  CalibrationOptions o;
  o.sections = resolve_benchmark_list("gpu");
  CalibrationRun run;
  run_gpu_benchmarks(o, run, [](const std::string&, const std::string&) {});
  for (const auto& n : o.sections) {
    EXPECT_FALSE(has_section_data(run.profile, n));
    ASSERT_EQ(run.profile.not_measured.count(n), 1u) << n;
    EXPECT_EQ(run.profile.not_measured.at(n), env.reason);
  }
  EXPECT_TRUE(run.failures.empty());
}

TEST(GpuBenchmarks, HbmCopy) {
  REQUIRE_GPU();
  const auto r = gpu_hbm_copy(small(), {1u << 20, 64u << 20});
  ASSERT_EQ(r.size(), 2u);
  for (const auto& t : r) EXPECT_EQ(t.seconds.size(), 3u);
  EXPECT_GT(median(r[1].seconds), median(r[0].seconds));
}

TEST(GpuBenchmarks, GathersFromEverySource) {
  REQUIRE_GPU();
  const std::uint64_t table = 64u << 20;
  for (const GatherSource src : {GatherSource::hbm, GatherSource::uva, GatherSource::staged}) {
    std::vector<GpuGatherCase> cases;
    for (const std::uint32_t row : {264u, 1024u}) {
      GpuGatherCase c;
      c.row_bytes = row;
      c.batch_rows = {256, 4096};
      const std::uint64_t n = table / row;
      for (std::uint64_t i = 0; i < 3 * 4096; ++i) c.indices.push_back((i * 2654435761ull) % n);
      cases.push_back(std::move(c));
    }
    const auto pts = gpu_gather(small(), src, table, cases, 2);
    ASSERT_EQ(pts.size(), 4u) << static_cast<int>(src);
    for (const auto& p : pts) EXPECT_EQ(p.seconds.size(), 3u);
  }
}

TEST(GpuBenchmarks, HostLink) {
  REQUIRE_GPU();
  const auto r = gpu_host_link(small(), {4096, 1u << 20, 16u << 20});
  EXPECT_EQ(r.h2d.size(), 3u);
  EXPECT_EQ(r.d2h.size(), 3u);
}

TEST(GpuBenchmarks, GemmMatchesTheCpuReference) {
  REQUIRE_GPU();
  const auto r =
      gpu_gemm(small(), {{1, 256, 512}, {64, 512, 256}, {300, 2304, 5120}}, {Precision::bf16, Precision::fp8});
  EXPECT_FALSE(r.library.empty());
  EXPECT_GE(r.points.size(), 3u);  // bf16 always; fp8 where the device has it
  for (const auto& p : r.points) EXPECT_LT(p.relative_error, 1e-2);
}

TEST(GpuBenchmarks, AttentionDecodeMatchesTheCpuReference) {
  REQUIRE_GPU();
  const auto r = gpu_attention_decode(small(), {{2, 300}, {4, 1024}}, 8);
  ASSERT_EQ(r.points.size(), 2u);
  for (const auto& p : r.points) EXPECT_LT(p.relative_error, 2e-3);
}

TEST(GpuBenchmarks, KernelLaunchChainMatchesTheCpuReference) {
  REQUIRE_GPU();
  const auto r = gpu_kernel_launch(small(), 50, 4096);  // throws GpuCorrectnessError on a mismatch
  EXPECT_EQ(r.kernels, 50);
  ASSERT_FALSE(r.empty_seconds.empty());
  ASSERT_EQ(r.tiny_seconds.size(), r.empty_seconds.size());
  for (const double s : r.empty_seconds) EXPECT_GT(s, 0.0);
}

TEST(GpuBenchmarks, CollectivesNeedTwoGpus) {
  REQUIRE_GPU();
  const auto r = gpu_collectives(small(), {64u << 10, 4u << 20});
  if (env.devices.size() < 2) {
    EXPECT_FALSE(r.measured);
    EXPECT_NE(r.reason.find("2 or more GPUs"), std::string::npos);
  } else if (r.measured) {
    EXPECT_EQ(r.all_reduce.size(), 2u);
    EXPECT_EQ(r.p2p.size(), 2u);
  } else {
    EXPECT_FALSE(r.reason.empty());
  }
}

}  // namespace
}  // namespace engramsim::calibration
