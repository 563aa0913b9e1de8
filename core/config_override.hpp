// `--set key.path=value` and a file's `set:` blocks: replacing one node of a YAML document at a
// dotted key path before the strict loaders read it. One implementation, used by scenarios
// (scenario/), sweeps (planner/) and the validation set.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace engramsim {

// The source name of overrides given on the command line.
inline constexpr const char* kCommandLineSet = "--set";

// "a.b.0.c" -> {"a", "b", "0", "c"}; empty components are kept (callers refuse them).
std::vector<std::string> split_key_path(const std::string& path);

// The node at `path` (a handle into `root`). A component missing from a map is a ConfigError at
// `where` naming it, or with `create` is added (an empty map, or the slot the caller assigns), so the
// strict loader judges the key afterwards; an index past a list's end or a step into a scalar is an
// error too.
YAML::Node resolve_key_path(YAML::Node root, const std::string& path, const SourceLocation& where, bool create = false);

// Replaces the node at `path` with `value` (deep-copied). From the command line (`where.file` is
// kCommandLineSet) it adds the map keys the path names that the document leaves out, so an optional
// key may be set and the strict loader judges every key afterwards; from a file (a compare entry's
// `set:`) and for sweep axes a missing key is an error at `where`.
void apply_override(YAML::Node& root, const std::string& path, const YAML::Node& value,
                    const SourceLocation& where = {kCommandLineSet, 0, 0});
// As above with the value given as YAML text ("4", "dram", "[1, 2]", "{a: 1}").
void apply_override(YAML::Node& root, const std::string& path, const std::string& value_text);

// Splits "key.path=value" at the first '='; throws ConfigError when there is no '=' or no key.
std::pair<std::string, std::string> parse_set_argument(const std::string& arg);

}  // namespace engramsim
