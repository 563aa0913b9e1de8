// What every fuzz target shares: the input as text, a scratch folder for loaders that take a path,
// and the rule that a ConfigError is a correct refusal while any other exception is a defect.
//
// A target is one `LLVMFuzzerTestOneInput` (tests/fuzz/fuzz_*.cpp). Under the fuzz build
// (ENGRAMSIM_FUZZ=ON, clang) libFuzzer drives it; in every other build replay_main.cpp feeds it the
// kept inputs of tests/fuzz/regressions/<target>/ and the seed files listed in tests/fuzz/targets.txt.
// An exception other than ConfigError leaves the target: libFuzzer reports it as a crash and keeps
// the input, the replay names the file and fails its test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>

namespace engramsim::fuzz {

std::string as_text(const std::uint8_t* data, std::size_t size);

// Splits `text` at the first occurrence of `separator`; no separator: everything is the first part.
std::pair<std::string, std::string> split_once(const std::string& text, const std::string& separator);

// A folder of its own for one input (named by the process id, emptied when made and removed when
// done), under $ENGRAMSIM_FUZZ_TMP, else /dev/shm when present (no disk writes per input), else
// the system temp folder.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }
  // Writes `text` to DIR/name and returns that path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path dir_;
};

// Runs `load`; returns normally when it succeeds or throws ConfigError (printed to stderr when
// ENGRAMSIM_FUZZ_SHOW_REFUSALS is set). Anything else propagates.
void refusal_is_fine(const std::function<void()>& load);

}  // namespace engramsim::fuzz
