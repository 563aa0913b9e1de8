// The in-run Engram tier (sim/memory/engram_tier_service.hpp) inside a simulation's event loop.
//
// A replica with this attached starts each step by handing the step's Engram layers (windows and
// positions, from StepTimeModel::step_engram) to begin_step(); the service starts the fetch flows on
// the node fabric at once. The fabric is one more source of events: this object keeps one event
// scheduled at the service's next_event_time() (re-scheduled whenever a start moves it earlier;
// superseded events are recognised by a generation tag and ignored) and, when it fires, advances
// the service and tells each replica whose fetch finished (EngramStepListener), which then knows
// its stall and schedules its step's end. Fabric events run before step completions at the same
// instant (priority `event_priority_fabric`), so a step never starts while a finished fetch at that
// instant is still unreported.
//
// On a shared fabric (a disaggregated deployment's cluster: fabric_events.hpp drives it) this object
// owns the tier's flows: the driver hands it their completions, it passes them to the service and
// schedules the event that tells the replicas whose fetch finished.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/memory/engram_tier_service.hpp"
#include "sim/serving/event_priorities.hpp"

namespace engramsim::sim {

inline constexpr std::int32_t event_priority_fabric = event_priority::fabric;  // event_priorities.hpp

class EngramStepListener {
 public:
  // The step's fetches are done (called from a simulation event at the time they finished).
  virtual void on_engram_ready(const EngramStepOutcome& outcome) = 0;

 protected:
  ~EngramStepListener() = default;
};

class EngramInRun final : public EventHandler, public fabric::FlowOwner {
 public:
  EngramInRun(Simulation& sim, const EngramTierParams& params);
  // On a shared fabric: `nodes` and `replicas` as EngramTierOnCluster's.
  EngramInRun(Simulation& sim, const EngramTierParams& params, fabric::SharedFabric& fabric,
              std::vector<fabric::NodeRoutes> nodes, std::vector<std::vector<fabric::GpuRef>> replicas);
  EngramInRun(const EngramInRun&) = delete;
  EngramInRun& operator=(const EngramInRun&) = delete;

  // Starts a step's fetch at sim.now(). False: nothing crosses a link and `immediate` holds the
  // outcome; true: `listener` hears on_engram_ready later.
  bool begin_step(const EngramStepInput& input, EngramStepListener& listener, EngramStepOutcome& immediate);
  bool swaps_preempted_kv() const { return service_.swaps_preempted_kv(); }
  EngramTierService& service() { return service_; }
  const EngramTierService& service() const { return service_; }
  void on_event(std::uint64_t tag) override;
  void on_flow_done(const fabric::FlowCompletion& c) override;

 private:
  void reschedule();

  Simulation& sim_;
  EngramTierService service_;
  std::vector<EngramStepListener*> listeners_;  // by replica, while a fetch is in flight
  std::vector<EngramStepOutcome> done_;
  Time scheduled_ = Time::max();
  std::uint64_t generation_ = 0;
};

}  // namespace engramsim::sim
