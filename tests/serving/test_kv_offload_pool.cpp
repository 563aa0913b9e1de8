// The host KV-offload pool's policy (kv_offload_pool.hpp), its coupling to the GPU pool's evictions
// (kv_block_manager.hpp) and the admission that serves a prefix from it (replica_state.hpp).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/serving/kv/kv_block_manager.hpp"
#include "sim/serving/kv/kv_offload_pool.hpp"
#include "sim/serving/replica_state.hpp"

namespace engramsim::sim {
namespace {

using Order = std::vector<std::uint64_t>;

TEST(KvOffloadPool, StoresUntilFullThenEvictsTheLeastRecentlyUsed) {
  KvOffloadPool p(3);
  EXPECT_TRUE(p.store(1));
  EXPECT_TRUE(p.store(2));
  EXPECT_TRUE(p.store(3));
  EXPECT_EQ(p.size(), 3);
  EXPECT_EQ(p.evictions(), 0u);
  EXPECT_TRUE(p.store(4));  // 1 is the oldest
  EXPECT_FALSE(p.contains(1));
  EXPECT_EQ(p.lru_order(), (Order{2, 3, 4}));
  EXPECT_EQ(p.evictions(), 1u);
  EXPECT_EQ(p.writes(), 4u);
}

TEST(KvOffloadPool, AHitOrARestoreMakesABlockMostRecentlyUsedWithoutACopy) {
  KvOffloadPool p(3);
  p.store(1);
  p.store(2);
  p.store(3);
  const auto v = p.version();
  p.touch(1);  // a prefix hit served from the pool
  EXPECT_EQ(p.lru_order(), (Order{2, 3, 1}));
  EXPECT_EQ(p.version(), v);  // same contents
  EXPECT_FALSE(p.store(2));   // evicted from the GPU again: already held, no copy
  EXPECT_EQ(p.writes(), 3u);
  EXPECT_EQ(p.lru_order(), (Order{3, 1, 2}));
  p.store(9);  // evicts 3, the least recently used after the touches
  EXPECT_EQ(p.lru_order(), (Order{1, 2, 9}));
  EXPECT_NE(p.version(), v);
}

TEST(KvOffloadPool, CapacityOfOneKeepsOnlyTheLatest) {
  KvOffloadPool p(1);
  p.store(5);
  p.store(6);
  EXPECT_FALSE(p.contains(5));
  EXPECT_TRUE(p.contains(6));
  EXPECT_EQ(p.size(), 1);
}

TEST(KvOffloadPool, RejectsAnEmptyPoolAndTouchingAMissingBlock) {
  EXPECT_THROW(KvOffloadPool(0), ConfigError);
  KvOffloadPool p(2);
  EXPECT_THROW(p.touch(7), std::logic_error);
}

TEST(KvOffloadPool, GpuEvictionsAreStoredInTheHostPool) {
  KvBlockManager kv(KvPoolParams{2, 16, true, 4});
  ASSERT_NE(kv.offload(), nullptr);
  ASSERT_TRUE(kv.allocate(2));
  const auto a = kv.register_block(100);
  const auto b = kv.register_block(200);
  kv.release(*a);
  kv.release(*b);
  const auto v = kv.contents_version();
  ASSERT_TRUE(kv.allocate(1));  // evicts 100, released first
  EXPECT_FALSE(kv.lookup(100).has_value());
  EXPECT_TRUE(kv.offload()->contains(100));
  EXPECT_FALSE(kv.offload()->contains(200));
  EXPECT_NE(kv.contents_version(), v);
}

TEST(KvOffloadPool, NeedsPrefixCaching) {
  EXPECT_THROW(KvBlockManager(KvPoolParams{8, 16, false, 4}), ConfigError);
  EXPECT_EQ(KvBlockManager(KvPoolParams{8, 16, true, 0}).offload(), nullptr);
}

Request prompt(std::uint64_t id, std::int32_t blocks, std::uint64_t base) {
  Request r;
  r.id = id;
  r.prompt_tokens = blocks * 16 + 1;  // one token past the last full block
  r.output_tokens = 1;
  r.hash_block_tokens = 16;
  for (std::int32_t b = 0; b <= blocks; ++b) r.prefix_hashes.push_back(base + static_cast<std::uint64_t>(b));
  return r;
}

// Runs the head of the queue to completion of its prefill and finishes it (its blocks stay cached).
void run_and_finish(ReplicaState& st, Request r) {
  st.add_waiting(std::move(r));
  const AdmitResult a = st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk);
  ASSERT_TRUE(a.admitted);
  StepPlan plan;
  st.begin_step();
  const std::uint32_t slot = st.running().back();
  st.plan_prefill(plan, slot, a.chunk);
  st.seq(slot).computed += a.chunk;
  st.seq(slot).generated = 1;
  st.finish(slot);
  st.compact_running();
}

TEST(KvOffloadPool, AdmissionLoadsTheEvictedPrefixInsteadOfRecomputingIt) {
  // GPU pool of 6 blocks, host pool of 8. A 4-block prompt is cached, then a 5-block unrelated prompt
  // evicts it from the GPU into the host pool; the first prompt again hits 4 blocks from the host.
  ReplicaState st(KvPoolParams{6, 16, true, 8}, 0);
  run_and_finish(st, prompt(1, 4, 1000));
  run_and_finish(st, prompt(2, 5, 5000));
  EXPECT_EQ(st.offload_counters().written_blocks, 4u);  // A's 4 cached blocks, to make room
  st.add_waiting(prompt(3, 4, 1000));
  const AdmitResult a = st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk);
  ASSERT_TRUE(a.admitted);
  EXPECT_EQ(a.cached_before, 64);
  EXPECT_EQ(a.loaded_blocks, 4);
  EXPECT_EQ(a.chunk, 1);
  const Sequence& s = st.seq(st.running().back());
  EXPECT_EQ(s.cached_prompt_tokens, 64);
  EXPECT_EQ(s.offloaded_prompt_tokens, 64);
  EXPECT_EQ(s.cache_refs.size(), 4u);  // the loaded blocks are GPU prefix blocks again
  EXPECT_EQ(st.offload_counters().loaded_blocks, 4u);
  EXPECT_EQ(st.offload_counters().load_transfers, 1u);
}

