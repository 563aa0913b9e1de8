// The host-DRAM KV-offload pool of one replica: a fixed number of KV blocks in pinned host memory
// behind the GPU prefix cache (kv_block_manager.hpp), named by the same chained block hashes.
//
// Policy (docs/agentic.md "KV offload tier"):
//   - a cached block the GPU pool evicts is stored here (store()); a block already held only becomes
//     most recently used (its bytes are there: no copy);
//   - when the pool is full, storing evicts the least recently used block (stored or loaded);
//   - a prefix hit served from here (touch()) makes the block most recently used; the block stays
//     (it is now on the GPU too), so a later GPU eviction of it costs no copy.
// Memory: one entry per block held, allocated as blocks arrive (a pool sized for millions of blocks
// costs nothing until used); every operation is O(1) expected.
// version() changes whenever the set of held hashes changes (store of a new block, eviction), so a
// caller can cache a lookup until then; touch() reorders and does not change it.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace engramsim::sim {

class KvOffloadPool {
 public:
  explicit KvOffloadPool(std::int64_t capacity_blocks);  // > 0

  std::int64_t capacity() const { return capacity_; }
  std::int64_t size() const { return static_cast<std::int64_t>(index_.size()); }
  bool contains(std::uint64_t hash) const { return index_.count(hash) != 0; }
  // A block evicted from the GPU. True when it was written (not held before): the caller pays its copy.
  bool store(std::uint64_t hash);
  // A hit served from the pool; the block must be held.
  void touch(std::uint64_t hash);

  std::uint64_t version() const { return version_; }
  std::uint64_t writes() const { return writes_; }        // blocks written (device to host)
  std::uint64_t evictions() const { return evictions_; }  // blocks dropped to make room
  // Hashes from least to most recently used (for tests; O(size)).
  std::vector<std::uint64_t> lru_order() const;

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  struct Entry {
    std::uint64_t hash = 0;
    std::uint32_t prev = kNone;
    std::uint32_t next = kNone;
  };
  void unlink(std::uint32_t e);
  void push_back(std::uint32_t e);

  std::int64_t capacity_;
  std::vector<Entry> entries_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::uint32_t head_ = kNone;  // least recently used
  std::uint32_t tail_ = kNone;
  std::uint64_t version_ = 0;
  std::uint64_t writes_ = 0;
  std::uint64_t evictions_ = 0;
};

}  // namespace engramsim::sim
