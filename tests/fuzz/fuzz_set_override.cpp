// Fuzz target: the `--set key.path=value` overrides of `engramsim run` and `engramsim sweep`. Each
// line of the input is one argument (at most 16), applied to the shipped scenarios/default.yaml
// (which has a `compare:` list) the way `run` applies them (after each variant's own `set:`), and
// the way `sweep` applies them (to the whole document, before the sweep is read).
#include <yaml-cpp/yaml.h>

#include <sstream>
#include <vector>

#include "core/config_node.hpp"
#include "core/paths.hpp"
#include "planner/sweep_spec.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario/schema/scenario_document.hpp"
#include "study/planner_scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

namespace {

constexpr std::size_t kMaxArguments = 16;

std::vector<std::string> set_arguments(const std::string& text) {
  std::vector<std::string> args;
  std::istringstream in(text);
  for (std::string line; args.size() < kMaxArguments && std::getline(in, line);) args.push_back(line);
  return args;
}

void run_with_sets(const std::string& scenario, const std::vector<std::string>& args) {
  std::vector<scenario::SetArgument> sets;
  for (const std::string& arg : args) {
    const auto [key, value] = parse_set_argument(arg);
    sets.push_back({key, value});
  }
  const scenario::ScenarioDocument doc = scenario::read_scenario_document(scenario);
  for (const scenario::ScenarioVariant& v : scenario::expand_scenario(doc, sets))
    scenario::parse_scenario(ConfigNode(v.root, doc.file, ""));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> args = set_arguments(fuzz::as_text(data, size));
  const std::string scenario = data_root() + "/scenarios/default.yaml";
  fuzz::refusal_is_fine([&] { run_with_sets(scenario, args); });
  fuzz::refusal_is_fine([&] { engramsim::study::load_planner_scenario(scenario, args); });
  return 0;
}
