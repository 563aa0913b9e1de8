// Fuzz target: a scenario's `sweep:` block as `engramsim sweep` reads it before any point runs:
// report and plan settings, the axes expanded into points, each point's scenario and its
// assignments as the JSON of results.jsonl, the first point parsed into typed ScenarioParams, and
// sweep.json / context.json written as a sweep writes them.
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/config_node.hpp"
#include "planner/report_data.hpp"
#include "planner/results_file.hpp"
#include "planner/sweep_spec.hpp"
#include "scenario/schema/scenario.hpp"
#include "study/planner_scenario.hpp"
#include "study/scenario_evaluator.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

namespace {

// Points past this many are the same code on more values; looking at them only slows the fuzzer.
constexpr std::size_t kPointsChecked = 64;

void prepare(const fuzz::ScratchDir& dir, const std::string& path) {
  const engramsim::study::PlannerScenario sc = engramsim::study::load_planner_scenario(path, {});
  const planner::PreparedSweep& sweep = sc.sweep;
  const std::size_t n = std::min(sweep.points.size(), kPointsChecked);
  for (std::size_t i = 0; i < n; ++i) {
    const YAML::Node point = planner::scenario_for_point(sweep.base, sweep.points[i]);
    static_cast<void>(sweep.points[i].assignments_json().dump());
    static_cast<void>(sweep.points[i].label());
    if (i == 0) scenario::parse_scenario(ConfigNode(point, path, ""));
  }
  planner::SweepManifest manifest;
  manifest.total_points = sweep.points.size();
  manifest.axes = sweep.spec.keys();
  manifest.fingerprint = sweep.fingerprint;
  planner::write_manifest(dir.path(), manifest);
  planner::write_context(dir.path(), engramsim::study::make_report_context(sc, engramsim::study::SweepInputs{}));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ScratchDir dir;
  const std::string path = dir.write("sweep.yaml", fuzz::as_text(data, size));
  fuzz::refusal_is_fine([&] { prepare(dir, path); });
  return 0;
}
