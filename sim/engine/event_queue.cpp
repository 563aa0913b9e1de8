#include "sim/engine/event_queue.hpp"

#include <utility>

namespace engramsim::sim {

std::uint64_t EventQueue::push(Time time, std::int32_t priority, EventHandler* handler, std::uint64_t tag) {
  const std::uint64_t seq = next_seq_++;
  heap_.push_back(Event{EventKey{time, priority, seq}, handler, tag});
  sift_up(heap_.size() - 1);
  return seq;
}

Event EventQueue::pop() {
  Event out = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  return out;
}

// Hole-based sifting: move the displaced element once at the end instead of swapping per level.
void EventQueue::sift_up(std::size_t i) {
  Event moving = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!event_before(moving.key, heap_[parent].key)) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

void EventQueue::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  Event moving = heap_[i];
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && event_before(heap_[child + 1].key, heap_[child].key)) ++child;
    if (!event_before(heap_[child].key, moving.key)) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = moving;
}

}  // namespace engramsim::sim
