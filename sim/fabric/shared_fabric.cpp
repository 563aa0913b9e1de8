#include "sim/fabric/shared_fabric.hpp"

#include <stdexcept>

namespace engramsim::fabric {

SharedFabric::SharedFabric(std::unique_ptr<Fabric> fabric) : fabric_(std::move(fabric)) {
  if (!fabric_) throw std::invalid_argument("shared fabric: no fabric");
}

FlowId SharedFabric::start_flow(const FlowSpec& spec, FlowOwner& owner) {
  const FlowId id = fabric_->start_flow(spec);
  owners_.emplace(id, &owner);
  changed();
  return id;
}

void SharedFabric::advance_to(Time t) {
  if (t < fabric_->now()) throw std::invalid_argument("shared fabric: time went backwards");
  for (Time next = fabric_->next_completion_time(); next <= t; next = fabric_->next_completion_time())
    for (const FlowCompletion& c : fabric_->advance_to(next)) {
      auto owner = owners_.find(c.id);
      if (owner == owners_.end()) throw std::logic_error("shared fabric: a flow completed that no owner started");
      FlowOwner& o = *owner->second;
      owners_.erase(owner);
      o.on_flow_done(c);
    }
  if (fabric_->now() < t) fabric_->advance_to(t);
  changed();
}

void SharedFabric::changed() const {
  if (on_change_) on_change_();
}

}  // namespace engramsim::fabric
