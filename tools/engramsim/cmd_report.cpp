// `engramsim report DIR`: rebuild the report of a sweep or plan folder from its files alone
// (results.jsonl, sweep.json, context.json): report.html, report.md, charts/*.svg, tables/*.
// Rebuilding gives the same bytes (no timestamps). Exit codes: 0 ok; 1 I/O or a damaged results
// file; 2 bad input (no such folder or no results.jsonl).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "planner/report_data.hpp"
#include "planner/report_writer.hpp"
#include "planner/results_file.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {
namespace {

struct ReportArgs {
  std::string dir;
};

int report_command(const ReportArgs& a) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(a.dir)) throw ConfigError({a.dir, 0, 0}, "DIR", "not a folder");
  const fs::path results = planner::results_path(a.dir);
  if (!fs::is_regular_file(results))
    throw ConfigError({results.string(), 0, 0}, "DIR",
                      "no results.jsonl (for a split sweep run engramsim merge DIR --shards N first)");
  const planner::ReportData data = planner::load_results(a.dir);
  const auto files = planner::write_report(data, a.dir);
  std::cout << "wrote " << files.size() << " files from " << data.points.size() << " points\n"
            << "report: " << (fs::path(a.dir) / "report.html").string() << "\n";
  return exit_code::ok;
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("report", "Rebuild the report of a sweep or plan folder from its files");
  auto a = std::make_shared<ReportArgs>();
  cmd->add_option("dir", a->dir, "Sweep or plan output folder")->required();
  cmd->callback([&action, a] { action = [a] { return report_command(*a); }; });
}

}  // namespace engramsim::cli
