#include "hardware/price_file.hpp"

#include <cmath>

#include "core/config_node.hpp"
#include "hardware/hardware_loader.hpp"

namespace engramsim {
namespace {

const char* const kTiers[] = {"hyperscaler", "neocloud", "rental"};

// Where `key` itself (not its value) stands in the map `n`.
SourceLocation key_location(const ConfigNode& n, const std::string& key) {
  for (const auto& kv : n.raw()) {
    if (kv.first.Scalar() != key) continue;
    const YAML::Mark m = kv.first.Mark();
    if (!m.is_null()) return {n.file(), m.line + 1, m.column + 1};
  }
  return n.location();
}

std::string path_of(const ConfigNode& n, const std::string& key) {
  return n.path().empty() ? key : n.path() + "." + key;
}

void expect_map(const ConfigNode& n) {
  if (!n.is_map()) n.fail("expected a map");
}

std::string known_tiers() { return "hyperscaler, neocloud, rental"; }

MoneyRate read_price(const ConfigNode& c) {
  const MoneyRate v = c.as_money_rate();
  if (!std::isfinite(v.value())) c.fail("must be a finite price like \"1.73USD/h\"");
  if (!(v.value() > 0.0)) c.fail("must be greater than zero (all-in USD per GPU-hour)");
  return v;
}

PriceFileEntry read_entry(const ConfigNode& n) {
  expect_map(n);
  PriceFileEntry e;
  for (const std::string& k : n.keys()) {
    const ConfigNode c = n.child(k);
    if (k == "hyperscaler")
      e.hyperscaler = read_price(c);
    else if (k == "neocloud")
      e.neocloud = read_price(c);
    else if (k == "rental")
      e.rental = read_price(c);
    else
      throw ConfigError(key_location(n, k), path_of(n, k),
                        "unknown price tier '" + k + "' (known: " + known_tiers() + ")");
  }
  if (!e.hyperscaler && !e.neocloud && !e.rental) n.fail("lists no price (tiers: " + known_tiers() + ")");
  return e;
}

std::string gpu_names() {
  std::string s;
  for (const auto& g : list_catalog("hardware/gpus")) s += (s.empty() ? "" : ", ") + g.name;
  return s;
}

bool is_catalog_gpu(const std::string& name) {
  for (const auto& g : list_catalog("hardware/gpus"))
    if (g.name == name) return true;
  return false;
}

}  // namespace

PriceFile load_price_file(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  expect_map(root);
  PriceFile out;
  out.path = path;
  const ConfigNode prices = root.child("prices");
  expect_map(prices);
  out.where = key_location(root, "prices");
  for (const std::string& sku : prices.keys()) {
    if (!is_catalog_gpu(sku))
      throw ConfigError(key_location(prices, sku), path_of(prices, sku),
                        "unknown GPU '" + sku + "' (known: " + gpu_names() + ")");
    PriceFileEntry e = read_entry(prices.child(sku));
    e.where = key_location(prices, sku);
    out.by_gpu[sku] = e;
  }
  root.finish();
  return out;
}

NodeSpec apply_price_file(const PriceFile& prices, NodeSpec node, PriceTier tier) {
  const auto it = prices.by_gpu.find(node.gpu.name);
  if (it == prices.by_gpu.end()) {
    std::string listed;
    for (const auto& [name, e] : prices.by_gpu) listed += (listed.empty() ? "" : ", ") + name;
    throw ConfigError(prices.where, "prices",
                      "no price for GPU '" + node.gpu.name + "', which node " + node.name +
                          " needs (listed: " + (listed.empty() ? "none" : listed) + ")");
  }
  const PriceFileEntry& e = it->second;
  if (e.hyperscaler) node.gpu_hour.hyperscaler = *e.hyperscaler;
  if (e.neocloud) node.gpu_hour.neocloud = *e.neocloud;
  if (e.rental) node.gpu_hour.rental = *e.rental;
  const std::optional<MoneyRate>& chosen = tier == PriceTier::hyperscaler ? e.hyperscaler
                                           : tier == PriceTier::neocloud  ? e.neocloud
                                                                          : e.rental;
  if (!chosen)
    throw ConfigError(
        e.where, "prices." + node.gpu.name,
        std::string("no ") + to_string(tier) + " price for GPU '" + node.gpu.name + "', the run's price tier");
  return node;
}

}  // namespace engramsim
