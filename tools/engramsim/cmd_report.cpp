// `engramsim report DIR`: rebuild the report of a sweep or plan folder from its files alone
// (results.jsonl, sweep.json, context.json): report.html, report.md, charts/*.svg, tables/*.
// Rebuilding gives the same bytes (no timestamps).
//
// `engramsim report DIR --price-tier T [--prices FILE] [--out OUT]` re-prices a finished sweep
// without re-simulating (planner/reprice.hpp): every point's GPU-hour price becomes its node's at
// tier T, from the catalog or from FILE, and the re-priced report, verdict first, goes to OUT
// (default DIR/priced-T). DIR is read only. A plan folder is refused: its fleet tables were sized
// at the old prices. Exit codes: 0 ok; 1 I/O or a damaged results file; 2 bad input (no such
// folder, no results.jsonl, an unknown tier, node or price, OUT = DIR, a plan folder).
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "hardware/hardware_loader.hpp"
#include "hardware/price_file.hpp"
#include "planner/report_data.hpp"
#include "planner/reprice.hpp"
#include "planner/results_file.hpp"
#include "report/report_writer.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {
namespace {

namespace fs = std::filesystem;

struct ReportArgs {
  std::string dir;
  PriceCliArgs price;
  std::string out;
  bool repricing() const { return !price.price_tier.empty() || !price.prices.empty(); }
};

// The tier a re-pricing uses: --price-tier, else the results' own tier, else the default.
PriceTier tier_of(const ReportArgs& a, const planner::ReportContext& c) {
  const std::string name = !a.price.price_tier.empty() ? a.price.price_tier : c.price_tier;
  if (name.empty()) return PriceTier::hyperscaler;
  const auto t = price_tier_from_string(name);
  if (!t) throw ConfigError({a.dir, 0, 0}, "price_tier", "the results name an unknown price tier \"" + name + "\"");
  return *t;
}

// The GPU-hour price of a node's GPU at `tier`: the catalog's, or the price file's for that GPU.
planner::GpuHourPrice price_lookup(PriceTier tier, const std::optional<PriceFile>& file) {
  return [tier, file](const std::string& node_name) {
    NodeSpec node;
    try {
      node = load_node(node_name);
    } catch (const ConfigError& e) {
      throw ConfigError({node_name, 0, 0}, "node",
                        "the results ran on this node, and re-pricing reads its preset: " + std::string(e.what()));
    }
    if (file) node = apply_price_file(*file, std::move(node), tier);
    return gpu_hour_price(node.gpu_hour, tier).value();
  };
}

// A plan's extra tables (fleets, load plans) were sized at the run's prices; only the host-memory
// table, which no price enters, may be re-priced around.
void refuse_plan_folder(const ReportArgs& a, const planner::ReportData& d) {
  for (const auto& t : d.context.extra_tables)
    if (t.name != "host_memory")
      throw ConfigError({a.dir, 0, 0}, "--price-tier",
                        "a plan folder (its table \"" + t.name +
                            "\" was sized at the run's prices): rerun engramsim plan with --price-tier or --prices");
}

// The folder a re-priced report goes to; never the results' own folder.
fs::path reprice_out(const ReportArgs& a, PriceTier tier) {
  const fs::path out = a.out.empty() ? fs::path(a.dir) / (std::string("priced-") + to_string(tier)) : fs::path(a.out);
  if (fs::weakly_canonical(out) == fs::weakly_canonical(a.dir))
    throw ConfigError({a.out, 0, 0}, "--out", "the results' own folder: its report must stay at the run's prices");
  return out;
}

// The single node a folder's context lists, for results that do not name theirs.
std::optional<std::string> only_preset(const planner::ReportContext& c) {
  if (c.presets.size() != 1) return std::nullopt;
  return c.presets.front();
}

int reprice_command(const ReportArgs& a, planner::ReportData data) {
  refuse_plan_folder(a, data);
  const PriceTier tier = tier_of(a, data.context);
  const std::optional<PriceFile> file =
      a.price.prices.empty() ? std::nullopt : std::optional<PriceFile>(load_price_file(a.price.prices));
  const fs::path out = reprice_out(a, tier);
  const std::optional<std::string> fallback = only_preset(data.context);
  data = planner::reprice(std::move(data), price_lookup(tier, file), to_string(tier), a.price.prices, fallback);
  const auto files = report::write_report(data, out);
  std::cout << planner::recommend(data).text << "\n\n"
            << "re-priced " << data.points.size() << " points at " << to_string(tier)
            << (file ? " prices of " + a.price.prices : std::string(" catalog prices"))
            << " (nothing re-simulated); wrote " << files.size() << " files\nreport: " << (out / "report.html").string()
            << "\n";
  return exit_code::ok;
}

int report_command(const ReportArgs& a) {
  if (!fs::is_directory(a.dir)) throw ConfigError({a.dir, 0, 0}, "DIR", "not a folder");
  const fs::path results = planner::results_path(a.dir);
  if (!fs::is_regular_file(results))
    throw ConfigError({results.string(), 0, 0}, "DIR",
                      "no results.jsonl (for a split sweep run engramsim merge DIR --shards N first)");
  planner::ReportData data = planner::load_results(a.dir);
  if (a.repricing()) return reprice_command(a, std::move(data));
  if (!a.out.empty()) throw ConfigError({a.out, 0, 0}, "--out", "only with --price-tier or --prices");
  const auto files = report::write_report(data, a.dir);
  std::cout << "wrote " << files.size() << " files from " << data.points.size() << " points\n"
            << "report: " << (fs::path(a.dir) / "report.html").string() << "\n";
  return exit_code::ok;
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("report", "Rebuild the report of a sweep or plan folder from its files");
  auto a = std::make_shared<ReportArgs>();
  cmd->add_option("dir", a->dir, "Sweep or plan output folder")->required();
  add_price_options(cmd, a->price, "Re-price every point at this tier, nothing re-simulated",
                    "Re-price every point with this price file (docs/hardware.md), nothing re-simulated");
  cmd->add_option("--out", a->out, "Folder of a re-priced report (default DIR/priced-TIER)");
  cmd->callback([&action, a] { action = [a] { return report_command(*a); }; });
}

}  // namespace engramsim::cli
