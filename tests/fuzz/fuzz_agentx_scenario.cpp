// Fuzz target: a scenario whose workload is `kind: agentx`, as `engramsim validate` reads it. The
// input is the scenario file, then optionally a line "--" and the text of `trace.jsonl`, written
// beside it (a scenario's `trace: trace.jsonl` names it). Every `compare:` variant is parsed into
// ScenarioParams (which opens the corpus and reads its first session) and its corpus read to the end
// (read_trace_through); a generated corpus (`generate:`) is drawn for its first sessions.
#include <yaml-cpp/yaml.h>

#include "core/config_node.hpp"
#include "planner/sweep_spec.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario/schema/scenario_document.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

namespace {

// The sessions drawn from a generated corpus: each can hold megabytes of hash ids.
constexpr int kGeneratedSessionsRead = 2;

void read_generated(const scenario::ScenarioParams& p) {
  const auto& agentic = p.workload.spec.agentic;
  if (!agentic || !p.workload.trace_path.empty()) return;
  auto source = agentic->sessions(p.seed);
  sim::AgenticSession s;
  for (int i = 0; i < kGeneratedSessionsRead && source->next(s); ++i) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ScratchDir dir;
  const auto [scenario, trace] = fuzz::split_once(fuzz::as_text(data, size), "\n--\n");
  const std::string path = dir.write("scenario.yaml", scenario);
  dir.write("trace.jsonl", trace);
  fuzz::refusal_is_fine([&] {
    const scenario::ScenarioDocument doc = scenario::read_scenario_document(path);
    for (const scenario::ScenarioVariant& v : scenario::expand_scenario(doc, {})) {
      const scenario::ScenarioParams p = scenario::parse_scenario(ConfigNode(v.root, doc.file, ""));
      scenario::read_trace_through(p);
      read_generated(p);
    }
  });
  return 0;
}
