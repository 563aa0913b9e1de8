// Fuzz target: a scenario file as `engramsim validate` reads it. The text is the file; its
// `compare:` list is expanded (each variant's `set:` applied through the planner's key-path
// override) and every variant is parsed into typed ScenarioParams. `sweep:` is left to
// fuzz_sweep_spec.cpp.
#include <yaml-cpp/yaml.h>

#include "core/config_node.hpp"
#include "planner/sweep_spec.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario/schema/scenario_document.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ScratchDir dir;
  const std::string path = dir.write("scenario.yaml", fuzz::as_text(data, size));
  fuzz::refusal_is_fine([&] {
    const scenario::ScenarioDocument doc = scenario::read_scenario_document(path);
    for (const scenario::ScenarioVariant& v : scenario::expand_scenario(doc, {}))
      scenario::parse_scenario(ConfigNode(v.root, doc.file, ""));
  });
  return 0;
}
