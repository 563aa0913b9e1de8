// A target for testing the replay itself: an input starting "escapes" throws std::logic_error (a
// defect the replay must report), anything else is refused with a ConfigError.
#include <stdexcept>

#include "core/error.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = engramsim::fuzz::as_text(data, size);
  engramsim::fuzz::refusal_is_fine([&] {
    if (text.rfind("escapes", 0) == 0) throw std::logic_error("not a ConfigError");
    throw engramsim::ConfigError({"input", 1, 1}, "", "refused");
  });
  return 0;
}
