// Options and steps that `engramsim sweep` and `engramsim plan` share: where results go, how many
// threads, resume, shard, progress, --set; the MPI session; and the sweep run itself.
//
// Under mpirun/srun every rank runs the command; MpiSession::start_if_launched() makes them one
// job, the sweep runner splits the points, and only rank 0 (the writer) writes results, context
// and report. Header-only: the CLI compiles only cmd_*.cpp files as subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/stop_signal.hpp"
#include "planner/folder_lock.hpp"
#include "planner/mpi_session.hpp"
#include "planner/report_data.hpp"
#include "planner/results_file.hpp"
#include "planner/sweep_runner.hpp"
#include "study/scenario_evaluator.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {

struct SweepCliArgs {
  std::string scenario;
  std::string out;
  int jobs = 0;
  bool resume = false;
  std::string shard;
  std::vector<std::string> set;
  std::vector<std::string> calibrations;
  std::string progress = "auto";
  bool json = false;  // the summary (sweep) or ranking (plan) as one JSON object on stdout
  PriceCliArgs price;
  int refine_rounds = 8;               // sweep and frontier plans: rounds of refinement near the target interactivity
  bool accept_version_change = false;  // results of another engramsim version may join the folder's
  bool no_prune = false;  // plan: simulate every candidate, even those whose bound cannot beat one simulated
};

// The validation accuracy of each GPU and engine the run used (the "validation accuracy" lines
// make_report_context adds to the assumptions) and the note on those no case covers.
inline void print_validation_accuracy(const planner::ReportContext& ctx, std::ostream& out) {
  for (const auto& a : ctx.assumptions)
    if (a.figure.rfind("validation accuracy", 0) == 0) out << a.figure << ": " << a.value << "\n";
  for (const auto& n : ctx.notes)
    if (n.rfind("No case of the validation set", 0) == 0 || n.rfind("The validation record", 0) == 0) out << n << "\n";
}

// Writes DIR/serve-command.sh, the engine command line of `config` at its point nearest
// `interactivity` (the recommendation), within its KV wall unless the recommendation lies past it
// (`past_wall`), and returns its path; empty when there is none.
inline std::string write_serve_command(const study::ScenarioEvaluator& evaluator, const planner::ReportData& data,
                                       const std::string& config, double interactivity, const std::string& out,
                                       bool past_wall) {
  // The point nearest the target within the configuration's KV wall; past it only when the
  // recommendation is, or when no point is within.
  const planner::KvWallAnalysis walls = planner::kv_walls(data);
  const planner::ReportPoint* best = nullptr;
  for (const bool within : {!past_wall, false}) {
    for (const auto& p : data.points)
      if (p.config == config && p.status == planner::PointStatus::ok && (!within || !walls.past_wall(p.index)) &&
          (best == nullptr ||
           std::abs(p.metrics.interactivity - interactivity) < std::abs(best->metrics.interactivity - interactivity)))
        best = &p;
    if (best != nullptr) break;
  }
  if (best == nullptr) return "";
  const std::optional<std::string> cmd = evaluator.serve_command(best->assignments);
  if (!cmd) return "";
  const std::filesystem::path file = std::filesystem::path(out) / "serve-command.sh";
  planner::write_file_atomically(file, "#!/bin/sh\n# " + config + ", the recommended configuration, at " +
                                           std::to_string(static_cast<long long>(std::lround(best->concurrency))) +
                                           " clients: the engine settings engramsim models, the rest left at the "
                                           "engine's defaults.\n# Replace the model name with the checkpoint's path "
                                           "or hub id (docs/planning.md \"Deployable output\").\n" +
                                           *cmd);
  return file.string();
}

// `engramsim sweep` with parsed arguments (cmd_sweep.cpp); `ask` runs the scenario it writes with it.
int sweep_command(const SweepCliArgs& a);

inline void add_sweep_cli_options(CLI::App* cmd, SweepCliArgs& a) {
  cmd->add_option("scenario", a.scenario, "Scenario YAML file with a sweep: block")->required();
  cmd->add_option("--out", a.out, "Output folder (results.jsonl, sweep.json, context.json, report)")->required();
  cmd->add_option("--jobs", a.jobs, "Worker threads (0 = one per hardware thread)")
      ->check(CLI::Range(0, limits::kMaxJobs));
  cmd->add_flag("--resume", a.resume, "Keep the finished points of an interrupted run and do the rest");
  cmd->add_flag("--accept-version-change", a.accept_version_change,
                "Let --resume or --shard add to results computed by another engramsim version or commit (inputs must "
                "still match)");
  cmd->add_option("--shard", a.shard, "Run only the points with index % N == i (i/N), into results.shard-i-of-N.jsonl");
  cmd->add_option("--set", a.set, "Override a scenario key before expanding: key.path=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option(
         "--calibration", a.calibrations,
         "Calibration profile applied to the points on its GPU, replacing the scenario's (repeatable: one per GPU)")
      ->allow_extra_args(false);
  cmd->add_option("--progress", a.progress, "Progress display: auto (bar on a terminal), bar, lines, none")
      ->check(CLI::IsMember(planner::kProgressModeNames.names()));
  cmd->add_flag("--json", a.json, "Print the outcome as one JSON object on stdout instead of the text summary");
  add_price_options(cmd, a.price);
  cmd->add_option("--refine-rounds", a.refine_rounds,
                  "Rounds of concurrency refinement near the target interactivity (0 = none)")
      ->check(CLI::Range(0, 20));
}