TEST(KvOffloadPool, WithoutAPoolTheSamePrefixIsRecomputed) {
  ReplicaState st(KvPoolParams{6, 16, true, 0}, 0);
  run_and_finish(st, prompt(1, 4, 1000));
  run_and_finish(st, prompt(2, 5, 5000));
  st.add_waiting(prompt(3, 4, 1000));
  const AdmitResult a = st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk);
  ASSERT_TRUE(a.admitted);
  EXPECT_EQ(a.cached_before, 0);
  EXPECT_EQ(a.chunk, 65);
}

TEST(KvOffloadPool, AGpuHitRunIsContinuedFromTheHostPool) {
  // The head blocks stay on the GPU (still referenced), the tail was evicted to the host.
  ReplicaState st(KvPoolParams{8, 16, true, 8}, 0);
  run_and_finish(st, prompt(1, 4, 1000));
  // Evict exactly two of A's blocks: the tail goes first (released in reverse).
  ASSERT_TRUE(st.kv().allocate(6));
  st.kv().release_private(6);
  st.add_waiting(prompt(3, 4, 1000));
  const AdmitResult a = st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk);
  ASSERT_TRUE(a.admitted);
  EXPECT_EQ(a.cached_before, 64);
  EXPECT_EQ(a.loaded_blocks, 2);
}

TEST(CachedPrefixLookup, ABlockedHeadSeesBlocksCachedAfterItsFirstProbe) {
  // H shares 4 blocks with C; only the first 2 are cached when H is first tried, and a watermark keeps
  // H out (after its lookup, which is kept). C then caches blocks 2 and 3: H must find all four.
  ReplicaState st(KvPoolParams{10, 16, true}, 0);
  run_and_finish(st, prompt(1, 2, 1000));
  st.add_waiting(prompt(2, 4, 1000));  // H
  for (int i = 0; i < 2; ++i)
    EXPECT_FALSE(st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk, 8).admitted);
  const std::uint32_t h = st.waiting().front();
  st.waiting().pop_front();
  run_and_finish(st, prompt(3, 4, 1000));  // C, ahead of H for this step
  st.waiting().push_front(h);
  const AdmitResult a = st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk);
  ASSERT_TRUE(a.admitted);
  EXPECT_EQ(a.cached_before, 64);
}

TEST(CachedPrefixLookup, AReusedSlotIsProbedAfresh) {
  // X hits A's 2 blocks, is kept out once (its lookup kept), then runs and finishes without changing
  // the cached set; Y, in X's slot with the same block count, shares nothing and must hit nothing.
  ReplicaState st(KvPoolParams{10, 16, true}, 0);
  run_and_finish(st, prompt(1, 2, 1000));
  const std::uint32_t x = st.add_waiting(prompt(2, 2, 1000));
  EXPECT_FALSE(st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk, 8).admitted);
  const auto version = st.kv().contents_version();
  const AdmitResult ax = st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk);
  ASSERT_TRUE(ax.admitted);
  EXPECT_EQ(ax.cached_before, 32);
  st.seq(x).computed += ax.chunk;
  st.seq(x).generated = 1;
  st.finish(x);
  st.compact_running();
  ASSERT_EQ(st.kv().contents_version(), version);  // nothing registered or evicted
  const std::uint32_t y = st.add_waiting(prompt(3, 2, 7000));
  ASSERT_EQ(y, x);
  const AdmitResult ay = st.admit_waiting_head(1 << 20, FirstChunk::any_part, AdmissionReserve::first_chunk);
  ASSERT_TRUE(ay.admitted);
  EXPECT_EQ(ay.cached_before, 0);
}

}  // namespace
}  // namespace engramsim::sim
