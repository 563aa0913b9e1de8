// Fuzz target: a model card (models/cards/*.yaml).
#include "models/card_loader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = engramsim::fuzz::as_text(data, size);
  engramsim::fuzz::refusal_is_fine([&] { engramsim::model_card_from_yaml(text, "card.yaml"); });
  return 0;
}
