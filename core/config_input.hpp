// Reading configuration input that does not come as a whole YAML file through ConfigNode: a file's
// bytes under a bound, and one YAML value given on a command line (`--set key=value`).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

namespace engramsim {

// The largest input file read whole (cards, presets, scenarios, profiles, cases): far above any of
// them, and a device such as /dev/zero, which never ends, stops here.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;  // 64 MiB

// The whole text of an input file; ConfigError naming the path when it does not exist, is a folder,
// cannot be read or holds more than `max_bytes`.
std::string read_input_file(const std::string& path, std::size_t max_bytes = kMaxInputFileBytes);

// Parses one value given outside a file: YAML syntax errors, map keys that are not plain names and
// invalid UTF-8 throw ConfigError({source, 0, 0}, field, ...). An empty text is the empty string
// (`--set name=` is rarely a request for null).
YAML::Node parse_config_value(const std::string& text, const std::string& source, const std::string& field);

}  // namespace engramsim
