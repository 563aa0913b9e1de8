// A read-only view into one run while it executes, for invariant checks and tests.
//
// run_simulation() registers a probe (RunConfig::probe) as a serving observer, after the metrics
// collector, and as an engine observer, so it sees every request, step, sequence that leaves a
// replica and dispatched event. It is also handed the simulation and the deployment once the run
// is wired (before the first event) and again once the engine stops (before requests still in
// flight are collected), so it may inspect replica state (KV pools, sequences) at those points and
// from its callbacks. A probe must not change anything it sees: with or without one, a run gives
// the same results, byte for byte.
#pragma once

#include "sim/engine/simulation.hpp"
#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

class Deployment;

class RunProbe : public ServingObserver, public EventObserver {
 public:
  void on_dispatch(const Event& /*event*/) override {}
  virtual void on_run_start(const Simulation& /*sim*/, const Deployment& /*deployment*/) {}
  virtual void on_run_end(const Simulation& /*sim*/, const Deployment& /*deployment*/, const RunStats& /*stats*/) {}

 protected:
  ~RunProbe() = default;
};

}  // namespace engramsim::sim
