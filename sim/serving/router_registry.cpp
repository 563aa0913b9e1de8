#include "sim/serving/router_registry.hpp"

#include "core/error.hpp"
#include "sim/serving/routers.hpp"

namespace engramsim::sim {

void RouterRegistry::add(const std::string& name, Factory factory) { factories_[name] = std::move(factory); }

std::unique_ptr<Router> RouterRegistry::create(const std::string& name) const {
  const auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& [n, f] : factories_) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError({}, "router", "unknown router '" + name + "' (known: " + known + ")");
  }
  return it->second();
}

std::vector<std::string> RouterRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, f] : factories_) out.push_back(n);
  return out;
}

void register_builtin_routers(RouterRegistry& r) {
  r.add("round_robin", [] { return std::make_unique<RoundRobinRouter>(); });
  r.add("least_outstanding", [] { return std::make_unique<LeastOutstandingRouter>(); });
  r.add("least_kv", [] { return std::make_unique<LeastKvRouter>(); });
  r.add("session_affinity", [] { return std::make_unique<SessionAffinityRouter>(); });
  r.add("sticky_session", [] { return std::make_unique<StickySessionRouter>(); });
}

}  // namespace engramsim::sim
