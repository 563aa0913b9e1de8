// The message of a refusal: what a test of a loader's located errors compares.
#pragma once

#include <functional>
#include <string>

#include "core/error.hpp"

namespace engramsim::test {

// The text of the ConfigError `f` throws, or `none` when it returns; any other exception passes
// through (and fails the test).
inline std::string config_error_of(const std::function<void()>& f, const std::string& none = "") {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return none;
}

}  // namespace engramsim::test
