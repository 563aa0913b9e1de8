// One discrete-event simulation: the clock, the pending events, named RNG streams and engine
// observers. Knows nothing about LLMs or serving.
//
// Time is the core integer-nanosecond Time; the clock only moves forward, to the time of the event
// being dispatched. Events are dispatched in `event_before` order (time, priority, sequence).
// Scheduling an event earlier than now() is a logic error (std::logic_error); scheduling at now()
// with any priority is allowed and runs after the current handler returns.
//
// RNG streams are created on first use and seeded from (seed, stream name), so each consumer of
// randomness draws the same numbers no matter which other streams exist or in which order they were
// first used. A Simulation holds no global or static state: independent simulations may run in
// parallel threads (each simulation itself is single-threaded).
//
// Lifecycle: construct -> components schedule their first events (wire) -> run() -> the owner
// finalizes its components. run() may be called again to continue past a horizon.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.hpp"
#include "core/units.hpp"
#include "sim/engine/event_queue.hpp"

namespace engramsim::sim {

// Sees every event just before its handler runs (tracing, counting, invariant checks).
class EventObserver {
 public:
  virtual void on_dispatch(const Event& event) = 0;

 protected:
  ~EventObserver() = default;
};

enum class RunEnd {
  drained,      // no events left
  horizon,      // the next event lies beyond the horizon (it stays queued)
  event_limit,  // max_events dispatched
  stopped,      // a handler called stop()
};

struct RunStats {
  std::uint64_t events = 0;  // dispatched by this call to run()
  RunEnd end = RunEnd::drained;
  Time clock;  // now() when run() returned
};

class Simulation {
 public:
  explicit Simulation(std::uint64_t seed);
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  Time now() const { return now_; }
  std::uint64_t seed() const { return seed_; }

  void schedule_at(Time when, std::int32_t priority, EventHandler& handler, std::uint64_t tag = 0);
  void schedule_after(Time delay, std::int32_t priority, EventHandler& handler, std::uint64_t tag = 0) {
    schedule_at(now_ + delay, priority, handler, tag);
  }

  // The stream named `name`; the reference stays valid for the simulation's lifetime.
  RngStream& rng(std::string_view name);

  // Observers are not owned and must outlive the run.
  void add_observer(EventObserver& observer) { observers_.push_back(&observer); }

  // Dispatches events with time <= horizon until none are left, `max_events` were dispatched or a
  // handler calls stop(). When it ends at the horizon the clock is moved to the horizon.
  RunStats run(Time horizon = Time::max(), std::uint64_t max_events = UINT64_MAX);
  // Ends the current run() after the running handler returns.
  void stop() { stop_requested_ = true; }

  std::size_t pending_events() const { return queue_.size(); }
  std::uint64_t events_dispatched() const { return dispatched_; }

 private:
  std::uint64_t seed_;
  Time now_;
  EventQueue queue_;
  std::map<std::string, std::unique_ptr<RngStream>, std::less<>> streams_;
  std::vector<EventObserver*> observers_;
  std::uint64_t dispatched_ = 0;
  bool stop_requested_ = false;
};

}  // namespace engramsim::sim
