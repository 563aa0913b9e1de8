// A user's own GPU-hour prices, replacing the catalog's per SKU and tier.
//
// File format (docs/hardware.md "Your own price file"):
//   prices:
//     b200: {hyperscaler: "1.73USD/h", rental: "3.10USD/h"}   # GPU catalog name -> tier -> price
//     h200-sxm: {neocloud: "1.50USD/h"}
// Keys are GPU catalog names (hardware/gpus/NAME.yaml); tiers are the price_tier names
// (hyperscaler, neocloud, rental); a SKU may list only the tiers it has quotes for. Prices are
// all-in USD per GPU-hour, finite and > 0. An unknown SKU or tier, a bare number, a negative,
// zero or non-finite price is an error at its file:line:col. apply_price_file() fails, at the
// file's `prices` key, when the run's GPU is not listed, or at the SKU when its tier is not.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/units.hpp"
#include "hardware/node_spec.hpp"

namespace engramsim {

struct PriceFileEntry {
  std::optional<MoneyRate> hyperscaler;
  std::optional<MoneyRate> neocloud;
  std::optional<MoneyRate> rental;
  SourceLocation where;  // of the SKU's key
};

struct PriceFile {
  std::string path;
  SourceLocation where;  // of the `prices` key
  std::map<std::string, PriceFileEntry> by_gpu;
};

// Loads and validates; throws ConfigError located in the file.
PriceFile load_price_file(const std::string& path);

// The node with its GPU's prices replaced by the file's (tiers the file leaves out keep the
// catalog's). Throws ConfigError when the file has no entry for the node's GPU or the entry has no
// price for `tier`.
NodeSpec apply_price_file(const PriceFile& prices, NodeSpec node, PriceTier tier);

}  // namespace engramsim
