// One fabric that several parts of a run start flows on, each completion going back to the part
// that started the flow: the in-run Engram tier of each pool and the KV transfers of a
// disaggregated deployment cross the same host links and NICs, so they must compete on one fabric
// rather than each on its own copy of the links.
//
// Owners start flows with start_flow(spec, owner). advance_to(t) delivers every completion at or
// before t to its flow's owner, one completion instant at a time in (finish, id) order, so an owner
// told of a completion may start flows at that instant; then it moves the clock to t. Whoever drives
// the fabric from an event loop (sim/serving/fabric_events.hpp) hears of every change through
// `on_change`, to wake up at the next completion.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <unordered_map>

#include "sim/fabric/fabric.hpp"

namespace engramsim::fabric {

class FlowOwner {
 public:
  // A flow this owner started has completed (called from SharedFabric::advance_to).
  virtual void on_flow_done(const FlowCompletion& completion) = 0;

 protected:
  ~FlowOwner() = default;
};

class SharedFabric {
 public:
  explicit SharedFabric(std::unique_ptr<Fabric> fabric);
  SharedFabric(const SharedFabric&) = delete;
  SharedFabric& operator=(const SharedFabric&) = delete;

  // Called after every start_flow and advance_to (the driver's wake-up); none by default.
  void set_on_change(std::function<void()> on_change) { on_change_ = std::move(on_change); }

  // As Fabric::start_flow; `owner` hears of the completion.
  FlowId start_flow(const FlowSpec& spec, FlowOwner& owner);
  Time next_completion_time() { return fabric_->next_completion_time(); }
  // Throws std::invalid_argument when t < now().
  void advance_to(Time t);

  const Fabric& fabric() const { return *fabric_; }
  const FabricTopology& topology() const { return fabric_->topology(); }
  Time now() const { return fabric_->now(); }
  std::size_t flows_in_flight() const { return fabric_->flows_in_flight(); }

 private:
  void changed() const;

  std::unique_ptr<Fabric> fabric_;
  std::unordered_map<FlowId, FlowOwner*> owners_;
  std::function<void()> on_change_;
};

}  // namespace engramsim::fabric
