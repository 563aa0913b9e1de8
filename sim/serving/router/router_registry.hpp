// Routers by name; an ordinary object filled by register_builtin_routers() (no global instance).
#pragma once

#include <functional>
#include <memory>

#include "core/registry.hpp"
#include "sim/serving/router/router.hpp"

namespace engramsim::sim {

using RouterFactory = std::function<std::unique_ptr<Router>()>;

// create(name) of an unknown name throws ConfigError (field "router"); add() of a name already
// there throws std::logic_error (core/registry.hpp).
class RouterRegistry : public Registry<RouterFactory> {
 public:
  using Factory = RouterFactory;
  RouterRegistry() : Registry("router", "router") {}
};

void register_builtin_routers(RouterRegistry& registry);

}  // namespace engramsim::sim
