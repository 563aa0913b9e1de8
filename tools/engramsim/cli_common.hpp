// Shared plumbing for engramsim subcommands.
//
// A subcommand file registers its options on a CLI11 subcommand and, in the subcommand's callback,
// stores the action to run. main() runs the chosen action after parsing and maps exceptions to the
// documented exit codes (docs/cli.md): ConfigError and UnitParseError -> 2, a refused output folder
// (planner/sweep_refusal.hpp) -> its own code (5 or 6), anything else -> 1.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/engram_tier.hpp"
#include "models/model_card.hpp"

namespace engramsim::cli {

using CommandAction = std::function<int()>;

// One range per quantity, for every command that takes it and as the scenario key of the same
// meaning reads it (scenario/schema/scenario.cpp, scenario_workload.cpp): --tp is deployment.tp, and so on.
namespace limits {
inline constexpr int kMaxTp = 4096;                           // deployment.tp
inline constexpr int kMaxJobs = 4096;                         // worker threads (0 = one per hardware thread)
inline constexpr std::int32_t kMaxAgentxSessions = 1000000;   // workload.generate.sessions
inline constexpr double kMaxAgentxSeconds = 7 * 24 * 3600.0;  // workload.duration of agentx (a week)
}  // namespace limits

void register_commands(CLI::App& app, CommandAction& action);
// "engramsim 0.1.0 (commit 1a2b3c4)", as --version prints it (main.cpp, which knows the commit).
std::string tool_version();
// "1a2b3c4" ("-dirty" appended when tracked files differed from it; "unknown" outside git).
std::string tool_commit();

// Runs `body`, translating exceptions into exit codes with a one-line message on stderr.
// `command_line` (argv as given) serves a command stopped by SIGINT/SIGTERM (RunStopped, exit 7):
// the message ends with the command that resumes it, this one with --resume added.
int run_guarded(const std::function<int()>& body, const std::vector<std::string>& command_line = {});
// `args` as one shell command line, each quoted only where the shell would split or expand it.
std::string shell_command(const std::vector<std::string>& args);

std::string engram_tier_label(const std::optional<EngramTier>& tier);  // "hbm" ... or "none"

// Refuses an output folder that cannot be one: `path` (or a folder above it) exists and is a file.
// Throws ConfigError "--out: PATH is a file, not a folder" (exit 2); `flag` names the option.
void check_output_folder(const std::string& path, const std::string& flag = "--out");
// Refuses an output file that cannot be one: `path` is a folder (or ends in '/'), or a folder above
// it exists and is a file. Throws ConfigError "FLAG: PATH is a folder; give a file name" (exit 2).
void check_output_file(const std::string& path, const std::string& flag);

// `--price-tier NAME` and `--prices FILE` of the commands that price (run, sweep, plan). Both become
// scenario overrides (`price_tier`, and `prices` as an absolute path, so a file named relative to the
// working directory is found whatever the scenario's folder), appended after the user's --set so
// the flags win; sweep results then record them in their fingerprint.
struct PriceCliArgs {
  std::string price_tier;
  std::string prices;
};
// The help texts default to the run commands' ("replacing the scenario's ..."); `report` passes its own.
void add_price_options(CLI::App* cmd, PriceCliArgs& a,
                       const std::string& tier_help = "Price tier replacing the scenario's price_tier",
                       const std::string& file_help = "Price file (docs/hardware.md) replacing the scenario's prices:");
void append_price_sets(const PriceCliArgs& a, std::vector<std::string>& set);

// The node preset a command line names, the same on every command (--node of step and footprint,
// --gpus of ask): a path or a node preset name as given; else, case-insensitively, a node preset
// named so, or the first (by name) whose GPU is that GPU or a variant of it ("h100" -> hgx-h100,
// "B200" -> hgx-b200). An unknown name is a ConfigError at `flag` with the closest GPU suggested.
std::string node_for(const std::string& gpu_or_node, const char* flag);

// Left-aligned text table with right-aligned numeric columns, for human output.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add_row(std::vector<std::string> row);
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace engramsim::cli
