#include "sim/serving/serving_config.hpp"

namespace engramsim::sim {

std::string parse_router(const ConfigNode& scalar, const RouterRegistry& registry) {
  const std::string name = scalar.as_str();
  for (const auto& known : registry.names()) {
    if (known == name) return name;
  }
  std::string list;
  for (const auto& known : registry.names()) list += (list.empty() ? "" : ", ") + known;
  scalar.fail("unknown router '" + name + "' (known: " + list + ")");
}

}  // namespace engramsim::sim
