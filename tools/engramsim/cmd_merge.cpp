// `engramsim merge DIR --shards N`: combine the shard files of an N-way split sweep
// (DIR/results.shard-i-of-N.jsonl) into the canonical DIR/results.jsonl, identical to a
// single-process run once every shard is complete, and write the report when no point is missing.
// Exit codes: 0 merged and complete; 4 points are still missing (listed; the partial merge is
// written); 1 I/O; 2 bad input.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "planner/report_data.hpp"
#include "planner/report_writer.hpp"
#include "planner/results_file.hpp"
#include "planner/sweep_runner.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {
namespace {

struct MergeArgs {
  std::string dir;
  int shards = 0;
};

int merge_command(const MergeArgs& a) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(a.dir)) throw ConfigError({a.dir, 0, 0}, "DIR", "not a folder");
  if (!planner::read_manifest(a.dir))
    throw ConfigError({(fs::path(a.dir) / "sweep.json").string(), 0, 0}, "DIR",
                      "no sweep.json: not the output folder of engramsim sweep or plan");
  if (planner::find_shard_files(a.dir, a.shards).empty())
    throw ConfigError({a.dir, 0, 0}, "--shards",
                      "no results.shard-*-of-" + std::to_string(a.shards) + ".jsonl files in this folder");
  const planner::MergeReport m = planner::merge_shard_results(a.dir, a.shards);
  std::cout << "merged " << m.lines << " points into " << planner::results_path(a.dir).string() << "\n";
  if (!m.missing.empty()) {
    std::cerr << "merge incomplete: " << m.missing.size() << " points are still missing:";
    std::size_t shown = 0;
    for (std::size_t i : m.missing) {
      if (++shown > 20) {
        std::cerr << " ...";
        break;
      }
      std::cerr << " " << i;
    }
    std::cerr << " (rerun their shards with --resume, then merge again)\n";
    return exit_code::check_failed;  // the merge is not complete
  }
  planner::write_report(planner::load_results(a.dir), a.dir);
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
  cmd->callback([&action, a] { action = [a] { return merge_command(*a); }; });
}

}  // namespace engramsim::cli
