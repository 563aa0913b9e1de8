// The paged KV-cache pool of one replica: `num_blocks` blocks of `block_size` tokens each.
//
// Blocks are counted, not individually named, except those that hold a hashed prompt prefix (the
// prefix cache). A block is in exactly one of four states:
//   free_uncached  - holds nothing useful;
//   private        - owned by one sequence, content not shareable (not hashed);
//   cached, in use - holds a hashed prefix block, referenced by >= 1 sequences (refcount);
//   cached, free   - holds a hashed prefix block nobody references; reusable as a hit until it
//                    is evicted, least recently released first (LRU).
// free_blocks() = free_uncached + cached-free: what a new allocation may take. Allocation takes
// uncached blocks first and evicts cached-free blocks only when none are left (vLLM v1 instead pops
// one mixed free queue; taking uncached blocks first never evicts a reusable block needlessly).
// used_blocks() = private + cached-in-use; their sum with free_blocks() is always num_blocks.
//
// KV offload (KvPoolParams::offload_blocks > 0, needs prefix caching): every cached block this pool
// evicts is stored in a host-DRAM pool (kv_offload_pool.hpp) under the same hash; the replica's
// admission serves a prefix from there when the GPU run of hits ends (replica_state.hpp).
// contents_version() changes whenever the set of cached hashes changes (a block registered or
// evicted); references taken or dropped do not change it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/serving/kv/kv_offload_pool.hpp"

namespace engramsim::sim {

struct KvPoolParams {
  std::int64_t num_blocks = 0;   // > 0
  std::int32_t block_size = 16;  // tokens per block, > 0
  bool enable_prefix_caching = false;
  std::int64_t offload_blocks = 0;  // host-DRAM KV-offload pool; 0 = none
};

class KvBlockManager {
 public:
  using EntryId = std::uint32_t;

  explicit KvBlockManager(const KvPoolParams& params);

  std::int64_t num_blocks() const { return num_blocks_; }
  std::int32_t block_size() const { return block_size_; }
  bool prefix_caching() const { return prefix_caching_; }
  std::int64_t free_blocks() const { return free_uncached_ + cached_free_; }
  std::int64_t used_blocks() const { return private_used_ + cached_used_; }
  std::int64_t cached_blocks() const { return cached_used_ + cached_free_; }
  double usage() const { return static_cast<double>(used_blocks()) / static_cast<double>(num_blocks_); }
  std::int64_t blocks_for_tokens(std::int64_t tokens) const { return (tokens + block_size_ - 1) / block_size_; }

  // Takes n private blocks; returns false (and changes nothing) when fewer than n are free.
  bool allocate(std::int64_t n);
  // Returns n private blocks to the pool.
  void release_private(std::int64_t n);

  // Prefix cache. lookup() does not change any state.
  std::optional<EntryId> lookup(std::uint64_t hash) const;
  bool is_free(EntryId e) const { return entries_[e].refcount == 0; }
  // Adds a reference; a cached-free block becomes in use (and leaves the LRU list).
  void acquire(EntryId e);
  // Drops a reference; at zero the block becomes cached-free, most recently released.
  void release(EntryId e);
  // Turns one of the caller's private blocks into a cached block named `hash`, referenced once by
  // the caller. Returns nullopt, changing nothing, when `hash` is already cached (the caller keeps
  // its private copy, as vLLM keeps duplicate blocks computed concurrently).
  std::optional<EntryId> register_block(std::uint64_t hash);

  std::uint64_t evictions() const { return evictions_; }
  std::uint64_t contents_version() const { return contents_version_; }
  // The host-DRAM offload pool, or null when the replica has none.
  KvOffloadPool* offload() { return offload_ ? &*offload_ : nullptr; }
  const KvOffloadPool* offload() const { return offload_ ? &*offload_ : nullptr; }

  // The four block states by count (read-only, for invariant checks); they sum to num_blocks().
  std::int64_t free_uncached_blocks() const { return free_uncached_; }
  std::int64_t private_blocks() const { return private_used_; }
  std::int64_t cached_in_use_blocks() const { return cached_used_; }
  std::int64_t cached_free_blocks() const { return cached_free_; }
  // References held on a cached block (0: cached-free).
  std::int32_t refcount(EntryId e) const { return entries_[e].refcount; }

 private:
  static constexpr EntryId kNone = UINT32_MAX;
  struct Entry {
    std::uint64_t hash = 0;
    std::int32_t refcount = 0;
    EntryId prev = kNone;  // LRU links, valid while refcount == 0
    EntryId next = kNone;
  };
  void lru_unlink(EntryId e);
  void lru_push_back(EntryId e);
  void evict_one();

  std::int64_t num_blocks_;
  std::int32_t block_size_;
  bool prefix_caching_;
  std::int64_t free_uncached_;
  std::int64_t private_used_ = 0;
  std::int64_t cached_used_ = 0;
  std::int64_t cached_free_ = 0;
  // hash -> entry: open addressing with linear probing at load <= 1/2, doubling when needed;
  // deletion shifts later entries back (no tombstones). A node-based map spent most of a
  // prefix-heavy run in the allocator and in pointer chasing.
  struct Slot {
    std::uint64_t hash = 0;
    EntryId entry = kNone;  // kNone = empty
  };
  std::size_t home(std::uint64_t hash) const {
    return static_cast<std::size_t>((hash * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  std::size_t find_slot(std::uint64_t hash) const;  // the slot holding `hash`, or an empty one
  void erase_slot(std::size_t i);
  void resize_table(std::size_t capacity);

  std::vector<Entry> entries_;
  std::vector<EntryId> free_entries_;
  std::vector<Slot> table_;
  std::size_t table_used_ = 0;
  std::size_t mask_ = 0;
  int shift_ = 64;
  EntryId lru_head_ = kNone;  // least recently released
  EntryId lru_tail_ = kNone;
  std::uint64_t evictions_ = 0;
  std::uint64_t contents_version_ = 0;
  std::optional<KvOffloadPool> offload_;
};

}  // namespace engramsim::sim
