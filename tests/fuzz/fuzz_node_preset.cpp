// Fuzz target: a node preset (hardware/nodes/*.yaml; its GPU resolves under the data root).
#include "hardware/hardware_loader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const engramsim::fuzz::ScratchDir dir;
  const std::string path = dir.write("node.yaml", engramsim::fuzz::as_text(data, size));
  engramsim::fuzz::refusal_is_fine([&] { engramsim::load_node(path); });
  return 0;
}
