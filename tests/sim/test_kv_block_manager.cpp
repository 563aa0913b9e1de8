#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/serving/kv/kv_block_manager.hpp"

using namespace engramsim;
using namespace engramsim::sim;

TEST(KvBlockManager, AllocatesUpToCapacityExactly) {
  KvBlockManager kv({10, 16, false});
  EXPECT_EQ(kv.blocks_for_tokens(0), 0);
  EXPECT_EQ(kv.blocks_for_tokens(16), 1);
  EXPECT_EQ(kv.blocks_for_tokens(17), 2);
  EXPECT_TRUE(kv.allocate(9));
  EXPECT_FALSE(kv.allocate(2));  // one short: nothing changes
  EXPECT_EQ(kv.used_blocks(), 9);
  EXPECT_TRUE(kv.allocate(1));
  EXPECT_EQ(kv.free_blocks(), 0);
  EXPECT_DOUBLE_EQ(kv.usage(), 1.0);
  kv.release_private(10);
  EXPECT_EQ(kv.free_blocks(), 10);
  EXPECT_THROW(KvBlockManager({0, 16, false}), ConfigError);
}

TEST(KvBlockManager, CachedBlocksAreReusedThenEvictedLeastRecentlyReleasedFirst) {
  KvBlockManager kv({4, 16, true});
  ASSERT_TRUE(kv.allocate(4));
  const auto a = kv.register_block(111);
  const auto b = kv.register_block(222);
  const auto c = kv.register_block(333);
  ASSERT_TRUE(a && b && c);
  EXPECT_FALSE(kv.register_block(111));  // duplicate hash: the caller's block stays private
  EXPECT_EQ(kv.cached_blocks(), 3);
  EXPECT_EQ(kv.used_blocks(), 4);
  kv.release_private(1);
  EXPECT_THROW(kv.register_block(444), std::logic_error);  // no private block left to name
  kv.release(*b);                                          // LRU order: b, then a, then c
  kv.release(*a);
  kv.release(*c);
  EXPECT_EQ(kv.used_blocks(), 0);
  EXPECT_EQ(kv.free_blocks(), 4);
  // A hit takes the block out of the free list.
  ASSERT_EQ(kv.lookup(111), a);
  kv.acquire(*a);
  EXPECT_EQ(kv.used_blocks(), 1);
  EXPECT_EQ(kv.free_blocks(), 3);
  // The uncached block goes first, then the least recently released cached one (222).
  ASSERT_TRUE(kv.allocate(1));
  EXPECT_EQ(kv.evictions(), 0u);
  ASSERT_TRUE(kv.allocate(1));
  EXPECT_EQ(kv.evictions(), 1u);
  EXPECT_FALSE(kv.lookup(222));
  EXPECT_TRUE(kv.lookup(333));
  EXPECT_FALSE(kv.allocate(2));
  EXPECT_EQ(kv.used_blocks() + kv.free_blocks(), 4);
}

TEST(KvBlockManager, SharedBlockFreedOnlyWhenLastReferenceDrops) {
  KvBlockManager kv({2, 16, true});
  ASSERT_TRUE(kv.allocate(1));
  const auto e = kv.register_block(7);
  ASSERT_TRUE(e);
  kv.acquire(*e);  // a second sequence hits it
  kv.release(*e);
  EXPECT_EQ(kv.used_blocks(), 1);
  EXPECT_FALSE(kv.is_free(*e));
  kv.release(*e);
  EXPECT_TRUE(kv.is_free(*e));
  EXPECT_EQ(kv.used_blocks(), 0);
  EXPECT_THROW(kv.release(*e), std::logic_error);
}
