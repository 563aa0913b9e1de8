#include "sim/serving/kv/kv_block_manager.hpp"

#include <bit>
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
  if (prefix_caching_) resize_table(1024);
  if (params.offload_blocks < 0) throw ConfigError({}, "kv.offload_blocks", "must be >= 0");
  if (params.offload_blocks > 0) {
    if (!prefix_caching_) throw ConfigError({}, "kv.offload_blocks", "KV offload needs prefix caching");
    offload_.emplace(params.offload_blocks);
  }
}

// Tables start small and double at load 1/2: pools of millions of blocks (compressed-KV models)
// would otherwise pay for a table sized to the pool before a single prefix is cached.
void KvBlockManager::resize_table(std::size_t capacity) {
  std::vector<Slot> old = std::move(table_);
  table_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  shift_ = 64 - std::countr_zero(capacity);
  for (const Slot& s : old) {
    if (s.entry != kNone) table_[find_slot(s.hash)] = s;
  }
}

std::size_t KvBlockManager::find_slot(std::uint64_t hash) const {
  std::size_t i = home(hash);
  while (table_[i].entry != kNone && table_[i].hash != hash) i = (i + 1) & mask_;
  return i;
}

// Backward-shift deletion: move each later entry of the probe run into the hole when its home
// position does not lie cyclically in (hole, position].
void KvBlockManager::erase_slot(std::size_t i) {
  std::size_t j = i;
  for (;;) {
    j = (j + 1) & mask_;
    if (table_[j].entry == kNone) break;
    const std::size_t k = home(table_[j].hash);
    const bool k_in_range = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (!k_in_range) {
      table_[i] = table_[j];
      i = j;
    }
  }
  table_[i] = Slot{};
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
  if (table_.empty()) return std::nullopt;
  const Slot& s = table_[find_slot(hash)];
  if (s.entry == kNone) return std::nullopt;
  return s.entry;
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
  if (table_.empty()) throw std::logic_error("KvBlockManager: prefix caching is off");
  std::size_t slot = find_slot(hash);
  if (table_[slot].entry != kNone) return std::nullopt;
  if (2 * (table_used_ + 1) > table_.size()) {
    resize_table(2 * table_.size());
    slot = find_slot(hash);
  }
  ++table_used_;
  EntryId id;
  if (!free_entries_.empty()) {
    id = free_entries_.back();
    free_entries_.pop_back();
  } else {
    id = static_cast<EntryId>(entries_.size());
    entries_.emplace_back();
  }
  table_[slot] = Slot{hash, id};
  ++contents_version_;
  entries_[id] = Entry{hash, 1, kNone, kNone};
  --private_used_;
  ++cached_used_;
  return id;
}

void KvBlockManager::evict_one() {
  const EntryId e = lru_head_;
  if (e == kNone) throw std::logic_error("KvBlockManager: nothing to evict");
  lru_unlink(e);
  if (offload_) offload_->store(entries_[e].hash);
  erase_slot(find_slot(entries_[e].hash));
  ++contents_version_;
  --table_used_;
  free_entries_.push_back(e);
  --cached_free_;
  ++free_uncached_;
  ++evictions_;
}

void KvBlockManager::lru_unlink(EntryId e) {
  Entry& en = entries_[e];
  if (en.prev != kNone)
    entries_[en.prev].next = en.next;
  else
    lru_head_ = en.next;
  if (en.next != kNone)
    entries_[en.next].prev = en.prev;
  else
    lru_tail_ = en.prev;
  en.prev = en.next = kNone;
}

void KvBlockManager::lru_push_back(EntryId e) {
  Entry& en = entries_[e];
  en.prev = lru_tail_;
  en.next = kNone;
  if (lru_tail_ != kNone)
    entries_[lru_tail_].next = e;
  else
    lru_head_ = e;
  lru_tail_ = e;
}

}  // namespace engramsim::sim
