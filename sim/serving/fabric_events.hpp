// A shared fabric (sim/fabric/shared_fabric.hpp) inside a simulation's event loop: one event is
// kept scheduled at the fabric's next completion (re-scheduled whenever a flow starts, superseded
// events recognised by a generation tag and ignored), and when it fires the fabric advances to that
// instant and each completion goes to its flow's owner. Fabric events run before step completions
// at the same instant (priority `fabric`), as the in-run Engram tier's own do.
//
// A disaggregated deployment's pools share one such fabric: the KV transfers between them and the
// in-run Engram tier of each pool cross the same host links and NICs.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/engine/simulation.hpp"
#include "sim/fabric/shared_fabric.hpp"

namespace engramsim::sim {

class FabricEvents final : public EventHandler {
 public:
  FabricEvents(Simulation& sim, std::unique_ptr<fabric::Fabric> fabric);
  FabricEvents(const FabricEvents&) = delete;
  FabricEvents& operator=(const FabricEvents&) = delete;

  fabric::SharedFabric& shared() { return shared_; }
  const fabric::SharedFabric& shared() const { return shared_; }
  void on_event(std::uint64_t tag) override;

 private:
  void reschedule();

  Simulation& sim_;
  fabric::SharedFabric shared_;
  Time scheduled_ = Time::max();
  std::uint64_t generation_ = 0;
};

}  // namespace engramsim::sim
