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

std::string engramsim::cli::tool_version() {
  return "engramsim " + engramsim::engramsim_version() + " (commit " ENGRAMSIM_GIT_COMMIT ")";
}

std::string engramsim::cli::tool_commit() { return ENGRAMSIM_GIT_COMMIT; }

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
  try {
    app.parse(argc, argv);
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
  return engramsim::cli::run_guarded(action, std::vector<std::string>(argv, argv + argc));
}
