// Helpers for the planner CLI tests: scratch folders, files, and running the real engramsim binary
// (its path from the test's environment, engramsim::test::cli_path()) with its output captured.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim::planner::cli_testing {

namespace fs = std::filesystem;

using TempDir = engramsim::test::TempDir;

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

inline std::string data_file(const std::string& name) {
  return engramsim::test::source_root() + "/tests/planner_cli/" + name;
}
inline std::string source_file(const std::string& name) { return engramsim::test::source_root() + "/" + name; }

inline std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs `prefix engramsim args...` through the shell with stdout and stderr captured.
inline CliResult run_cli(const std::vector<std::string>& args, const fs::path& scratch,
                         const std::string& prefix = "") {
  const fs::path out = scratch / "cli.stdout";
  const fs::path err = scratch / "cli.stderr";
  std::string cmd = prefix + quoted(engramsim::test::cli_path());
  // Appended piece by piece: GCC 12 misreports `" >" + std::string` chains as overlapping memcpy.
  for (const auto& a : args) cmd.append(" ").append(quoted(a));
  cmd.append(" >").append(quoted(out.string())).append(" 2>").append(quoted(err.string()));
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

inline std::string describe(const CliResult& r) {
  return "exit " + std::to_string(r.code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

}  // namespace engramsim::planner::cli_testing
