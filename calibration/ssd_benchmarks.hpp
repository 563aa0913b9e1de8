// Storage microbenchmarks for the SSD Engram tier: 4 KiB random reads with O_DIRECT through
// io_uring at queue depths 1..256 (IOPS and latency percentiles), the same page reads through mmap
// page faults (how an mmap-ed table behaves), and sequential read bandwidth.
//
// The file is either one the user names (opened read-only, never written) or a scratch file of
// `scratch_bytes` created inside the folder the user names (or the system temp folder) and removed
// on every way out (see scratch_file.hpp). Each part that cannot run here (no O_DIRECT on tmpfs or
// overlayfs, io_uring disabled, pages that cannot be dropped from the page cache) comes back
// without data and with the reason, never as a wrong number.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calibration/uring_engine.hpp"

namespace engramsim::calibration {

struct SsdOptions {
  std::string path;  // existing regular file, or a folder for the scratch file; empty: temp folder
  std::uint64_t scratch_bytes = 1ull << 30;
  std::uint32_t block = 4096;
  std::vector<int> queue_depths = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  double seconds_per_depth = 1.0;
  std::vector<int> mmap_threads = {1};
  double mmap_seconds_per_point = 1.0;
  std::uint32_t sequential_block = 1u << 20;
  int sequential_queue_depth = 8;
  double sequential_min_seconds = 1.0;
  std::uint64_t seed = 1;
};

struct MmapRun {
  int threads = 1;
  std::uint64_t faults = 0;
  double seconds = 0.0;
  std::vector<double> latencies;
};

struct SsdResults {
  std::string file;        // what was read, in words
  std::string filesystem;  // "ext4", "tmpfs", ...
  std::uint64_t file_bytes = 0;
  std::optional<std::vector<RandomReadRun>> random_reads;
  std::string random_reads_reason;
  std::optional<std::vector<MmapRun>> mmap;
  std::string mmap_reason;
  std::optional<SequentialRun> sequential;
  std::string sequential_engine;
  std::string sequential_reason;
};

// Throws ConfigError for a bad path (missing, not a file or folder, too small) and
// std::runtime_error for an I/O failure in the middle of a measurement.
SsdResults run_ssd_benchmarks(const SsdOptions& o, const std::function<void(const std::string&)>& progress);

}  // namespace engramsim::calibration
