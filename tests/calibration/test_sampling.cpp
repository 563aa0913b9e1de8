// Sampling and bookkeeping pieces: percentiles, the Zipf sampler against its exact pmf, the rank
// scatter bijection, the samples CSV, thread sweeps and the --only resolver.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "calibration/calibration_runner.hpp"
#include "calibration/memory_benchmarks.hpp"
#include "calibration/rank_scatter.hpp"
#include "calibration/sample_log.hpp"
#include "calibration/stats.hpp"
#include "core/error.hpp"
#include "core/zipf_sampler.hpp"

namespace engramsim::calibration {
namespace {

TEST(Stats, PercentilesInterpolateBetweenRanks) {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(percentile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(v, 1.0), 5.0);
  EXPECT_DOUBLE_EQ(median(v), 3.0);
  EXPECT_DOUBLE_EQ(percentile(v, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(median({1.0, 2.0}), 1.5);
  EXPECT_THROW(percentile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(percentile(v, 1.5), std::invalid_argument);
}

double zipf_pmf(std::uint64_t k, std::uint64_t n, double s) {
  double z = 0.0;
  for (std::uint64_t i = 1; i <= n; ++i) z += std::pow(static_cast<double>(i), -s);
  return std::pow(static_cast<double>(k), -s) / z;
}

TEST(Zipf, FrequenciesMatchTheExactPmf) {
  for (const double s : {0.6, 1.0, 1.3}) {
    const std::uint64_t n = 20;
    const ZipfSampler z(static_cast<std::int64_t>(n), s);
    RngStream rng(7, "zipf-test");
    std::vector<int> count(n + 1, 0);
    const int draws = 200000;
    for (int i = 0; i < draws; ++i) {
      const auto k = static_cast<std::uint64_t>(z.sample(rng));
      ASSERT_GE(k, 1u);
      ASSERT_LE(k, n);
      ++count[k];
    }
    for (std::uint64_t k = 1; k <= n; ++k) {
      const double p = zipf_pmf(k, n, s);
      const double sigma = std::sqrt(p * (1 - p) / draws);
      EXPECT_NEAR(static_cast<double>(count[k]) / draws, p, 5 * sigma + 1e-4) << "s=" << s << " k=" << k;
    }
  }
}

TEST(Zipf, LargeRangesStayInBounds) {
  const ZipfSampler z(768022850, 1.0);  // rows of both V4.1 Engram tables
  RngStream rng(3, "zipf-large");
  std::uint64_t ones = 0;
  for (int i = 0; i < 100000; ++i) {
    const auto k = z.sample(rng);
    ASSERT_GE(k, 1);
    ASSERT_LE(k, 768022850);
    ones += k == 1;
  }
  // P(1) = 1 / H_n, H_n ~ ln(n) + 0.5772 = 21.04 -> 4.75%.
  EXPECT_NEAR(static_cast<double>(ones) / 100000, 1.0 / 21.04, 0.004);
  EXPECT_THROW(ZipfSampler(0, 1.0), std::invalid_argument);
  EXPECT_THROW(ZipfSampler(10, -0.5), std::invalid_argument);  // 0 is uniform (core/zipf_sampler.hpp)
}

TEST(RankScatter, IsABijection) {
  for (const std::uint64_t n : {1ull, 2ull, 7ull, 1000ull, 4096ull, 65537ull}) {
    const RankScatter sc(n);
    std::set<std::uint64_t> seen;
    for (std::uint64_t r = 0; r < n; ++r) {
      const auto row = sc(r);
      ASSERT_LT(row, n);
      seen.insert(row);
    }
    EXPECT_EQ(seen.size(), n);
    if (n > 2) {
      EXPECT_NE(sc(1), 1u);  // adjacent ranks land apart
    }
  }
}

TEST(SampleLog, WritesCsvAndRefusesCommas) {
  SampleLog log;
  log.add("dram_gather", "row=264B dist=uniform threads=2", "rows", 4000000, "seconds", 0.412);
  EXPECT_EQ(log.to_csv(),
            "section,case,x_name,x,y_name,y\n"
            "dram_gather,row=264B dist=uniform threads=2,rows,4000000,seconds,0.412\n");
  EXPECT_THROW(log.add("a,b", "c", "x", 1, "y", 2), std::invalid_argument);
}

TEST(ThreadSweep, PowersOfTwoThenTheMaximum) {
  EXPECT_EQ(thread_sweep(1), (std::vector<int>{1}));
  EXPECT_EQ(thread_sweep(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(thread_sweep(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(thread_sweep(8), (std::vector<int>{1, 2, 4, 8}));
}

TEST(BenchmarkList, ResolvesGroupsAndSections) {
  const auto a = resolve_benchmark_list("dram,ssd");
  EXPECT_EQ(a, (std::set<std::string>{"dram_gather", "ssd_random_read", "ssd_mmap", "ssd_sequential"}));
  const auto g = resolve_benchmark_list("gpu");
  EXPECT_EQ(g.count("gemm"), 1u);
  EXPECT_EQ(g.count("memcpy"), 0u);
  EXPECT_EQ(resolve_benchmark_list(" gemm , memcpy "), (std::set<std::string>{"gemm", "memcpy"}));
  EXPECT_EQ(resolve_benchmark_list("").size(), calibration_section_names().size());
  try {
    resolve_benchmark_list("dram,disk");
    FAIL() << "unknown name accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--only"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("\"disk\""), std::string::npos);
  }
  EXPECT_THROW(resolve_benchmark_list(","), ConfigError);
}

TEST(Runner, SamplesFileSitsBesideTheProfile) {
  EXPECT_EQ(samples_path_for("/a/b/p.yaml"), "/a/b/p.samples.csv");
  EXPECT_EQ(samples_path_for("p.yml"), "p.samples.csv");
  EXPECT_EQ(samples_path_for("dir/profile"), "dir/profile.samples.csv");
}

TEST(Runner, DefaultGemmShapesComeFromTheCatalogModels) {
  const auto q = default_gemm_shapes(true);
  const auto f = default_gemm_shapes(false);
  EXPECT_LT(q.size(), f.size());
  bool v41_down = false, llama_up = false, dsv3_up_at_32 = false;
  for (const auto& s : q) dsv3_up_at_32 = dsv3_up_at_32 || (s.n == 4096 && s.k == 7168 && s.m == 32);
  for (const auto& s : f) {
    v41_down = v41_down || (s.n == 5120 && s.k == 2304);
    llama_up = llama_up || (s.n == 28672 && s.k == 8192);
    EXPECT_GE(s.m, 1);
    EXPECT_LE(s.m, 16384);
  }
  EXPECT_TRUE(v41_down);
  EXPECT_TRUE(llama_up);
  EXPECT_TRUE(dsv3_up_at_32) << "the quick sweep holds DeepSeek-V3's expert gate+up at 32 rows";
}

}  // namespace
}  // namespace engramsim::calibration
