// One invocation of a scenario file: every variant parsed and built (prepare), then run (run), then
// written (write). Preparation finishes before anything runs or is written, so bad input never
// leaves half an output directory behind. A variant that does not fit is kept with its reason and
// not run; the others still run.
//
// Output layout (write_session_outputs): without compare, DIR/summary.json, DIR/requests.csv,
// DIR/timeseries.csv and DIR/scenario.json (the resolved deployment); with compare, the same four
// files in DIR/<variant>/ and DIR/compare.json (every variant's headline metrics and its ratios to
// its baseline variant). Variants run in up to `jobs` threads; results do not depend on it. Every
// file goes through a temporary name and is checked (core/staged_file.hpp); summary.json is the
// last of a folder's files and compare.json the last of all, and both are removed before the
// others are rewritten: a folder without them is not a complete run.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/build/scenario_build.hpp"
#include "scenario/schema/scenario_document.hpp"
#include "sim/run/run_simulation.hpp"

namespace engramsim::scenario {

struct VariantOutcome {
  std::string name;  // empty without compare
  std::string description;
  std::string baseline;  // ratios against this variant; empty: none (the first, by default)
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<SetConflict> set_conflicts;  // --set arguments that change what `set` sets (run warns)
  std::optional<BuiltScenario> built;      // nullopt: does not fit
  std::string infeasible;                  // why, when it does not fit
  std::optional<sim::RunResult> result;    // after run_session
};

struct ScenarioSession {
  std::string file;
  std::string name;
  std::string description;
  bool compare = false;
  std::vector<VariantOutcome> variants;
  bool any_infeasible() const;
  const VariantOutcome* find(const std::string& name) const;
};

struct SessionOptions {
  std::vector<SetArgument> set;  // --set key.path=value, in order
  std::string calibration;       // --calibration FILE (replaces the scenario's)
  // Several --calibration files: each variant takes the one choose_calibration picks for its GPU
  // (sweep's rule), the scenario's own where none is picked. Not combined with `calibration`.
  std::vector<CalibrationCandidate> calibrations_by_gpu;
};

// Expands, parses and builds every variant, holding one variant's YAML tree at a time; each built
// variant's step model is dropped until run_session builds it again for its run.
ScenarioSession prepare_session(const ScenarioDocument& doc, const SessionOptions& options);
// Called after each variant's run, one call at a time, in the order the runs end; what it throws
// stops the session (no variant starts after it) and is rethrown by run_session.
using VariantDone = std::function<void(VariantOutcome&)>;
void run_session(ScenarioSession& session, int jobs = 1, const VariantDone& done = {});
// Drops a run's per-request records and time series (what requests.csv and timeseries.csv hold)
// and its step model, keeping its summary: with `done` writing each variant first, a session of many
// variants holds one run's records and model per thread, not all of them (docs/scenarios.md "Input
// limits"). The variant's files cannot be written after it.
void release_run_records(VariantOutcome& variant);
// Before any variant writes into DIR: removes DIR/compare.json (with compare), the session's
// completion mark, so a folder whose variants were only partly written never looks complete.
void begin_session_outputs(const ScenarioSession& session, const std::string& dir);
// One variant's four files (in DIR/<variant>/ with compare, else in DIR); nothing for a variant that
// did not run.
void write_variant_outputs(const ScenarioSession& session, const VariantOutcome& variant, const std::string& dir);
// DIR/compare.json with compare; nothing without.
void write_compare_outputs(const ScenarioSession& session, const std::string& dir);
// Every variant's files, then compare.json.
void write_session_outputs(const ScenarioSession& session, const std::string& dir);

// The files a session reads (scenario, model card, node, calibration profile, trace), resolved.
std::vector<std::string> session_input_files(const ScenarioSession& session);
// Throws ConfigError (located at `flag`) when writing `outputs` would replace one of the session's
// input files; run before the simulation so nothing is lost and no run time is wasted.
void check_outputs_spare_inputs(const ScenarioSession& session, const std::vector<std::string>& outputs,
                                const std::string& flag);
// The files write_session_outputs(session, dir) writes.
std::vector<std::string> session_output_files(const ScenarioSession& session, const std::string& dir);

// The headline numbers of a run, in the order reports show them (name, value; NaN when undefined),
// named by keys of sim/metrics/summary_metrics.hpp.
std::vector<std::pair<std::string, double>> headline_metrics(const sim::Summary& s);

// --json: without compare the summary.json object; with compare {"scenario", "variants": [{name,
// baseline, set, infeasible?, metrics?, summary?}], "ratios": {variant: {metric: ratio to its
// baseline}}}.
std::string session_json(const ScenarioSession& session);

}  // namespace engramsim::scenario
