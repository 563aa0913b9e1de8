// engramsim: calibrate, simulate and size LLM serving deployments with Engram memory tiers.
#include <iostream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "tools/engramsim/cli_common.hpp"

#ifndef ENGRAMSIM_GIT_COMMIT
#define ENGRAMSIM_GIT_COMMIT "unknown"
#endif

namespace {

// Earlier spellings of flags, still accepted: each is replaced by the flag's name (the scenario
// key with dashes) before parsing, with a warning on stderr naming the new flag. --help shows only
// the new names.
struct DeprecatedFlag {
  const char* command;
  const char* old_name;
  const char* new_name;
};

constexpr DeprecatedFlag kDeprecatedFlags[] = {
    {"step", "--zipf", "--zipf-exponent"},
    {"step", "--spec-accept", "--acceptance-length"},
    {"step", "--hbm-hot", "--hbm-cache"},
    {"step", "--dram-path", "--fetch"},
    {"calibrate", "--zipf-s", "--zipf-exponent"},
    {"footprint", "--max-batched-tokens", "--max-num-batched-tokens"},
    {"footprint", "--kv-free-fraction", "--kv-cache-free-gpu-mem-fraction"},
    {"footprint", "--share-engram", "--share-across-replicas"},
};

// The arguments with deprecated spellings replaced (also `--old=value`); only the command's own
// flags are looked at, and nothing after a bare `--`.
std::vector<std::string> replace_deprecated_flags(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() < 2) return args;
  for (std::size_t i = 2; i < args.size() && args[i] != "--"; ++i) {
    for (const DeprecatedFlag& d : kDeprecatedFlags) {
      const std::string old_name = d.old_name;
      const bool exact = args[i] == old_name;
      if (args[1] != d.command || !(exact || args[i].rfind(old_name + "=", 0) == 0)) continue;
      std::cerr << "warning: " << old_name << " is deprecated; use " << d.new_name << "\n";
      args[i] = d.new_name + args[i].substr(old_name.size());
      break;
    }
  }
  return args;
}

}  // namespace

std::string engramsim::cli::tool_version() {
  return "engramsim " + engramsim::engramsim_version() + " (commit " ENGRAMSIM_GIT_COMMIT ")";
}

int main(int argc, char** argv) {
  CLI::App app{"engramsim: discrete-event simulator and capacity planner for LLM serving with Engram memory tiers"};
  // The commit is read when the build is configured (tools/CMakeLists.txt).
  app.set_version_flag("--version", engramsim::cli::tool_version());
  app.require_subcommand(1);
  engramsim::cli::CommandAction action;
  engramsim::cli::register_commands(app, action);
  // A first word that is not an option must name a command: say so, with the list, rather than
  // CLI11's generic "a subcommand is required". `help` is read as --help.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    if (word == "help") {
      std::cout << app.help();
      return engramsim::exit_code::ok;
    }
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == word;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "error: unknown command '" << word << "' (commands: " << names << ")\n";
      return engramsim::exit_code::bad_input;
    }
  }
  std::vector<std::string> args = replace_deprecated_flags(argc, argv);
  std::vector<char*> arg_pointers;
  for (std::string& a : args) arg_pointers.push_back(a.data());
  try {
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line on stderr, as every other error (docs/cli.md), naming where --help is.
    std::string where = "engramsim";
    for (const CLI::App* sub : app.get_subcommands()) where += " " + sub->get_name();
    std::cerr << "error: " << e.what() << " (see '" << where << " --help')\n";
    return engramsim::exit_code::bad_input;
  }
  if (!action) return engramsim::exit_code::bad_input;
  return engramsim::cli::run_guarded(action);
}
