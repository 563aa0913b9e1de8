// Golden summaries: the stored results of a scenario (scenarios/golden/NAME.json) that its golden
// test compares a fresh run against.
//
// A golden file records the --set overrides the test applies (shipped scenarios may be cut down for
// test speed; the reason goes in `note`), and per variant either the reason it does not fit or a
// fixed list of summary metrics. Tolerances (|actual - expected| <= abs + rel x |expected|):
//   request and token counts (num_requests, completed, unfinished, rejected, total_input_tokens,
//     total_output_tokens): exact. They follow from the workload and conservation alone;
//   shares in [0, 1] (mean_kv_usage, gpu_busy_fraction, engram_stall_share, prefix_cache_hit_rate,
//     goodput_fraction): abs 0.005;
//   step and preemption counts: rel 1 % + abs 2;
//   everything else (duration, throughputs, latency statistics in ms, interactivity, tokens per
//     dollar): rel 1 % + abs 1e-3.
// A run is deterministic for a seed, so on one machine the match is exact; the tolerances absorb
// libm and compiler differences across platforms while catching any real change of the models
// (which moves these numbers by far more than 1 %). After an intended change, regenerate:
//   ENGRAMSIM_UPDATE_GOLDEN=1 ctest --test-dir build -R test_scenario_golden
// or `engramsim run scenarios/NAME.yaml --set ... --write-golden scenarios/golden/NAME.json`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/field_table.hpp"
#include "scenario/build/scenario_session.hpp"

namespace engramsim::scenario {

struct GoldenVariant {
  std::string name;
  std::string infeasible;                               // non-empty: the variant does not fit, and must still not fit
  std::vector<std::pair<std::string, double>> metrics;  // NaN: undefined (null in the file)
};

struct Golden {
  std::string scenario;
  std::string note;              // why the test overrides what it does
  std::vector<SetArgument> set;  // overrides the test applies before running
  std::vector<GoldenVariant> variants;
};

// The metrics a golden stores, from a run's summary, in file order (keys of sim/metrics/summary_metrics.hpp).
std::vector<std::pair<std::string, double>> golden_metrics(const sim::Summary& s);
Golden golden_from_session(const ScenarioSession& session, std::vector<SetArgument> set, std::string note);

// The keys of a golden file, declared once: read_golden reads through it (JSON is YAML, so errors
// name file:line:col and the key) and docs/scenarios.md shows its table, each metric with its
// tolerance.
const FieldTable<Golden>& golden_schema();

// Strict reader (ConfigError on a malformed file) and deterministic writer.
Golden read_golden(const std::string& path);
void write_golden(const Golden& golden, const std::string& path);

// Every difference outside the tolerances, one line each ("tp2-dram: tput_per_gpu 1234.5 vs golden
// 1300.0 (rel 5.0 %, allowed 1.0 % + 0.001)"); empty when the run matches.
std::vector<std::string> compare_with_golden(const Golden& expected, const Golden& actual);

}  // namespace engramsim::scenario
