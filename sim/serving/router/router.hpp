// Routing of arriving requests across the replicas of a deployment.
//
// The router sees a load snapshot per replica (filled by the deployment at each arrival) and the
// request, and returns the replica index. Routers may keep state (round-robin position, session
// table) but must be deterministic: ties always go to the lowest index.
//
// Built-in names (router_registry): round_robin, least_outstanding, least_kv, session_affinity,
// sticky_session.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "sim/serving/request.hpp"

namespace engramsim::sim {

struct ReplicaLoad {
  std::int64_t outstanding = 0;  // requests routed here and not yet finished
  std::int64_t waiting = 0;      // of those, not yet admitted (queued)
  double kv_usage = 0.0;         // used KV blocks / pool blocks, in [0, 1]
};

class Router {
 public:
  virtual ~Router() = default;
  virtual const char* name() const = 0;
  // Returns an index into `loads` (never empty).
  virtual std::size_t route(const Request& request, std::span<const ReplicaLoad> loads) = 0;
  // Told when a request routed earlier finishes (session routers may forget it).
  virtual void on_finished(std::uint64_t /*session*/, std::size_t /*replica*/) {}
};

}  // namespace engramsim::sim
