// Fuzz target: an engine preset (models/engines/*.yaml).
#include "models/engine_loader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = engramsim::fuzz::as_text(data, size);
  engramsim::fuzz::refusal_is_fine([&] { engramsim::engine_from_yaml(text, "engine.yaml"); });
  return 0;
}
