#include "sim/serving/serving_config.hpp"

namespace engramsim::sim {

std::string parse_router(const ConfigNode& scalar, const RouterRegistry& registry) {
  return registry.checked_name(scalar);
}

}  // namespace engramsim::sim
