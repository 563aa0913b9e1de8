// `engramsim list models|gpus|nodes`: the catalog entries of one kind, name and description, as an
// aligned table. An unknown kind is a command-line error (exit 2, from CLI11's validator).
#include <iostream>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "hardware/hardware_loader.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {
namespace {

std::string catalog_folder(const std::string& kind) {
  if (kind == "models") return "models/cards";
  if (kind == "gpus") return "hardware/gpus";
  return "hardware/nodes";
}

int run_list(const std::string& kind) {
  const std::string folder = catalog_folder(kind);
  const std::vector<CatalogEntry> entries = list_catalog(folder);
  if (entries.empty()) {
    std::cout << "no " << kind << " in " << data_root() << "/" << folder << "\n";
    return exit_code::ok;
  }
  TextTable table({"NAME", "DESCRIPTION"});
  for (const CatalogEntry& e : entries) table.add_row({e.name, e.description});
  std::cout << table.render();
  return exit_code::ok;
}

}  // namespace

void add_list_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("list", "List catalog entries (models, gpus or nodes) with descriptions");
  auto kind = std::make_shared<std::string>();
  cmd->add_option("kind", *kind, "What to list: models, gpus or nodes")
      ->required()
      ->check(CLI::IsMember({"models", "gpus", "nodes"}));
  cmd->callback([&action, kind] { action = [kind] { return run_list(*kind); }; });
}

}  // namespace engramsim::cli
