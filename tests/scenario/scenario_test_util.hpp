// Shared helpers of the scenario tests: a self-removing temp folder, file I/O, and the planner's
// override function in the shape spec expects.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "planner/sweep_spec.hpp"
#include "scenario/schema/scenario_document.hpp"
#include "tests/support/temp_dir.hpp"

namespace engramsim::testing {

using ScratchDir = test::TempDir;

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << text;
}

}  // namespace engramsim::testing
