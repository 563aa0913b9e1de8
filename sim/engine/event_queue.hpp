// The pending-event set of a discrete-event simulation.
//
// Every event carries a key (time, priority, sequence). Keys are totally ordered, lexicographically:
// earlier time first; at equal times the lower priority number first; at equal time and priority
// the event scheduled first (lower sequence number) first. The sequence number is assigned by the
// queue at push time and never repeats within one queue, so the order of simultaneous events is
// fully determined by the order in which they were scheduled: a run is reproducible bit for bit.
// This is the one definition of event order in engramsim (`event_before`).
//
// An event names its target as an EventHandler pointer plus a 64-bit tag the handler interprets;
// there is no allocation per event. The queue is a binary min-heap over a vector that keeps its
// capacity, so a steady-state run pushes and pops without touching the allocator.
#pragma once

#include <cstdint>
#include <vector>

#include "core/units.hpp"

namespace engramsim::sim {

struct EventKey {
  Time time;
  std::int32_t priority = 0;  // lower runs first among events at the same time
  std::uint64_t seq = 0;      // scheduling order, assigned by the queue
};

// The total order of events: (time, priority, seq) lexicographically.
constexpr bool event_before(const EventKey& a, const EventKey& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.priority != b.priority) return a.priority < b.priority;
  return a.seq < b.seq;
}

class EventHandler {
 public:
  // Called by the simulation when the event fires; `tag` is the value given at scheduling.
  virtual void on_event(std::uint64_t tag) = 0;

 protected:
  ~EventHandler() = default;
};

struct Event {
  EventKey key;
  EventHandler* handler = nullptr;
  std::uint64_t tag = 0;
};

class EventQueue {
 public:
  // Inserts an event and returns the sequence number it was given.
  std::uint64_t push(Time time, std::int32_t priority, EventHandler* handler, std::uint64_t tag);
  // The earliest event; the queue must not be empty.
  const Event& top() const { return heap_.front(); }
  // Removes and returns the earliest event; the queue must not be empty.
  Event pop();
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void reserve(std::size_t n) { heap_.reserve(n); }
  void clear() { heap_.clear(); }

 private:
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace engramsim::sim
