// Replays a RequestSource open-loop: each request is submitted at its own arrival time regardless
// of how the system keeps up. Exactly one request is held ahead (the next arrival event), so a
// trace of any length runs in bounded memory. Requests are numbered 0, 1, ... in arrival order.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/engine/simulation.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/workload/request_source.hpp"

namespace engramsim::sim {

class OpenLoopDriver final : public EventHandler {
 public:
  OpenLoopDriver(Simulation& sim, RequestSource& source, RequestSink& sink);
  // Wire: schedules the first arrival.
  void start();
  void on_event(std::uint64_t tag) override;
  std::uint64_t submitted() const { return submitted_; }

 private:
  void pull();

  Simulation& sim_;
  RequestSource& source_;
  RequestSink& sink_;
  Request pending_;
  bool has_pending_ = false;
  std::uint64_t submitted_ = 0;
};

}  // namespace engramsim::sim
