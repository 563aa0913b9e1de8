#include "sim/serving/kv/kv_offload_pool.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace engramsim::sim {

KvOffloadPool::KvOffloadPool(std::int64_t capacity_blocks) : capacity_(capacity_blocks) {
  if (capacity_blocks <= 0 || capacity_blocks >= static_cast<std::int64_t>(kNone))
    throw ConfigError({}, "kv_offload.blocks", "must be in [1, 2^32 - 1)");
}

bool KvOffloadPool::store(std::uint64_t hash) {
  if (const auto it = index_.find(hash); it != index_.end()) {
    unlink(it->second);
    push_back(it->second);
    return false;
  }
  std::uint32_t e;
  if (size() >= capacity_) {
    e = head_;
    unlink(e);
    index_.erase(entries_[e].hash);
    ++evictions_;
  } else {
    e = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  entries_[e].hash = hash;
  index_.emplace(hash, e);
  push_back(e);
  ++version_;
  ++writes_;
  return true;
}

void KvOffloadPool::touch(std::uint64_t hash) {
  const auto it = index_.find(hash);
  if (it == index_.end()) throw std::logic_error("KvOffloadPool: touching a block not held");
  unlink(it->second);
  push_back(it->second);
}

std::vector<std::uint64_t> KvOffloadPool::lru_order() const {
  std::vector<std::uint64_t> out;
  for (std::uint32_t e = head_; e != kNone; e = entries_[e].next) out.push_back(entries_[e].hash);
  return out;
}

void KvOffloadPool::unlink(std::uint32_t e) {
  Entry& en = entries_[e];
  if (en.prev != kNone)
    entries_[en.prev].next = en.next;
  else
    head_ = en.next;
  if (en.next != kNone)
    entries_[en.next].prev = en.prev;
  else
    tail_ = en.prev;
  en.prev = en.next = kNone;
}

void KvOffloadPool::push_back(std::uint32_t e) {
  Entry& en = entries_[e];
  en.prev = tail_;
  en.next = kNone;
  if (tail_ != kNone)
    entries_[tail_].next = e;
  else
    head_ = e;
  tail_ = e;
}

}  // namespace engramsim::sim
