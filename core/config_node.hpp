// Strict, location-aware access to YAML configuration.
//
// A ConfigNode is a view on one YAML node plus the file it came from and its dotted field path
// ("deployment.scheduler.max_num_seqs"). Every accessor either returns a validated value or throws
// ConfigError naming file:line:col and the field. Maps remember which keys were read; finish()
// rejects any key that no one asked for (typos are errors, never silently ignored). A key that is
// close (a small edit distance) to one the reader asked for is reported as a likely typo with
// "did you mean"; such a typo is reported at its own line before any error that the absence of the
// intended key causes (a missing field, a default that does not fit).
//
// Usage pattern for a loader:
//   ConfigNode root = ConfigNode::load_file(path);
//   Params p;
//   p.name = root.str("name");
//   p.hbm = root.bytes("hbm_capacity");
//   p.eff = root.number_or("efficiency", 0.8, 0.0, 1.0);
//   root.finish();
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/units.hpp"

namespace engramsim {

class ConfigNode {
 public:
  // Loads and parses a YAML file. A missing file, a folder, an unreadable file, YAML syntax errors
  // and a second YAML document in the file throw ConfigError.
  static ConfigNode load_file(const std::string& path);
  // The whole text of an input file; ConfigError naming the path when it does not exist, is a
  // folder or cannot be read.
  static std::string read_file(const std::string& path);
  // Why `path` cannot be read as an input file ("no such file", "is a folder, not a file"); empty
  // when it is a regular file.
  static std::string file_problem(const std::string& path);
  // Parses YAML text; `name` stands in for the file name in messages.
  static ConfigNode load_string(const std::string& text, const std::string& name);
  // Wraps an existing node (e.g. one produced by overrides).
  ConfigNode(YAML::Node node, std::string file, std::string path);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  SourceLocation location() const;
  const YAML::Node& raw() const { return node_; }
  // Fails unless the scalar is written as a number (not quoted, not tagged as another type).
  void require_plain_number(const char* what) const;

  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool has(const std::string& key) const;

  // Map access. `child` requires the key; `optional_child` returns nullopt when absent.
  ConfigNode child(const std::string& key) const;
  std::optional<ConfigNode> optional_child(const std::string& key) const;
  // All keys of a map in file order (marks them as read).
  std::vector<std::string> keys() const;
  // Sequence elements.
  std::vector<ConfigNode> elements() const;

  // Scalars of this node.
  std::string as_str() const;
  double as_number() const;  // finite
  std::int64_t as_integer() const;
  bool as_bool() const;
  Bytes as_bytes() const;
  Bandwidth as_bandwidth() const;
  FlopRate as_flop_rate() const;
  Time as_time() const;
  MoneyRate as_money_rate() const;
  MoneyPerByte as_money_per_byte() const;

  // Required keyed scalars.
  std::string str(const std::string& key) const;
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed) const;
  double number(const std::string& key, double lo = -1e308, double hi = 1e308) const;
  std::int64_t integer(const std::string& key, std::int64_t lo = INT64_MIN, std::int64_t hi = INT64_MAX) const;
  bool boolean(const std::string& key) const;
  Bytes bytes(const std::string& key) const;
  Bandwidth bandwidth(const std::string& key) const;
  FlopRate flop_rate(const std::string& key) const;
  Time time(const std::string& key) const;
  MoneyRate money_rate(const std::string& key) const;
  MoneyPerByte money_per_byte(const std::string& key) const;
  std::vector<std::int64_t> integers(const std::string& key, std::int64_t lo = INT64_MIN,
                                     std::int64_t hi = INT64_MAX) const;
  std::vector<double> numbers(const std::string& key, double lo = -1e308, double hi = 1e308) const;
  std::vector<std::string> strings(const std::string& key) const;

  // Optional keyed scalars: the default applies only when the key is absent (a present but bad
  // value is still an error).
  std::string str_or(const std::string& key, const std::string& dflt) const;
  std::string one_of_or(const std::string& key, const std::vector<std::string>& allowed, const std::string& dflt) const;
  double number_or(const std::string& key, double dflt, double lo = -1e308, double hi = 1e308) const;
  std::int64_t integer_or(const std::string& key, std::int64_t dflt, std::int64_t lo = INT64_MIN,
                          std::int64_t hi = INT64_MAX) const;
  bool boolean_or(const std::string& key, bool dflt) const;
  Bytes bytes_or(const std::string& key, Bytes dflt) const;
  Bandwidth bandwidth_or(const std::string& key, Bandwidth dflt) const;
  FlopRate flop_rate_or(const std::string& key, FlopRate dflt) const;
  Time time_or(const std::string& key, Time dflt) const;

  // Marks a key as known without reading it (e.g. free-text `source:` or `description:`).
  void ignore(const std::string& key) const;
  // Throws ConfigError on the first key of this map that was never read. Call once per map
  // after reading all fields (child maps call their own finish()).
  void finish() const;

  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_key(const std::string& key, const std::string& message) const;

  // The known key closest to `key` within a typo's reach (see close_enough_for_typo), or empty.
  static std::string closest_key(const std::string& key, const std::set<std::string>& known);

 private:
  std::string child_path(const std::string& key) const;
  void require_map() const;
  // Throws "unknown field; did you mean" for the first unread key of this map that is close to a
  // key the reader asked for and did not find; returns when there is none.
  void reject_close_typo() const;
  [[noreturn]] void fail_unknown(const YAML::Node& key_node, const std::string& key) const;
  void note_absent(const std::string& key) const;

  YAML::Node node_;
  std::string file_;
  std::string path_;
  std::shared_ptr<std::set<std::string>> read_keys_;
  std::shared_ptr<std::set<std::string>> absent_keys_;  // asked for, not in the map
};

}  // namespace engramsim
