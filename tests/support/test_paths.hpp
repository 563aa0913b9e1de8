// Where tests find the source tree, the build folder and the engramsim binary: read at run time from
// the environment ctest sets for each test (tests/CMakeLists.txt), never compiled in, so that the
// test sources compile to the same command line in every clone (and ccache shares them). A missing
// variable is a broken test setup: it stops the test with a message naming the variable.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace engramsim::test {

// The value of the environment variable `name`; aborts when it is unset or empty.
inline std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    std::fprintf(stderr, "test setup: environment variable %s is not set (run the test through ctest)\n", name);
    std::abort();
  }
  return value;
}

// The source tree (the repository root).
inline std::string source_root() { return required_env("ENGRAMSIM_DATA_ROOT"); }

// The build folder (CMAKE_BINARY_DIR).
inline std::string binary_dir() { return required_env("ENGRAMSIM_TEST_BINARY_DIR"); }

// The engramsim binary.
inline std::string cli_path() { return required_env("ENGRAMSIM_TEST_CLI"); }

}  // namespace engramsim::test
