// A slab of slots named by index, with a free list: acquire() hands out the most recently
// released slot or appends a new default-constructed one; release() returns a slot for reuse.
// Indices stay valid for the pool's life (slots are never removed), so they can be kept in queues
// and event tags. What a reused slot holds is the caller's business: acquire() does not reset it
// (the replica keeps a reused sequence's buffer capacity, the replay driver a generation counter).
// Used by the replica's sequences (replica_state.hpp) and the replay driver's pending sends
// (sim/workload/agentic_replay_driver.hpp).
#pragma once

#include <cstdint>
#include <vector>

namespace engramsim::sim {

template <class T>
class SlotPool {
 public:
  std::uint32_t acquire() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    slots_.emplace_back();
    return static_cast<std::uint32_t>(slots_.size() - 1);
  }
  // The caller must not release a slot twice or one it does not hold.
  void release(std::uint32_t i) { free_.push_back(i); }

  T& operator[](std::uint32_t i) { return slots_[i]; }
  const T& operator[](std::uint32_t i) const { return slots_[i]; }
  // Slots ever created, held or free; iteration visits all of them in index order.
  std::uint32_t size() const { return static_cast<std::uint32_t>(slots_.size()); }
  std::size_t free_count() const { return free_.size(); }
  auto begin() { return slots_.begin(); }
  auto end() { return slots_.end(); }
  auto begin() const { return slots_.begin(); }
  auto end() const { return slots_.end(); }

 private:
  std::vector<T> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace engramsim::sim
