#include "sim/fabric/fabric.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.hpp"

namespace engramsim::fabric {

std::unique_ptr<Fabric> FabricRegistry::create(std::string_view name, FabricTopology topology,
                                               const FabricOptions& options) const {
  return at(name)(std::move(topology), options);
}

void validate_flow_spec(const FabricTopology& topology, Time now, const FlowSpec& spec) {
  if (spec.route >= topology.route_count())
    throw std::invalid_argument("fabric flow: unknown route id " + std::to_string(spec.route));
  if (!(spec.size.value() >= 0.0) || !std::isfinite(spec.size.value()))
    throw std::invalid_argument("fabric flow on " + topology.route(spec.route).name + ": size must be finite and >= 0");
  if (spec.start < now)
    throw std::invalid_argument("fabric flow on " + topology.route(spec.route).name + ": start " +
                                to_string(spec.start) + " is before now " + to_string(now));
  if (spec.rate_bound && (!(spec.rate_bound->value() > 0.0) || !std::isfinite(spec.rate_bound->value())))
    throw std::invalid_argument("fabric flow on " + topology.route(spec.route).name +
                                ": rate bound must be positive and finite");
}

void sort_completions(std::vector<FlowCompletion>& completions) {
  std::sort(completions.begin(), completions.end(), [](const FlowCompletion& a, const FlowCompletion& b) {
    return a.finish != b.finish ? a.finish < b.finish : a.id < b.id;
  });
}

Time ceil_to_ns(double seconds) {
  if (!std::isfinite(seconds)) return Time::max();
  const double ns = seconds * 1e9;
  // A completion computed a few ulps past an integer nanosecond belongs to that nanosecond.
  const double slack = std::max(1e-6, std::abs(ns) * 1e-15);
  return Time::ns(static_cast<std::int64_t>(std::ceil(ns - slack)));
}

}  // namespace engramsim::fabric
