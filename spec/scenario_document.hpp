// A scenario file as text, and its expansion into the scenarios that actually run.
//
// A scenario runs once, or, with a `compare:` list, once per named variant:
//   compare:
//     - name: tp4-hbm
//       description: "..."            # optional
//       baseline: tp2-dram               # optional: the variant its ratios are taken against
//       set: {deployment.tp: 4, deployment.engram.tier: hbm}
// Ratios default to the first variant (which then has none of its own).
// Each variant is the base scenario with its `set:` overrides applied, then the command line's
// --set overrides (so the command line wins), with `compare:` and `sweep:` removed. Key paths and
// their rule (every component must exist in the base scenario) are the planner's
// (planner/sweep_spec.hpp); the simulator library does not link the planner, so the caller passes
// its override function in.
//
// Every variant is parsed from a fresh parse of text: yaml-cpp's Clone drops source positions, and
// errors must keep pointing at file:line:col. A variant parses the file with the lines of the other
// compare entries blanked (line numbers unchanged), so N variants cost N parses of the base, not N
// parses of the whole file; a compare list written in flow style parses the whole file per variant.
// A list holds at most kMaxCompareVariants entries. An override value taken from the file
// (a variant's `set:` entry) is bound uncloned after the override function has checked its path, so
// an error in it names its own line; a --set value names the scenario file (yaml-cpp cannot mark a
// node with a second file name) and its field path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/field_table.hpp"

namespace engramsim::sim {

inline constexpr std::size_t kMaxCompareVariants = 10'000;

struct ScenarioDocument {
  std::string file;  // as given
  std::string text;
};

// Reads the file; a missing or unreadable file is a ConfigError naming it.
ScenarioDocument read_scenario_document(const std::string& path);

struct SetArgument {
  std::string key;
  std::string value;  // YAML text, as after "key=" on the command line
};

struct ScenarioVariant {
  std::string name;  // empty when the file has no compare list
  std::string description;
  std::string baseline;  // the variant ratios are taken against; empty for the first by default
  std::vector<std::pair<std::string, std::string>> set;  // the variant's overrides, as canonical text
  YAML::Node root;                                       // the scenario to parse (compare and sweep removed)
};

// One variant without `compare:`, else one per entry, in file order. Bad compare entries (missing
// name, duplicate or unsafe name, unknown baseline, empty set, a key that does not exist) are
// ConfigErrors.
// Overrides go through core's apply_override (core/config_override.hpp).
std::vector<ScenarioVariant> expand_scenario(const ScenarioDocument& doc, const std::vector<SetArgument>& sets);

// One `compare:` entry: its name, description, baseline and the keys its `set:` names.
struct CompareEntry {
  std::string name;
  std::string description;
  std::string baseline;  // empty: the first variant (the first itself has none)
  SourceLocation baseline_at;
  std::vector<std::string> keys;
};
// Its keys, declared once (core/field_table.hpp); docs/scenarios.md "## `compare`" is its table.
const FieldTable<CompareEntry>& compare_entry_schema();

}  // namespace engramsim::sim
