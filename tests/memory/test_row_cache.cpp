#include <gtest/gtest.h>

#include "core/zipf_sampler.hpp"
#include "sim/memory/row_cache.hpp"

using namespace engramsim;

TEST(RowCache, LruEvictsLeastRecentlyUsed) {
  auto c = make_row_cache(RowCachePolicy::lru, 2);
  EXPECT_FALSE(c->access(1));
  EXPECT_FALSE(c->access(2));
  EXPECT_TRUE(c->access(1));   // 1 is now most recent
  EXPECT_FALSE(c->access(3));  // evicts 2
  EXPECT_TRUE(c->contains(1));
  EXPECT_FALSE(c->contains(2));
  EXPECT_TRUE(c->contains(3));
  EXPECT_EQ(c->hits(), 1u);
  EXPECT_EQ(c->misses(), 3u);
}

TEST(RowCache, LfuKeepsFrequentEntries) {
  auto c = make_row_cache(RowCachePolicy::lfu, 2);
  c->access(1);
  c->access(1);
  c->access(1);
  c->access(2);
  c->access(3);  // evicts 2 (count 1, older than nothing else with count 1)
  EXPECT_TRUE(c->contains(1));
  EXPECT_FALSE(c->contains(2));
  EXPECT_TRUE(c->contains(3));
}

TEST(RowCache, ZeroCapacityAlwaysMissesAndUnknownPolicyThrows) {
  auto c = make_row_cache(RowCachePolicy::lru, 0);
  EXPECT_FALSE(c->access(1));
  EXPECT_FALSE(c->access(1));
  EXPECT_EQ(c->size(), 0u);
  EXPECT_FALSE(row_cache_policy_from("fifo").has_value());
  EXPECT_EQ(row_cache_policy_from("lru"), RowCachePolicy::lru);
  EXPECT_STREQ(to_string(RowCachePolicy::lfu), "lfu");
}

TEST(RowCache, FrequencyPolicyBeatsLruOnZipfAndHitRatioGrowsWithSize) {
  ZipfSampler z(100000, 1.0);
  double prev = 0.0;
  for (std::uint64_t cap : {1000u, 4000u, 16000u}) {
    auto lru = make_row_cache(RowCachePolicy::lru, cap);
    auto lfu = make_row_cache(RowCachePolicy::lfu, cap);
    RngStream rng(5, "cache");
    for (int i = 0; i < 200000; ++i) {
      const auto k = static_cast<std::uint64_t>(z.sample(rng));
      lru->access(k);
      lfu->access(k);
    }
    const double hr_lru = static_cast<double>(lru->hits()) / 200000.0;
    const double hr_lfu = static_cast<double>(lfu->hits()) / 200000.0;
    EXPECT_GT(hr_lru, prev);
    EXPECT_GE(hr_lfu, hr_lru);
    // Neither can beat the ideal static cache of the top `cap` ranks by more than noise.
    EXPECT_LT(hr_lfu, zipf_top_share(100000, 1.0, static_cast<std::int64_t>(cap)) + 0.01);
    prev = hr_lru;
  }
}
