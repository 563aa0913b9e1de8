#include "sim/serving/router/router_registry.hpp"

#include "sim/serving/router/routers.hpp"

namespace engramsim::sim {

void register_builtin_routers(RouterRegistry& r) {
  r.add("round_robin", [] { return std::make_unique<RoundRobinRouter>(); });
  r.add("least_outstanding", [] { return std::make_unique<LeastOutstandingRouter>(); });
  r.add("least_kv", [] { return std::make_unique<LeastKvRouter>(); });
  r.add("session_affinity", [] { return std::make_unique<SessionAffinityRouter>(); });
  r.add("sticky_session", [] { return std::make_unique<StickySessionRouter>(); });
}

}  // namespace engramsim::sim
