#include "sim/fabric/fabric_topology.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace engramsim::fabric {

const char* to_string(ResourceKind k) { return kResourceKindNames.name(k); }

ResourceId FabricTopology::add_resource(std::string name, Bandwidth capacity, Time latency, ResourceKind kind) {
  if (name.empty()) throw std::invalid_argument("fabric resource: empty name");
  // Written as a negated comparison so that NaN is rejected too.
  if (!(capacity.value() > 0.0) || capacity.value() == std::numeric_limits<double>::infinity())
    throw std::invalid_argument("fabric resource " + name + ": capacity must be positive and finite");
  if (latency < Time::zero()) throw std::invalid_argument("fabric resource " + name + ": negative latency");
  if (find_resource(name)) throw std::invalid_argument("fabric resource " + name + ": duplicate name");
  const auto id = static_cast<ResourceId>(resources_.size());
  resource_index_.emplace(name, id);
  resources_.push_back(Resource{std::move(name), capacity, latency, kind});
  return id;
}

FabricTopology::LinkEnds FabricTopology::add_link(const std::string& name, Bandwidth bandwidth, Time latency,
                                                  Duplex duplex) {
  if (duplex == Duplex::half) {
    const ResourceId id = add_resource(name, bandwidth, latency, ResourceKind::half_duplex);
    return {id, id};
  }
  const ResourceId fwd = add_resource(name + ".fwd", bandwidth, latency, ResourceKind::link);
  const ResourceId bwd = add_resource(name + ".bwd", bandwidth, latency, ResourceKind::link);
  return {fwd, bwd};
}

FabricTopology::NvmeResources FabricTopology::add_nvme(const std::string& name, const NvmeParams& params) {
  if (!(params.iops > 0.0)) throw std::invalid_argument("nvme " + name + ": iops must be positive");
  if (!(params.page.value() > 0.0)) throw std::invalid_argument("nvme " + name + ": page size must be positive");
  const ResourceId bw = add_resource(name + ".bw", params.read_bandwidth, Time::zero(), ResourceKind::nvme_bandwidth);
  const ResourceId iops = add_resource(name + ".iops", Bandwidth(params.iops * params.page.value()), params.latency,
                                       ResourceKind::nvme_iops);
  return {bw, iops};
}

RouteId FabricTopology::add_route(std::string name, std::vector<ResourceId> hops) {
  if (name.empty()) throw std::invalid_argument("fabric route: empty name");
  if (hops.empty()) throw std::invalid_argument("fabric route " + name + ": no resources");
  if (find_route(name)) throw std::invalid_argument("fabric route " + name + ": duplicate name");
  Time latency;
  for (std::size_t i = 0; i < hops.size(); ++i) {
    if (hops[i] >= resources_.size())
      throw std::invalid_argument("fabric route " + name + ": unknown resource id " + std::to_string(hops[i]));
    // A flow crossing one capacity twice would need a consumption weight of 2 there, which the
    // SimGrid network model cannot express; no physical path in a node needs it.
    if (std::find(hops.begin(), hops.begin() + static_cast<std::ptrdiff_t>(i), hops[i]) !=
        hops.begin() + static_cast<std::ptrdiff_t>(i))
      throw std::invalid_argument("fabric route " + name + ": resource " + resources_[hops[i]].name + " appears twice");
    latency += resources_[hops[i]].latency;
  }
  const auto id = static_cast<RouteId>(routes_.size());
  route_index_.emplace(name, id);
  routes_.push_back(Route{std::move(name), std::move(hops), latency});
  return id;
}

std::optional<RouteId> FabricTopology::find_route(std::string_view name) const {
  const auto it = route_index_.find(name);
  if (it == route_index_.end()) return std::nullopt;
  return static_cast<RouteId>(it->second);
}

std::optional<ResourceId> FabricTopology::find_resource(std::string_view name) const {
  const auto it = resource_index_.find(name);
  if (it == resource_index_.end()) return std::nullopt;
  return static_cast<ResourceId>(it->second);
}

}  // namespace engramsim::fabric
