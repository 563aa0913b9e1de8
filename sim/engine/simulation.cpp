#include "sim/engine/simulation.hpp"

#include <stdexcept>

namespace engramsim::sim {

Simulation::Simulation(std::uint64_t seed) : seed_(seed) { queue_.reserve(64); }

void Simulation::schedule_at(Time when, std::int32_t priority, EventHandler& handler, std::uint64_t tag) {
  if (when < now_) {
    throw std::logic_error("event scheduled in the past: " + std::to_string(when.count_ns()) + " ns < now " +
                           std::to_string(now_.count_ns()) + " ns");
  }
  queue_.push(when, priority, &handler, tag);
}

RngStream& Simulation::rng(std::string_view name) {
  auto it = streams_.find(name);
  if (it == streams_.end()) {
    it = streams_.emplace(std::string(name), std::make_unique<RngStream>(seed_, name)).first;
  }
  return *it->second;
}

RunStats Simulation::run(Time horizon, std::uint64_t max_events) {
  RunStats stats;
  stop_requested_ = false;
  for (;;) {
    if (queue_.empty()) {
      stats.end = RunEnd::drained;
      break;
    }
    if (queue_.top().key.time > horizon) {
      stats.end = RunEnd::horizon;
      if (horizon > now_) now_ = horizon;
      break;
    }
    if (stats.events >= max_events) {
      stats.end = RunEnd::event_limit;
      break;
    }
    const Event ev = queue_.pop();
    now_ = ev.key.time;
    for (EventObserver* o : observers_) o->on_dispatch(ev);
    ++stats.events;
    ++dispatched_;
    ev.handler->on_event(ev.tag);
    if (stop_requested_) {
      stats.end = RunEnd::stopped;
      break;
    }
  }
  stats.clock = now_;
  return stats;
}

}  // namespace engramsim::sim
