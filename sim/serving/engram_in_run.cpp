#include "sim/serving/engram_in_run.hpp"

#include <stdexcept>

namespace engramsim::sim {

EngramInRun::EngramInRun(Simulation& sim, const EngramTierParams& params)
    : sim_(sim), service_(params), listeners_(static_cast<std::size_t>(params.replicas), nullptr) {}

EngramInRun::EngramInRun(Simulation& sim, const EngramTierParams& params, fabric::SharedFabric& fabric,
                         std::vector<fabric::NodeRoutes> nodes, std::vector<std::vector<fabric::GpuRef>> replicas)
    : sim_(sim),
      service_(params, EngramTierOnCluster{&fabric, this, std::move(nodes), std::move(replicas)}),
      listeners_(static_cast<std::size_t>(params.replicas), nullptr) {}

void EngramInRun::on_flow_done(const fabric::FlowCompletion& c) {
  service_.on_flow_done(c);
  reschedule();
}

bool EngramInRun::begin_step(const EngramStepInput& input, EngramStepListener& listener, EngramStepOutcome& immediate) {
  EngramStepInput in = input;
  in.start = sim_.now();
  const bool pending = service_.start_step(in, immediate);
  if (pending) listeners_.at(in.replica) = &listener;
  reschedule();
  return pending;
}

void EngramInRun::reschedule() {
  const Time t = service_.next_event_time();
  if (t == Time::max() || t >= scheduled_) return;
  scheduled_ = std::max(t, sim_.now());
  sim_.schedule_at(scheduled_, event_priority_fabric, *this, ++generation_);
}

void EngramInRun::on_event(std::uint64_t tag) {
  if (tag != generation_) return;  // superseded by an earlier wake-up
  scheduled_ = Time::max();
  done_.clear();
  service_.advance_to(sim_.now(), done_);
  for (const EngramStepOutcome& o : done_) {
    EngramStepListener* l = listeners_.at(o.replica);
    if (l == nullptr) throw std::logic_error("engram in-run: a fetch finished for a replica that is not waiting");
    listeners_[o.replica] = nullptr;
    l->on_engram_ready(o);
  }
  reschedule();
}

}  // namespace engramsim::sim
