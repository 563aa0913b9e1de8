// Running the engramsim binary from a test: one command line through the shell, its standard output
// captured, its standard error merged into it or dropped, and its exit status.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "tests/support/test_paths.hpp"

namespace engramsim::test {

struct CliRun {
  int rc = -1;      // the exit status; -1 when the command could not run or did not exit
  std::string out;  // standard output (and standard error when merged)
};

enum class Stderr { merged, dropped };

// Runs `engramsim ARGS`; `args` is shell text, so the caller quotes what needs quoting.
inline CliRun run_cli(const std::string& args, Stderr err = Stderr::merged) {
  std::string cmd = "'";
  cmd.append(cli_path()).append("' ").append(args).append(err == Stderr::merged ? " 2>&1" : " 2>/dev/null");
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace engramsim::test
