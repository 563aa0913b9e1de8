// `engramsim list models|gpus|nodes|engines|scenarios`: the catalog entries of one kind, name and
// description, as an aligned table (scenarios by the path to run them with); with --json, a JSON
// array of {name, path, description} objects on stdout. An unknown kind is a
// command-line error (exit 2, from CLI11's validator); a missing data folder is exit 1.
#include <nlohmann/json.hpp>

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

struct ListArgs {
  std::string kind;
  bool json = false;
};

void print_json(const std::vector<CatalogEntry>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const CatalogEntry& e : entries)
    out.push_back({{"name", e.name}, {"path", e.path}, {"description", e.description}});
  std::cout << out.dump(2) << "\n";
}

int run_list(const ListArgs& a) {
  const std::string& kind = a.kind;
  const std::string folder = catalog_folder(kind);
  const std::filesystem::path dir = std::filesystem::path(data_root()) / folder;
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error("no data folder " + dir.string() + " (is ENGRAMSIM_DATA_ROOT right?)");
  const std::vector<CatalogEntry> entries = list_catalog(folder);
  if (a.json) {
    print_json(entries);
    return exit_code::ok;
  }
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
    table.add_row(
        {scenarios ? (at_root ? folder + "/" + std::filesystem::path(e.path).filename().string() : e.path) : e.name,
         e.description});
  std::cout << table.render();
  return exit_code::ok;
}

}  // namespace

void add_list_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand(
      "list", "List catalog entries (models, gpus, nodes, engines) or shipped scenarios with descriptions");
  auto a = std::make_shared<ListArgs>();
  cmd->add_flag("--json", a->json, "Print a JSON array of {name, path, description} instead of the table");
  cmd->add_option("kind", a->kind, "What to list: models, gpus, nodes, engines or scenarios")
      ->required()
      ->check(CLI::IsMember({"models", "gpus", "nodes", "engines", "scenarios"}));
  cmd->callback([&action, a] { action = [a] { return run_list(*a); }; });
}

}  // namespace engramsim::cli
