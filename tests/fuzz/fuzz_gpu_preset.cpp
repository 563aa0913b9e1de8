// Fuzz target: a GPU preset (hardware/gpus/*.yaml), loaded from a file as a path names it.
#include "hardware/hardware_loader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const engramsim::fuzz::ScratchDir dir;
  const std::string path = dir.write("gpu.yaml", engramsim::fuzz::as_text(data, size));
  engramsim::fuzz::refusal_is_fine([&] { engramsim::load_gpu(path); });
  return 0;
}
