// Runs a sweep: evaluates points through a caller-supplied callback on a thread pool, streams each
// finished point to DIR/results.jsonl (format and canonical form: results_file.hpp), resumes after
// a crash, splits across Slurm array tasks (--shard i/N) or MPI ranks, and reports progress.
//
// The planner does not know what a point means: `evaluate` turns a SweepPoint into a result object
// or an infeasibility reason (typically: build the point's scenario with scenario_for_point, check
// the footprint, run the simulator, fill PointMetrics). `prune`, when given, is asked first and
// its reason is recorded without calling `evaluate`. An exception from either is recorded as a
// status "error" line carrying the message; the sweep goes on. Both callbacks are called
// concurrently from `jobs` threads and must be thread-safe and deterministic for the canonical-file
// guarantee to hold.
//
// Ownership of points: with --shard i/N this process runs the points with index % N == i into
// DIR/results.shard-i-of-N.jsonl (merge_shard_results combines them). Under MPI with more than one
// rank, rank r runs the points with index % size == r and streams each finished line to rank 0,
// which alone writes DIR/results.jsonl; the result is byte-identical to a single-process run.
//
// Safety: the folder's lock (planner/folder_lock.hpp) is taken before anything in it is written,
// so a second process is refused (SweepRefusal, exit_code::folder_busy) having changed nothing; a
// shard holds it only while it claims its results file, whose own flock keeps a second process off
// that shard. Without `resume`, an existing non-empty results file is an error rather than
// overwritten. With `resume`, finished lines are kept, a torn last line is cut off, and a line whose
// id does not match the point at its index (a different sweep) is an error. DIR/sweep.json records
// what the folder's results were computed from (planner/sweep_manifest.hpp); a run whose manifest
// differs is refused (SweepRefusal, exit_code::inputs_changed, naming what differs) on resume and
// whenever the folder already holds results, so results computed two ways are never mixed. A shard
// also writes its manifest as the header of its results file, which merge checks. Once the results
// file is claimed, the temporaries a killed process of this host left in DIR are removed
// (core/staged_file.hpp), so a resumed folder holds the same files as an uninterrupted one.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/folder_lock.hpp"
#include "planner/mpi_session.hpp"
#include "planner/progress.hpp"
#include "planner/results_file.hpp"
#include "planner/sweep_spec.hpp"

namespace engramsim::planner {

struct Outcome {
  PointStatus status = PointStatus::ok;
  nlohmann::json result;
  std::string reason;

  static Outcome ok(nlohmann::json result) { return {PointStatus::ok, std::move(result), {}}; }
  static Outcome infeasible(std::string reason) { return {PointStatus::infeasible, nullptr, std::move(reason)}; }
};

using EvaluateFn = std::function<Outcome(const SweepPoint&)>;
// Returns a reason to skip the point as infeasible, or nullopt to evaluate it.
using PruneFn = std::function<std::optional<std::string>(const SweepPoint&)>;

struct ShardSpec {
  int index = 0;
  int count = 1;
  // "i/N" with 0 <= i < N; throws ConfigError (field "--shard") otherwise.
  static ShardSpec parse(const std::string& text);
  bool owns(std::size_t point_index) const {
    return point_index % static_cast<std::size_t>(count) == static_cast<std::size_t>(index);
  }
};

struct SweepRunOptions {
  std::filesystem::path out_dir;
  int jobs = 1;  // worker threads; 0 = one per hardware thread
  bool resume = false;
  ShardSpec shard;
  ProgressMode progress = ProgressMode::automatic;  // automatic: bar on a terminal, lines otherwise
  std::ostream* progress_stream = nullptr;          // nullptr = std::cerr
  bool durable = true;                              // fdatasync after every batch of lines (off only for benchmarks)
  PruneFn prune;
  // When given, only the points it accepts are run by this call; the others are left without a line
  // for a later call on the same folder (with `resume`), and the run is complete when none is left.
  // A caller runs a sweep in stages this way, deciding each stage from the lines of the earlier ones.
  std::function<bool(const SweepPoint&)> select;
  std::string fingerprint;             // the scenario as expanded and the settings (sweep.json, checked)
  std::vector<InputFile> inputs;       // every file the points read, hashed (sweep.json, checked)
  ToolIdentity tool;                   // the engramsim computing them (sweep.json, checked)
  bool accept_version_change = false;  // a manifest differing only in `tool` is accepted
  bool folder_locked = false;          // the caller holds out_dir's FolderLock for the whole run
  const MpiSession* mpi = nullptr;     // distribute across ranks when non-null with size > 1
  // Asked before each point is started (from the worker threads): once true, no point is started;
  // points in flight finish and are written, so the file ends on a whole line (SIGINT/SIGTERM).
  std::function<bool()> stop;
};

struct SweepRunSummary {
  std::size_t total_points = 0;  // in the whole sweep
  std::size_t owned_points = 0;  // this shard's / the job's share (all ranks for MPI rank 0)
  std::size_t already_done = 0;  // found in the file on resume
  std::size_t evaluated = 0;     // run now, by this process (MPI rank 0: by all ranks)
  std::size_t infeasible = 0;    // among evaluated
  std::size_t errors = 0;        // among evaluated
  bool complete = false;         // every owned point has a line; the file is canonical
  bool stopped = false;          // not complete because `stop` said so; --resume finishes it
  std::filesystem::path results_file;
  double wall_seconds = 0.0;
};

SweepRunSummary run_sweep(const std::vector<SweepPoint>& points, const EvaluateFn& evaluate,
                          const SweepRunOptions& options);

// Merges DIR/results.shard-*-of-N.jsonl into DIR/results.jsonl (identical to a single-process run
// when all shards are complete), DIR being the folder `folder` owns (the caller keeps it through
// the report). The point count comes from DIR/sweep.json. Refuses (SweepRefusal) a shard still being written
// (folder_busy) and a shard whose header differs from sweep.json (inputs_changed, naming the shard and what differs; a
// tool change alone passes with `accept_version_change`). A partial merge never replaces a complete DIR/results.jsonl
// (MergeReport::written is then false).
MergeReport merge_shard_results(const FolderLock& folder, int shard_count, bool accept_version_change = false);

}  // namespace engramsim::planner
