// Host memory microbenchmarks: bulk memcpy bandwidth and the Engram row gather from a DRAM table.
//
// memcpy: T threads each copy 1/T of a buffer (sized well above the last-level cache) and the
// wall time of the slowest thread is taken; traffic = 2 x bytes copied / time.
// DRAM gather: a table of `table_bytes` (larger than the caches) is viewed as packed rows of R
// bytes (264 B = one V4.1 Engram row); each thread copies rows at pre-drawn indices (uniform, or
// Zipf ranks scattered over the table) into a small staging ring, as a CPU gather into pinned
// staging does. Indices are drawn before timing. A checksum over the copied rows is returned so
// that no copy can be optimised away.
// Results are raw seconds per repetition; callers take medians and write samples.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hardware/calibration_profile.hpp"

namespace engramsim::calibration {

struct MemcpyOptions {
  std::uint64_t buffer_bytes = 256ull << 20;
  std::vector<int> thread_counts = {1};
  int repetitions = 5;
};
struct MemcpyMeasurement {
  int threads = 1;
  std::uint64_t bytes_copied = 0;  // per repetition
  std::vector<double> seconds;
};
std::vector<MemcpyMeasurement> run_memcpy_benchmark(const MemcpyOptions& o);

struct DramGatherOptions {
  std::uint64_t table_bytes = 1ull << 30;
  std::vector<std::uint32_t> row_sizes = {264};
  std::vector<IndexDistribution> distributions = {IndexDistribution::uniform};
  std::vector<int> thread_counts = {1};
  double zipf_exponent = 1.0;
  std::uint64_t rows_per_thread = 1u << 20;  // indices drawn per thread and repetition
  std::uint32_t staging_rows = 1024;         // ring each thread copies into
  int repetitions = 3;
  std::uint64_t seed = 1;
};
struct DramGatherMeasurement {
  std::uint32_t row_size = 0;
  IndexDistribution distribution = IndexDistribution::uniform;
  int threads = 1;
  std::uint64_t rows = 0;  // per repetition, all threads
  std::vector<double> seconds;
  std::uint64_t checksum = 0;
};
// `progress` (may be empty) is called before each case with a short description.
std::vector<DramGatherMeasurement> run_dram_gather_benchmark(const DramGatherOptions& o,
                                                             const std::function<void(const std::string&)>& progress);

// 1, 2, 4, ... below max, then max (deduplicated, ascending).
std::vector<int> thread_sweep(int max_threads);

}  // namespace engramsim::calibration
