// Shared plumbing for engramsim subcommands.
//
// A subcommand file registers its options on a CLI11 subcommand and, in the subcommand's callback,
// stores the action to run. main() runs the chosen action after parsing and maps exceptions to the
// documented exit codes (docs/cli.md): ConfigError and UnitParseError -> 2, anything else -> 1.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace engramsim::cli {

using CommandAction = std::function<int()>;

void register_commands(CLI::App& app, CommandAction& action);

// Runs `body`, translating exceptions into exit codes with a one-line message on stderr.
int run_guarded(const std::function<int()>& body);

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
