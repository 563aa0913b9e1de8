// A temporary file for storage benchmarks, removed on every way out: normal return, exception
// (RAII), and SIGINT/SIGTERM (a handler unlinks registered files, then re-raises the signal with
// the previous disposition so the process still ends as the user asked).
//
// The file is created with O_EXCL inside the folder the caller names and nowhere else, filled with
// non-repeating content (so no layer can compress or deduplicate it), flushed to the device and
// dropped from the page cache, so that reads that follow hit the storage.
#pragma once

#include <cstdint>
#include <string>

namespace engramsim::calibration {

class ScratchFile {
 public:
  ScratchFile(const std::string& directory, std::uint64_t bytes);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t size() const { return bytes_; }

 private:
  std::string path_;
  std::uint64_t bytes_ = 0;
  int slot_ = -1;  // index in the signal-cleanup registry
};

// Registers a path to unlink if SIGINT or SIGTERM arrives; returns the slot (-1 if full).
// Exposed for tests; ScratchFile uses it.
int register_cleanup_path(const std::string& path);
void unregister_cleanup_path(int slot);

}  // namespace engramsim::calibration
