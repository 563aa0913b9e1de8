// Sweep points evaluated by simulation: the bridge between the planner (which only knows points and
// result objects) and the simulator (which only knows scenarios).
//
// A point's scenario is scenario_for_point(base, point), parsed with the scenario file's name so
// relative data paths resolve beside it. Then:
//   - bad values (a swept tp the card cannot split, an unknown policy) are ConfigError; validate()
//     finds them for every point before a sweep writes anything, evaluate() lets them become the
//     runner's "error" lines;
//   - a deployment that does not fit (footprint: HBM, KV pool, host DRAM, drives) is pruned: the
//     point is recorded as infeasible with the footprint's reason and never simulated;
//   - otherwise the simulator runs it and the point's result is point_metrics(): the planner's
//     PointMetrics (docs/planning.md §7) plus run details under `extra`.
// Everything a result holds is a function of the point (the simulator is deterministic for a seed),
// never of timing or threads, so results.jsonl is the same for any --jobs, shard split or MPI run.
// Calibration profiles given on the command line (`--calibration`, repeatable) are applied per
// point: the one choose_calibration picks for the point's GPU replaces the file's own
// `calibration:`; points on GPUs none applies to keep the file's or none. Two profiles of the same
// rank for one GPU, or a profile no point uses, are bad input.
// Thread-safe: evaluate() may be called from many threads at once (the base is only read).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "hardware/calibration_profile.hpp"
#include "planner/plan_search.hpp"
#include "planner/point_metrics.hpp"
#include "planner/report_data.hpp"
#include "planner/sweep_runner.hpp"
#include "scenario/build/scenario_build.hpp"
#include "scenario/schema/scenario.hpp"
#include "sim/run/run_simulation.hpp"
#include "study/planner_scenario.hpp"
#include "study/rate_match.hpp"

namespace engramsim::study {

// What the points of a sweep draw on, for the report context (distinct, in first-seen order).
struct SweepInputs {
  std::vector<std::string> model_names;
  std::vector<std::string> model_paths;
  std::vector<std::string> node_names;
  std::vector<std::string> node_paths;
  std::vector<std::string> gpu_names;
  std::vector<std::string> calibration_paths;
  std::vector<std::string> engine_names;
  std::vector<std::string> engine_paths;
  std::string price_tier;     // of the first point
  scenario::ScenarioSlo slo;  // of the first point
  std::vector<scenario::WorkloadKind> workload_kinds;
  // Every file the points read, as (role, path), distinct: model card, node, GPU and engine presets,
  // calibration profile, price file, trace, lengths file. Their content hashes go into sweep.json.
  std::vector<std::pair<std::string, std::string>> files;
};

// The files of `in`, hashed, sorted by role and path (planner/sweep_manifest.hpp).
std::vector<planner::InputFile> hash_input_files(const SweepInputs& in);

// The profiles named on the command line, loaded once.
struct CalibrationOverrides {
  std::vector<CalibrationCandidate> profiles;
  // " calibration=<hash>,<hash>": the files' content hashes in sorted order ("" without any), part
  // of the results fingerprint so that --resume refuses results computed with other profiles.
  std::string fingerprint;
};

// Loads each file (ConfigError, located, on a bad profile or a missing file; a file given twice
// is refused).
CalibrationOverrides load_calibration_overrides(const std::vector<std::string>& paths);

// What a plan knows of a point before simulating it (study/pruned_grid.hpp): its GPU and engine, which
// the verdict judges its validation error by, and, for a disaggregated deployment whose requests are
// drawn before the run (plan_bound.hpp), its rate-matching bound at the plan's interactivity and what
// one planning unit costs.
struct PointBound {
  std::string gpu;
  std::string engine;
  std::optional<RateMatch> bound;  // nullopt: none (colocated, agentic, infeasible, or 0 at the target)
  planner::FleetCostInputs unit_cost;
};

class ScenarioEvaluator {
 public:
  // `file`: the scenario file as given; `base`: the scenario without its `sweep:` block.
  ScenarioEvaluator(std::string file, YAML::Node base, CalibrationOverrides calibrations = {},
                    std::size_t cdf_samples = 101);

  const std::string& file() const { return file_; }
  const YAML::Node& base() const { return base_; }
  std::size_t cdf_samples() const { return cdf_samples_; }
  const CalibrationOverrides& calibrations() const { return calibrations_; }

  // Parses a scenario tree as if it were the file (ConfigError on bad input), with the command
  // line's profiles.
  scenario::ScenarioParams parse(const YAML::Node& scenario) const;
  // Parses every point; a point that does not parse is a ConfigError naming the point. A
  // command-line profile that no point's GPU matches is a ConfigError too. The parameters are kept:
  // evaluate() and serve_command() of these points build from them, so each is parsed once; points
  // added later (refinement) are parsed when evaluated. Call before the evaluations start.
  SweepInputs validate(const std::vector<planner::SweepPoint>& points);

  // Infeasible (pruned, with the footprint's reason) or ok with to_json(point_metrics(...)).
  planner::Outcome evaluate(const planner::SweepPoint& point) const;

  // The point's bound before it is simulated (PointBound). Builds the point without running it.
  PointBound bound_before_run(const planner::SweepPoint& point, double interactivity) const;

  // The engine command line of the point with these assignments (a result line's), for
  // deployment (scenario/build/serve_command.hpp); nullopt when it does not build or has no engine.
  std::optional<std::string> serve_command(const nlohmann::json& assignments) const;

 private:
  std::string file_;
  YAML::Node base_;
  CalibrationOverrides calibrations_;
  std::size_t cdf_samples_;
  // validate()'s parameters by the point's assignments (point_key); read-only once evaluations start.
  std::map<std::string, scenario::ScenarioParams> parsed_;
  scenario::ScenarioParams params_of(const planner::SweepPoint& point) const;
};

// The planner's metrics of one run (docs/planning.md §7). The HBM footprint per GPU stacks, in this
// order: weights, engram (HBM tier), activations, reserve, engram_hot_cache (rows cached in HBM in
// front of DRAM/SSD), kv_pool (what is left at the memory-utilisation target), headroom (usable HBM
// above that target), so each bar adds up to the GPU's usable HBM. Closed loop: concurrency is the
// client count; open loop and trace replay: the mean number of requests in the system
// (Little's law: completed requests/s x mean end-to-end latency).
planner::PointMetrics point_metrics(const scenario::BuiltScenario& built, const sim::RunResult& run,
                                    std::size_t cdf_samples = 101);

// The report context of a sweep: settings from the file, the SLO as the report reads it
// (ttft_p99, tpot_p99, min_interactivity), presets, price tier, and the provenance of the figures
// behind it (catalog tags, calibration, footprint constants).
planner::ReportContext make_report_context(const PlannerScenario& scenario, const SweepInputs& inputs);

// A 16-hex fingerprint of the parts of a sweep that decide its results: the base scenario's
// fingerprint and `what` (the command and its evaluation settings).
std::string results_fingerprint(const planner::PreparedSweep& sweep, const std::string& what);

}  // namespace engramsim::study
