// A scenario's `deployment.router:` name, checked against the router registry (ConfigError at the
// node, listing the known names). The rest of a scenario is parsed in spec/.
#pragma once

#include <string>

#include "core/config_node.hpp"
#include "sim/serving/router_registry.hpp"

namespace engramsim::sim {

std::string parse_router(const ConfigNode& scalar, const RouterRegistry& registry);

}  // namespace engramsim::sim
