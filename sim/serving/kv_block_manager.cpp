#include "sim/serving/kv_block_manager.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace engramsim::sim {

KvBlockManager::KvBlockManager(const KvPoolParams& params)
    : num_blocks_(params.num_blocks),
      block_size_(params.block_size),
      prefix_caching_(params.enable_prefix_caching),
      free_uncached_(params.num_blocks) {
  if (params.num_blocks <= 0) throw ConfigError({}, "kv.num_blocks", "must be positive");
  if (params.block_size <= 0) throw ConfigError({}, "kv.block_size", "must be positive");
}

bool KvBlockManager::allocate(std::int64_t n) {
  if (n <= 0) return true;
  if (free_uncached_ + cached_free_ < n) return false;
  while (free_uncached_ < n) evict_one();
  free_uncached_ -= n;
  private_used_ += n;
  return true;
}

void KvBlockManager::release_private(std::int64_t n) {
  if (n < 0 || n > private_used_) throw std::logic_error("KvBlockManager: releasing blocks not held");
  private_used_ -= n;
  free_uncached_ += n;
}

std::optional<KvBlockManager::EntryId> KvBlockManager::lookup(std::uint64_t hash) const {
  const auto it = by_hash_.find(hash);
  if (it == by_hash_.end()) return std::nullopt;
  return it->second;
}

void KvBlockManager::acquire(EntryId e) {
  Entry& en = entries_[e];
  if (en.refcount == 0) {
    lru_unlink(e);
    --cached_free_;
    ++cached_used_;
  }
  ++en.refcount;
}

void KvBlockManager::release(EntryId e) {
  Entry& en = entries_[e];
  if (en.refcount <= 0) throw std::logic_error("KvBlockManager: releasing an unreferenced cached block");
  if (--en.refcount == 0) {
    --cached_used_;
    ++cached_free_;
    lru_push_back(e);
  }
}

std::optional<KvBlockManager::EntryId> KvBlockManager::register_block(std::uint64_t hash) {
  if (private_used_ <= 0) throw std::logic_error("KvBlockManager: registering without a private block");
  EntryId id;
  if (!free_entries_.empty()) {
    id = free_entries_.back();
  } else {
    id = static_cast<EntryId>(entries_.size());
  }
  const auto [it, inserted] = by_hash_.try_emplace(hash, id);
  if (!inserted) return std::nullopt;
  if (id == entries_.size()) entries_.emplace_back();
  else free_entries_.pop_back();
  entries_[id] = Entry{hash, 1, kNone, kNone};
  --private_used_;
  ++cached_used_;
  return id;
}

void KvBlockManager::evict_one() {
  const EntryId e = lru_head_;
  if (e == kNone) throw std::logic_error("KvBlockManager: nothing to evict");
  lru_unlink(e);
  by_hash_.erase(entries_[e].hash);
  free_entries_.push_back(e);
  --cached_free_;
  ++free_uncached_;
  ++evictions_;
}

void KvBlockManager::lru_unlink(EntryId e) {
  Entry& en = entries_[e];
  if (en.prev != kNone) entries_[en.prev].next = en.next;
  else lru_head_ = en.next;
  if (en.next != kNone) entries_[en.next].prev = en.prev;
  else lru_tail_ = en.prev;
  en.prev = en.next = kNone;
}

void KvBlockManager::lru_push_back(EntryId e) {
  Entry& en = entries_[e];
  en.prev = lru_tail_;
  en.next = kNone;
  if (lru_tail_ != kNone) entries_[lru_tail_].next = e;
  else lru_head_ = e;
  lru_tail_ = e;
}

}  // namespace engramsim::sim
