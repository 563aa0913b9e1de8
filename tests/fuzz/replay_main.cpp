// The main of a fuzz target outside the fuzz build: feeds every input named on the command line
// (a file, or each regular file directly inside a folder, in name order) to LLVMFuzzerTestOneInput
// once, as libFuzzer replays a corpus. `--cut-to N` cuts the inputs of the paths after it to N
// bytes, as libFuzzer's -max_len cuts corpus files (kept regressions come before it, whole). Exit 0 when every input
// was accepted or refused with a ConfigError; 1 when any threw something else (each such input is named); 2 for a
// missing path or no inputs.
#include <sys/resource.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>
#include "tests/support/file_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& p) {
  if (!std::filesystem::is_directory(p)) return {p};
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(p))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_prefix(const std::filesystem::path& file, std::size_t max_len) {
  std::string text = engramsim::test::file_text(file);
  if (text.size() > max_len) text.resize(max_len);
  return text;
}

// The process's peak resident memory so far, in MiB (Linux reports ru_maxrss in KiB).
long peak_rss_mb() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

// True when the input was accepted or refused as bad input, and memory stayed under the limit.
bool replay_one(const std::filesystem::path& file, std::size_t max_len, long rss_limit_mb) {
  const std::string text = read_prefix(file, max_len);
  const bool under_before = peak_rss_mb() <= rss_limit_mb;
  try {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    if (under_before && peak_rss_mb() > rss_limit_mb) {
      std::cerr << "FAILED " << file.string() << ": peak memory " << peak_rss_mb() << " MiB, limit " << rss_limit_mb
                << " MiB\n";
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    std::cerr << "FAILED " << file.string() << ": not a ConfigError: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "FAILED " << file.string() << ": threw a non-std exception\n";
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t max_len = std::numeric_limits<std::size_t>::max();
  long rss_limit_mb = 2048;
  std::vector<std::pair<std::filesystem::path, std::size_t>> files;  // with the length it is cut to
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--cut-to" && i + 1 < argc) {
      max_len = static_cast<std::size_t>(std::stoull(argv[++i]));
      continue;
    }
    if (arg == "--rss-limit-mb" && i + 1 < argc) {
      rss_limit_mb = std::stol(argv[++i]);
      continue;
    }
    if (!std::filesystem::exists(arg)) {
      std::cerr << "no such input: " << arg << "\n";
      return 2;
    }
    for (auto& f : inputs_of(arg)) files.emplace_back(std::move(f), max_len);
  }
  if (files.empty()) {
    std::cerr << "no inputs to replay\n";
    return 2;
  }
  int failed = 0;
  for (const auto& [file, cut] : files)
    if (!replay_one(file, cut, rss_limit_mb)) ++failed;
  std::cout << "replayed " << files.size() << " inputs, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
