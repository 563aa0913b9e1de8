#include "sim/serving/fabric_events.hpp"

#include <algorithm>

#include "sim/serving/event_priorities.hpp"

namespace engramsim::sim {

FabricEvents::FabricEvents(Simulation& sim, std::unique_ptr<fabric::Fabric> fabric)
    : sim_(sim), shared_(std::move(fabric)) {
  shared_.set_on_change([this] { reschedule(); });
}

void FabricEvents::reschedule() {
  const Time t = shared_.next_completion_time();
  if (t == Time::max() || t >= scheduled_) return;
  scheduled_ = std::max(t, sim_.now());
  sim_.schedule_at(scheduled_, event_priority::fabric, *this, ++generation_);
}

void FabricEvents::on_event(std::uint64_t tag) {
  if (tag != generation_) return;  // superseded by an earlier wake-up
  scheduled_ = Time::max();
  shared_.advance_to(sim_.now());  // reschedules through on_change
}

}  // namespace engramsim::sim
