// `engramsim list models|gpus|nodes|engines|scenarios`: the catalog entries of one kind, name and
// description, as an aligned table (scenarios by the path to run them with). An unknown kind is a
// command-line error (exit 2, from CLI11's validator); a missing data folder is exit 1.
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "hardware/hardware_loader.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {
namespace {

std::string catalog_folder(const std::string& kind) {
  if (kind == "models") return "models/cards";
  if (kind == "engines") return "models/engines";
  if (kind == "gpus") return "hardware/gpus";
  if (kind == "scenarios") return "scenarios";
  return "hardware/nodes";
}

int run_list(const std::string& kind) {
  const std::string folder = catalog_folder(kind);
  const std::filesystem::path dir = std::filesystem::path(data_root()) / folder;
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error("no data folder " + dir.string() + " (is ENGRAMSIM_DATA_ROOT right?)");
  const std::vector<CatalogEntry> entries = list_catalog(folder);
  if (entries.empty()) {
    std::cout << "no " << kind << " in " << dir.string() << "\n";
    return exit_code::ok;
  }
  const bool scenarios = kind == "scenarios";
  TextTable table({scenarios ? "FILE" : "NAME", "DESCRIPTION"});
  // Scenarios by the path that runs them from here: relative when here is the data root.
  std::error_code ec;
  const bool at_root = std::filesystem::equivalent(std::filesystem::current_path(ec), data_root(), ec);
  for (const CatalogEntry& e : entries)
    table.add_row({scenarios ? (at_root ? folder + "/" + std::filesystem::path(e.path).filename().string() : e.path) : e.name,
                   e.description});
  std::cout << table.render();
  return exit_code::ok;
}

}  // namespace

void add_list_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd =
      app.add_subcommand("list", "List catalog entries (models, gpus, nodes, engines) or shipped scenarios with descriptions");
  auto kind = std::make_shared<std::string>();
  cmd->add_option("kind", *kind, "What to list: models, gpus, nodes, engines or scenarios")
      ->required()
      ->check(CLI::IsMember({"models", "gpus", "nodes", "engines", "scenarios"}));
  cmd->callback([&action, kind] { action = [kind] { return run_list(*kind); }; });
}

}  // namespace engramsim::cli
