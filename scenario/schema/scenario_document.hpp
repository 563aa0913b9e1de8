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
// errors must keep pointing at file:line:col. The whole file is parsed once (the probe, which reads
// the compare list); each variant then parses the file with the other compare entries blanked
// (every kept character keeps its line and column), so N variants cost N parses of the base and
// their own entry, not N parses of the whole file: time and memory linear in N, in block style
// (entries on their own lines) and in flow style (`compare: [{...}, {...}]`) alike. Only a layout
// that defeats both (an entry using an anchor defined in another entry, entries sharing a line in
// block style) parses the whole file per variant; ScenarioExpansion then still holds one variant's
// tree at a time. A list holds at most kMaxCompareVariants entries. An override value taken from
// the file (a variant's `set:` entry) is bound uncloned after the override function has checked its
// path, so an error in it names its own line; a --set value names the scenario file (yaml-cpp cannot
// mark a node with a second file name) and its field path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/field_table.hpp"

namespace engramsim::scenario {

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

// Where the compare list's inside and each of its entries sit in the text (byte ranges), when the
// layout lets a variant parse its own entry alone.
struct ComparePlan {
  std::size_t from = 0;
  std::size_t to = 0;
  std::vector<std::pair<std::size_t, std::size_t>> entries;  // each entry's [begin, end)
};

// One variant without `compare:`, else one per entry, in file order. Bad compare entries (missing
// name, duplicate or unsafe name, unknown baseline, empty set, a key that does not exist) are
// ConfigErrors.
// Overrides go through core's apply_override (core/config_override.hpp).
std::vector<ScenarioVariant> expand_scenario(const ScenarioDocument& doc, const std::vector<SetArgument>& sets);

// A --set argument that changes what a variant's own `set:` entry sets: the same key, a key inside
// the entry's value or a map above the entry's key. The command line wins (above), so the variant
// runs with a value its name may not promise; `run` warns on stderr and nothing else changes.
struct SetConflict {
  std::string variant;    // the variant's name
  std::string key;        // the key its `set:` entry names
  std::string value;      // that entry's value, as canonical text
  SetArgument set;        // the --set argument, as given
  std::string runs_with;  // the value at `key` the variant runs with, as canonical text; empty: gone
};

// Whether one dotted key path is the other or lies inside it: "a.b" and "a.b.c", not "a.b" and "a.bc".
bool key_paths_overlap(const std::string& a, const std::string& b);

// For each of `v`'s `set:` entries (in file order), each --set argument (in command-line order) whose
// key overlaps the entry's, when the variant does not run with the entry's own value. `v` is as
// expanded (its tree holds the values it runs with). None without compare.
std::vector<SetConflict> set_conflicts(const ScenarioVariant& v, const std::vector<SetArgument>& sets);

// `--set K=V: variant "N" sets K=W itself and runs with V (--set wins over its set: entries)`.
std::string set_conflict_warning(const SetConflict& c);

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

// The variants of a scenario, expanded one at a time on request so that a caller that handles each
// in turn (parse, build, run, write) holds one variant's tree at a time. Construction parses the
// file once and checks the compare list and the command line's keys (ConfigError). `doc` must
// outlive the expansion.
class ScenarioExpansion {
 public:
  ScenarioExpansion(const ScenarioDocument& doc, std::vector<SetArgument> sets);
  ~ScenarioExpansion();
  ScenarioExpansion(const ScenarioExpansion&) = delete;
  ScenarioExpansion& operator=(const ScenarioExpansion&) = delete;
  // 1 without `compare:`, else the number of entries.
  std::size_t size() const;
  // Variant `i` (< size()), in file order; a bad override is a ConfigError.
  ScenarioVariant variant(std::size_t i) const;

 private:
  const ScenarioDocument* doc_;
  std::vector<SetArgument> sets_;
  YAML::Node probe_;  // the whole file with the command line's keys
  std::vector<CompareEntry> entries_;
  std::optional<ComparePlan> plan_;
};

}  // namespace engramsim::scenario
