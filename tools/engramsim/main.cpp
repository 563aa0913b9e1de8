// engramsim: calibrate, simulate and size LLM serving deployments with Engram memory tiers.
#include <iostream>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "tools/engramsim/cli_common.hpp"

int main(int argc, char** argv) {
  CLI::App app{"engramsim: discrete-event simulator and capacity planner for LLM serving with Engram memory tiers"};
  app.set_version_flag("--version", engramsim::engramsim_version());
  app.require_subcommand(1);
  engramsim::cli::CommandAction action;
  engramsim::cli::register_commands(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return engramsim::exit_code::bad_input;
  }
  if (!action) return engramsim::exit_code::bad_input;
  return engramsim::cli::run_guarded(action);
}
