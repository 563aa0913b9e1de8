#include "sim/workload/open_loop_driver.hpp"

#include <stdexcept>

#include "sim/serving/event_priorities.hpp"

namespace engramsim::sim {

OpenLoopDriver::OpenLoopDriver(Simulation& sim, RequestSource& source, RequestSink& sink)
    : sim_(sim), source_(source), sink_(sink) {}

void OpenLoopDriver::start() { pull(); }

void OpenLoopDriver::pull() {
  has_pending_ = source_.next(pending_);
  if (!has_pending_) return;
  if (pending_.arrival < sim_.now()) throw std::logic_error("request source went back in time");
  sim_.schedule_at(pending_.arrival, event_priority::arrival, *this, 0);
}

void OpenLoopDriver::on_event(std::uint64_t) {
  Request r = std::move(pending_);
  pending_ = Request{};
  r.id = submitted_++;
  r.arrival = sim_.now();
  sink_.submit(std::move(r));
  pull();
}

}  // namespace engramsim::sim
