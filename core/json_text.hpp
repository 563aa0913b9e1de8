// JSON text for files and terminals. Strings reach JSON from file paths, command-line arguments and
// inputs; loaders refuse invalid UTF-8, but a path given on a command line can still hold any
// bytes, and nlohmann's dump throws on them by default. Here an invalid byte becomes U+FFFD instead,
// so writing a result never fails on text that was already accepted.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace engramsim {

inline std::string json_text(const nlohmann::json& value, int indent = 2) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace engramsim
