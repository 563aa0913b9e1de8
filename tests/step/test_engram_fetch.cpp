// Engram fetch: distinct-row expectations (against closed forms and brute force), the LRU cache
// approximation (against a simulated LRU), and the per-tier fetch times (hand-computed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "models/engram_fetch.hpp"

namespace engramsim {
namespace {

// V4.1's Engram shape (facts §2.2): orders 2..4 x 8 heads = 24 rows/token/layer of 264 B.
EngramSpec v41_engram() {
  EngramSpec e;
  e.layers = {1, 14};
  e.min_order = 2;
  e.max_order = 4;
  e.heads_per_order = 8;
  e.head_dim = 256;
  e.row_bytes = Bytes(264);
  e.table_rows = {384006168, 384016682};
  return e;
}

// A round-numbered 8-GPU node: 2 GPUs per PCIe switch with a 64 GB/s uplink.
NodeSpec toy_node() {
  NodeSpec n;
  n.gpu.hbm_bandwidth = Bandwidth(8e12);
  n.gpu.host_link_bandwidth = Bandwidth(64e9);
  n.gpu_count = 8;
  n.host_dram_bandwidth = Bandwidth(800e9);
  n.host_link_latency = Time::ns(1500);
  n.topology.gpu_groups = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  n.topology.switch_uplink_bandwidth = Bandwidth(64e9);
  n.nvme.count = 8;
  n.nvme.random_read_iops_4k_per_drive = 2.5e6;
  n.nvme.read_latency = Time::us(70);
  n.nvme.seq_read_per_drive = Bandwidth(13e9);
  return n;
}

double brute_distinct(double n, double s, double draws) {
  double h = 0;
  for (double i = 1; i <= n; ++i) h += std::pow(i, -s);
  double d = 0;
  for (double i = 1; i <= n; ++i) d += 1.0 - std::pow(1.0 - std::pow(i, -s) / h, draws);
  return d;
}

TEST(RowPopularity, UniformDistinctIsOccupancy) {
  // 100 rows, 50 draws: 100 x (1 - 0.99^50) = 100 x (1 - 0.605006) = 39.4994.
  const RowPopularity u(100, 0.0);
  EXPECT_NEAR(u.expected_distinct(50), 39.4994, 1e-3);
  EXPECT_NEAR(u.top_mass(25), 0.25, 1e-12);
}

TEST(RowPopularity, ZipfDistinctMatchesBruteForce) {
  for (double s : {0.6, 1.0, 1.3}) {
    const RowPopularity z(2e5, s);
    for (double r : {10.0, 1000.0, 100000.0}) {
      const double exact = brute_distinct(2e5, s, r);
      EXPECT_NEAR(z.expected_distinct(r), exact, 0.01 * exact) << "s " << s << " draws " << r;
    }
  }
  // Top-10 mass under Zipf(1) over 1000 rows: H_10 / H_1000 = 2.928968 / 7.485471 = 0.391287.
  EXPECT_NEAR(RowPopularity(1000, 1.0).top_mass(10), 0.391287, 2e-3);
}

TEST(RowPopularity, DistinctSplitsByHotSetAndCache) {
  const RowPopularity z(1e5, 1.0);
  const auto none = z.expected_distinct(2000, 0, 0);
  EXPECT_NEAR(none.all, z.expected_distinct(2000), 1e-9);
  EXPECT_DOUBLE_EQ(none.outside_hot, none.all);
  EXPECT_DOUBLE_EQ(none.missing_cache, none.all);
  const auto hot = z.expected_distinct(2000, 1000, 0);
  EXPECT_LT(hot.outside_hot, hot.all - 100);  // the top 1000 rows account for many distinct draws
  const auto cached = z.expected_distinct(2000, 1000, 5000);
  EXPECT_LT(cached.missing_cache, cached.outside_hot);
}

TEST(RowPopularity, LruUniformHitRatioIsCapacityShare) {
  // Che with uniform popularity: N (1 - e^{-T/N}) = C  =>  hit = 1 - e^{-T/N} = C / N.
  EXPECT_NEAR(RowPopularity(1000, 0.0).lru_hit_ratio(0, 250), 0.25, 1e-9);
  EXPECT_DOUBLE_EQ(RowPopularity(1000, 0.0).lru_hit_ratio(0, 2000), 1.0);
}

TEST(RowPopularity, LruZipfMatchesSimulatedLru) {
  // Simulate an LRU of 1000 rows over Zipf(0.9) draws from 10,000 rows; Che is accurate to ~1-2 %.
  const double n = 10000, s = 0.9;
  const std::size_t cap = 1000;
  std::vector<double> cdf(static_cast<std::size_t>(n));
  double acc = 0;
  for (std::size_t i = 0; i < cdf.size(); ++i) cdf[i] = acc += std::pow(static_cast<double>(i + 1), -s);
  for (double& c : cdf) c /= acc;
  RngStream rng(42, "lru");
  std::list<std::size_t> order;
  std::unordered_map<std::size_t, std::list<std::size_t>::iterator> where;
  std::size_t hits = 0, draws = 0;
  for (int i = 0; i < 300000; ++i) {
    const double u = rng.uniform01();
    const std::size_t row = static_cast<std::size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    auto it = where.find(row);
    const bool hit = it != where.end();
    if (hit) order.erase(it->second);
    order.push_front(row);
    where[row] = order.begin();
    if (order.size() > cap) {
      where.erase(order.back());
      order.pop_back();
    }
    if (i >= 50000) {  // after warm-up
      ++draws;
      hits += hit ? 1 : 0;
    }
  }
  const double simulated = static_cast<double>(hits) / static_cast<double>(draws);
  const double che = RowPopularity(n, s).lru_hit_ratio(0, static_cast<double>(cap));
  EXPECT_NEAR(che, simulated, 0.02) << "simulated " << simulated;
}

TEST(EngramFetch, HbmGatherHandComputed) {
  // TP2: 24 / 2 = 12 sub-tables per rank; 384 positions -> 4,608 lookups x 264 B = 1,216,512 B.
  // Gather efficiency at 264 B: 0.5 + 0.1 x log2(264/256) = 0.504439 of 8 TB/s.
  // t = 1.5 us + 1,216,512 / (8e12 x 0.504439) = 1.5 us + 0.30145 us = 1.80145 us.
  EngramFetchParams p;
  p.tier = EngramTier::hbm;
  const EngramFetchModel m(v41_engram(), 0, 2, toy_node(), default_efficiencies(), p);
  EXPECT_DOUBLE_EQ(m.subtables_per_rank(), 12.0);
  const auto c = m.cost(384);
  EXPECT_DOUBLE_EQ(c.lookups, 4608.0);
  const double eff = 0.5 + 0.1 * std::log2(264.0 / 256.0);
  EXPECT_NEAR(c.total.seconds(), 1.5e-6 + 4608 * 264 / (8e12 * eff), 2e-9);
  EXPECT_STREQ(c.bound, "hbm");
  EXPECT_DOUBLE_EQ(c.host_rows, 0.0);
}

TEST(EngramFetch, DramZeroCopyHandComputed) {
  // Uniform rows, 16.0M rows per sub-table: 384 draws are almost all distinct (expected repeats
  // 384^2 / (2 x 16M) = 0.005 per sub-table). Link: min(64, 64 GB/s uplink / 2 GPUs) = 32 GB/s.
  // UVA efficiency at 264 B: 0.6 + 0.1 x log2(264/256) = 0.604439.
  // t = 1.5 us + 1,216,512 B / (32e9 x 0.604439) = 1.5 + 62.894 = 64.39 us.
  EngramFetchParams p;
  p.tier = EngramTier::dram;
  const EngramFetchModel m(v41_engram(), 0, 2, toy_node(), default_efficiencies(), p);
  const auto c = m.cost(384);
  EXPECT_NEAR(c.distinct_rows, 4608.0, 0.1);
  EXPECT_NEAR(c.host_rows, 4608.0, 0.1);
  const double eff = 0.6 + 0.1 * std::log2(264.0 / 256.0);
  EXPECT_NEAR(c.total.seconds(), 1.5e-6 + 4608 * 264 / (32e9 * eff), 5e-9);
  EXPECT_STREQ(c.bound, "host_link");
  // One active GPU has its switch uplink alone: twice the bandwidth.
  p.active_gpus = 1;
  const EngramFetchModel alone(v41_engram(), 0, 2, toy_node(), default_efficiencies(), p);
  EXPECT_NEAR(alone.cost(384).total.seconds(), 1.5e-6 + 4608 * 264 / (64e9 * eff), 5e-9);
}

TEST(EngramFetch, SsdWithoutCacheHandComputed) {
  // Pages: 4,608 rows x (1 + 263/4096) = 4,903.9 (dedup over 12.4M pages per rank is negligible).
  // One drive per GPU: IOPS 2.5M; queue bound 128 / 70 us = 1.829M/s; bandwidth 13e9/4096 = 3.17M/s.
  // t_ssd = 70 us + 4,903.9 / 1.8286e6 = 70 + 2,681.8 us.
  // Staging: CPU 800/8 GB/s x 0.25333 (row-size curve at 264 B) = 25.33 GB/s -> 48.0 us; copy
  // at 32 GB/s x 0.75536 (1.16 MiB on the copy curve) = 24.17 GB/s -> 50.3 us; 1.5 + max = 51.8 us.
  EngramFetchParams p;
  p.tier = EngramTier::ssd;
  const EngramFetchModel m(v41_engram(), 0, 2, toy_node(), default_efficiencies(), p);
  const auto c = m.cost(384);
  const double pages = 4608 * (1.0 + 263.0 / 4096.0);
  EXPECT_NEAR(c.ssd_pages, pages, 2.0);
  const double t_ssd = 70e-6 + pages / (128.0 / 70e-6);
  EXPECT_NEAR(c.ssd_time.seconds(), t_ssd, 2e-6);
  const double bytes = 4608 * 264.0;
  const double cpu = bytes / (100e9 * (0.25 + 0.15 * std::log2(264.0 / 256.0) / 2.0));
  const double copy = bytes / (32e9 * (0.75 + 0.1 * std::log2(bytes / 1048576.0) / 4.0));
  EXPECT_NEAR(c.host_time.seconds(), 1.5e-6 + std::max(cpu, copy), 5e-8);
  EXPECT_NEAR(c.total.seconds(), c.ssd_time.seconds() + c.host_time.seconds(), 2e-9);
  EXPECT_STREQ(c.bound, "ssd_queue");
}

TEST(EngramFetch, DramCacheCutsSsdPagesUnderZipf) {
  EngramFetchParams p;
  p.tier = EngramTier::ssd;
  p.access.zipf_s = 1.0;
  const EngramFetchModel bare(v41_engram(), 0, 2, toy_node(), default_efficiencies(), p);
  p.dram_cache = Bytes::gib(16);  // per replica: 8 GiB per rank at TP2
  const EngramFetchModel cached(v41_engram(), 0, 2, toy_node(), default_efficiencies(), p);
  // 8 GiB / 264 B / 12 sub-tables = 2.71M rows of the 16.0M in each sub-table.
  EXPECT_NEAR(cached.cache_rows_per_subtable(), 8.0 * 1073741824.0 / 264.0 / 12.0, 1.0);
  EXPECT_GT(cached.dram_cache_hit_ratio(), 0.5);
  const auto a = bare.cost(384);
  const auto b = cached.cost(384);
  EXPECT_LT(b.ssd_pages, 0.6 * a.ssd_pages);
  EXPECT_LT(b.total, a.total);
  // Zipf dedup: hot rows repeat within the step.
  EXPECT_LT(a.distinct_rows, a.lookups);
}

TEST(EngramFetch, HotSetServesPopularRowsFromHbm) {
  EngramFetchParams p;
  p.tier = EngramTier::dram;
  p.access.zipf_s = 1.0;
  p.hbm_hot_cache = Bytes::gib(2);
  const EngramFetchModel m(v41_engram(), 0, 2, toy_node(), default_efficiencies(), p);
  const auto c = m.cost(384);
  EXPECT_GT(c.hbm_rows, 0.2 * c.lookups);
  EXPECT_LT(c.host_rows, c.distinct_rows);
}

TEST(EngramFetch, MonotoneInPositionsAndZeroWhenIdle) {
  for (EngramTier tier : {EngramTier::hbm, EngramTier::dram, EngramTier::ssd}) {
    EngramFetchParams p;
    p.tier = tier;
    const EngramFetchModel m(v41_engram(), 1, 4, toy_node(), default_efficiencies(), p);
    EXPECT_EQ(m.cost(0).total, Time::zero());
    Time last = Time::zero();
    for (double pos : {1.0, 3.0, 17.0, 300.0, 5000.0, 1e5}) {
      const Time t = m.cost(pos).total;
      EXPECT_GE(t, last) << to_string(tier) << " " << pos;
      last = t;
    }
  }
}

}  // namespace
}  // namespace engramsim
