// `engramsim merge DIR --shards N`: combine the shard files of an N-way split sweep
// (DIR/results.shard-i-of-N.jsonl) into the canonical DIR/results.jsonl, identical to a
// single-process run once every shard is complete, and write the report when no point is missing.
// Exit codes: 0 merged and complete; 4 points are still missing (listed; the partial merge is
// written and a report left from earlier is removed, unless DIR/results.jsonl is already complete:
// that is never replaced by a partial merge); 5 a shard was computed from other inputs than
// sweep.json records (named; nothing written); 6 a shard is still being written or another process
// owns the folder (nothing written); 1 I/O; 2 bad input.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "planner/folder_lock.hpp"
#include "planner/report_data.hpp"
#include "planner/results_file.hpp"
#include "planner/sweep_runner.hpp"
#include "report/report_writer.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {
namespace {

struct MergeArgs {
  std::string dir;
  int shards = 0;
  bool accept_version_change = false;
};

// "3 points are still missing: 1 3 5" (at most 20 listed).
std::string missing_text(const std::vector<std::size_t>& missing) {
  std::string text = std::to_string(missing.size()) + " points are still missing:";
  std::size_t shown = 0;
  for (std::size_t i : missing) {
    if (++shown > 20) return text + " ...";
    text += " " + std::to_string(i);
  }
  return text;
}

// A partial merge: say what is missing, and what happened to results.jsonl and an earlier report.
int report_incomplete(const MergeArgs& a, const planner::MergeReport& m) {
  namespace fs = std::filesystem;
  const std::string results = planner::results_path(a.dir).string();
  if (!m.written) {
    std::cerr << "merge incomplete: the " << a.shards << " shards give " << m.lines << " points and "
              << missing_text(m.missing) << "; " << results << " is complete and was not replaced (is --shards "
              << a.shards << " the count the sweep ran with?)\n";
    return exit_code::check_failed;
  }
  std::cout << "merged " << m.lines << " points into " << results << "\n";
  std::string removed;
  for (const auto& p : report::remove_report(a.dir)) removed += " " + p.filename().string();
  std::cerr << "merge incomplete: " << missing_text(m.missing)
            << " (rerun their shards with --resume, then merge again)"
            << (removed.empty() ? "" : "; the report of earlier results was removed:" + removed) << "\n";
  return exit_code::check_failed;
}

int merge_command(const MergeArgs& a) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(a.dir)) throw ConfigError({a.dir, 0, 0}, "DIR", "not a folder");
  const planner::FolderLock lock(a.dir);  // held through the report
  if (!planner::read_manifest(a.dir))
    throw ConfigError({(fs::path(a.dir) / "sweep.json").string(), 0, 0}, "DIR",
                      "no sweep.json: not the output folder of engramsim sweep or plan");
  if (planner::find_shard_files(a.dir, a.shards).empty())
    throw ConfigError({a.dir, 0, 0}, "--shards",
                      "no results.shard-*-of-" + std::to_string(a.shards) + ".jsonl files in this folder");
  const planner::MergeReport m = planner::merge_shard_results(lock, a.shards, a.accept_version_change);
  if (!m.missing.empty()) return report_incomplete(a, m);
  std::cout << "merged " << m.lines << " points into " << planner::results_path(a.dir).string() << "\n";
  report::write_report(planner::load_results(a.dir), a.dir);
  std::cout << "report: " << (fs::path(a.dir) / "report.html").string() << "\n";
  return exit_code::ok;
}

}  // namespace

void add_merge_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("merge", "Merge the shard result files of a split sweep and write the report");
  auto a = std::make_shared<MergeArgs>();
  cmd->add_option("dir", a->dir, "Sweep output folder")->required();
  cmd->add_option("--shards", a->shards, "Number of shards N the sweep was split into")
      ->required()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_flag("--accept-version-change", a->accept_version_change,
                "Merge shards computed by another engramsim version or commit than sweep.json records (inputs must "
                "still match)");
  cmd->callback([&action, a] { action = [a] { return merge_command(*a); }; });
}

}  // namespace engramsim::cli
