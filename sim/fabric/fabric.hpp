// The node fabric: flows over shared resources with flow-level max-min fair sharing.
//
// A flow moves `size` bytes over one route of a FabricTopology. It is created at `start`, waits the
// route latency (not competing for bandwidth), then transfers at its max-min fair rate, which is
// recomputed whenever any flow starts transferring or completes. An optional per-flow rate bound
// caps it. Completion is the instant its last byte is transferred.
//
// Driving it (no actors, no threads): an external event loop calls
//   start_flow(spec)          at any time >= now(); spec.start may lie in the future,
//   next_completion_time()    the nanosecond at which the next flow completes if no other flow is
//                             started before then (Time::max() when nothing is in flight),
//   advance_to(t)             moves the fabric clock to t and returns every flow whose finish is
//                             <= t, ordered by (finish, id).
// Times are the core integer nanoseconds; the fluid model runs in exact real time inside and a
// completion is reported at the first nanosecond at or after its exact instant, so advance_to of a
// reported next_completion_time always delivers that flow.
//
// Backends, chosen by name: "native" (an event-driven solver in this process, the default) and
// "simgrid" (SimGrid 3.32's flow model in a helper process, for fidelity checks). Both implement
// the same semantics; tests hold them to 1e-6 relative agreement. See docs/fabric.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.hpp"
#include "core/units.hpp"
#include "sim/fabric/fabric_topology.hpp"

namespace engramsim::fabric {

using FlowId = std::uint64_t;

struct FlowSpec {
  RouteId route = 0;
  Bytes size;                           // >= 0 (the SimGrid backend rounds to whole bytes)
  Time start;                           // >= the fabric's now()
  std::optional<Bandwidth> rate_bound;  // per-flow cap, > 0 when set
};

struct FlowCompletion {
  FlowId id = 0;
  Time start;   // as given in the spec
  Time finish;  // first nanosecond at or after the exact completion instant
};

struct FabricOptions {
  // The engramsim-simgrid-fabric program. Empty: $ENGRAMSIM_SIMGRID_FABRIC if set, else the helper
  // built together with this library.
  std::string simgrid_helper;
  // SimGrid cannot bound one flow's rate in 3.32 (Comm::set_rate is ignored for host-to-host
  // comms), so each route gets this many private bound links; it limits how many rate-bounded
  // flows may be in flight on one route at once under the simgrid backend.
  int simgrid_bound_slots = 8;
};

class Fabric {
 public:
  virtual ~Fabric() = default;

  virtual std::string_view backend() const = 0;
  virtual const FabricTopology& topology() const = 0;
  // The time of the last advance_to (zero initially).
  virtual Time now() const = 0;
  // Flows started and not yet reported complete.
  virtual std::size_t flows_in_flight() const = 0;

  // Throws std::invalid_argument for an unknown route, a negative or non-finite size, a start
  // before now() or a non-positive bound. Ids are 0, 1, 2, ... in call order.
  virtual FlowId start_flow(const FlowSpec& spec) = 0;
  virtual Time next_completion_time() = 0;
  // Throws std::invalid_argument when t < now().
  virtual std::vector<FlowCompletion> advance_to(Time t) = 0;
};

using FabricFactory = std::function<std::unique_ptr<Fabric>(FabricTopology topology, const FabricOptions& options)>;

// Backends by name. The caller owns the registry; builtins are added by an explicit call. add() of
// a name already there throws std::logic_error (core/registry.hpp).
class FabricRegistry : public Registry<FabricFactory> {
 public:
  FabricRegistry() : Registry("fabric backend", "fabric.backend") {}
  // Throws ConfigError (field "fabric.backend") naming the known backends for an unknown name.
  std::unique_ptr<Fabric> create(std::string_view name, FabricTopology topology,
                                 const FabricOptions& options = {}) const;
};

// Adds "native" and "simgrid".
void register_builtin_fabrics(FabricRegistry& registry);

// Convenience: a registry with the builtins, then create(name, ...).
std::unique_ptr<Fabric> make_fabric(std::string_view backend, FabricTopology topology,
                                    const FabricOptions& options = {});

// Checks a spec against a topology and the fabric clock; shared by the backends.
void validate_flow_spec(const FabricTopology& topology, Time now, const FlowSpec& spec);

// Orders completions by (finish, id): the order both backends report them in.
void sort_completions(std::vector<FlowCompletion>& completions);

// The first nanosecond at or after `seconds` (a few ulps of slack absorb rounding).
Time ceil_to_ns(double seconds);

}  // namespace engramsim::fabric