inline planner::ProgressMode progress_mode(const std::string& s) {
  return planner::kProgressModeNames.parse(s).value_or(planner::ProgressMode::automatic);
}

// `fingerprint`: results_fingerprint of the scenario and the command's settings; `inputs`: what
// the points read (hashed here, with this engramsim's version and commit, for sweep.json).
inline planner::SweepRunOptions sweep_run_options(const SweepCliArgs& a, const planner::MpiSession* mpi,
                                                  std::string fingerprint, const study::SweepInputs& inputs) {
  planner::SweepRunOptions o;
  o.out_dir = a.out;
  o.jobs = a.jobs;
  o.resume = a.resume;
  if (!a.shard.empty()) o.shard = planner::ShardSpec::parse(a.shard);
  if (mpi != nullptr && o.shard.count > 1)
    throw ConfigError({"--shard", 0, 0}, "--shard",
                      "cannot be combined with an MPI launch (MPI splits the points itself)");
  o.progress = progress_mode(a.progress);
  o.fingerprint = std::move(fingerprint);
  o.inputs = study::hash_input_files(inputs);
  o.tool = {engramsim_version(), tool_commit()};
  o.accept_version_change = a.accept_version_change;
  o.mpi = mpi;
  o.stop = [] { return stop_requested(); };
  return o;
}

// After run_sweep: a run that SIGINT/SIGTERM stopped at a point boundary ends the command
// (RunStopped: exit 7, with the command that resumes it).
inline void throw_if_stopped(const planner::SweepRunSummary& s, const std::string& what) {
  if (!s.stopped) return;
  throw RunStopped(what + " stopped at a point boundary (" + std::to_string(s.already_done + s.evaluated) + " of " +
                   std::to_string(s.owned_points) + " points are in " + s.results_file.string() + ")");
}

// The output folder's lock, held by a single-process run from before its first write to its last
// (refinement and report included), so that a second process is refused having changed nothing.
// Shards and MPI runs get none here: run_sweep takes what they need (an MPI run's rank 0 calls
// this again once the ranks are done, with o.mpi cleared).
inline std::unique_ptr<planner::FolderLock> own_output_folder(planner::SweepRunOptions& o) {
  if (o.shard.count > 1 || o.mpi != nullptr || o.folder_locked) return nullptr;
  auto lock = std::make_unique<planner::FolderLock>(o.out_dir);
  o.folder_locked = true;
  return lock;
}

// The counts of print_sweep_summary as JSON fields.
inline nlohmann::json sweep_summary_json(const planner::SweepRunSummary& s) {
  return {{"points", s.owned_points},       {"already_done", s.already_done}, {"evaluated", s.evaluated},
          {"infeasible_now", s.infeasible}, {"errors_now", s.errors},         {"complete", s.complete},
          {"wall_seconds", s.wall_seconds}};
}

// --json of a shard run: the counts and which shard wrote which file.
inline void print_shard_json(const planner::SweepRunSummary& s, const planner::ShardSpec& shard, std::ostream& os) {
  nlohmann::json j = sweep_summary_json(s);
  j["shard"] = {{"index", shard.index}, {"count", shard.count}, {"results", s.results_file.string()}};
  os << j.dump(2) << "\n";
}

inline void print_sweep_summary(const planner::SweepRunSummary& s, std::ostream& os) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%zu points: %zu already done, %zu evaluated now (%zu infeasible, %zu errors) in %.1f s",
                s.owned_points, s.already_done, s.evaluated, s.infeasible, s.errors, s.wall_seconds);
  os << buf << "\n";
}

// Every point infeasible: the answer first (which term keeps each deployment out), the counts
// after it, and exit 3 as `footprint` exits, not the SLO miss's 4.
inline int report_nothing_fits(const std::string& why, const planner::SweepRunSummary& s, bool json) {
  if (json) {
    nlohmann::json j = sweep_summary_json(s);
    j["nothing_fits"] = why;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << why << "\n\n";
    print_sweep_summary(s, std::cout);
  }
  return exit_code::infeasible;
}

}  // namespace engramsim::cli
