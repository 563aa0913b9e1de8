// The built-in fabric backends by name (declared in fabric.hpp): the one file that knows every
// implementation, so that the interface and its implementations do not include each other.
#include <memory>
#include <string_view>

#include "sim/fabric/fabric.hpp"
#include "sim/fabric/native_fabric.hpp"
#include "sim/fabric/simgrid_fabric.hpp"

namespace engramsim::fabric {

void register_builtin_fabrics(FabricRegistry& registry) {
  registry.add("native", [](FabricTopology topology, const FabricOptions&) -> std::unique_ptr<Fabric> {
    return std::make_unique<NativeFabric>(std::move(topology));
  });
  registry.add("simgrid", [](FabricTopology topology, const FabricOptions& options) -> std::unique_ptr<Fabric> {
    return std::make_unique<SimGridFabric>(std::move(topology), options);
  });
}

std::unique_ptr<Fabric> make_fabric(std::string_view backend, FabricTopology topology, const FabricOptions& options) {
  FabricRegistry registry;
  register_builtin_fabrics(registry);
  return registry.create(backend, std::move(topology), options);
}

}  // namespace engramsim::fabric
