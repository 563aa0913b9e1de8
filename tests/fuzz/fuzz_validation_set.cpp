// Fuzz target: a validation-case file (scenarios/validation/cases.yaml); the scenario files its
// cases name resolve in the shipped validation folder.
#include "core/paths.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "validation/validation_case.hpp"

using namespace engramsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::as_text(data, size);
  const std::string folder = data_root() + "/scenarios/validation";
  fuzz::refusal_is_fine([&] { validation::validation_set_from_yaml(text, "cases.yaml", folder); });
  return 0;
}
