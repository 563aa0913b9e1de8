// Orchestration of a calibration run: which benchmarks, at which sizes, and how their samples
// become profile sections (medians, percentiles, fits).
//
// The `engramsim calibrate` command and the standalone GPU tool (tools/gpu-check.sh) both call
// these functions. A benchmark that cannot run on this machine (no GPU, no O_DIRECT, ...) leaves
// its section in profile.not_measured with the reason; a benchmark that fails for another reason
// (CUDA error, I/O error) or whose result disagrees with its CPU reference ("CORRECTNESS FAILURE")
// is recorded in `failures`, gets no data, and the run goes on; callers exit with 1 when `failures`
// is not empty. Bad input (ConfigError) ends the run at once.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "calibration/gpu_benchmarks.hpp"
#include "calibration/sample_log.hpp"
#include "hardware/calibration_profile.hpp"

namespace engramsim::calibration {

struct CalibrationOptions {
  bool quick = false;
  std::set<std::string> sections;                // profile section names to measure
  std::string ssd_path;                          // file (read only) or folder for a scratch file; empty: temp folder
  std::optional<std::uint64_t> ssd_size;         // scratch file size
  std::optional<std::uint64_t> dram_table_size;  // DRAM gather table
  std::optional<std::uint64_t> gpu_table_size;   // HBM / pinned-host gather tables
  int threads = 0;                               // CPU threads; 0 = all online CPUs
  double zipf_exponent = 1.0;
  std::uint64_t seed = 1;
  int gpu_device = 0;
  std::vector<GemmShape> gemm_shapes;  // empty: the catalog models' shapes
  std::string name;                    // profile name
  std::string command_line;            // for provenance
};

// The scratch file the SSD benchmarks write (--ssd-size, else 256 MiB quick / 2 GiB full).
std::uint64_t ssd_scratch_bytes(const CalibrationOptions& options);

// Resolves a comma-separated --only list: group names ("dram", "ssd", "memcpy", "gpu", "host")
// and section names ("ssd_mmap", "gemm", ...). Throws ConfigError naming --only for an unknown
// name. An empty string means every section.
std::set<std::string> resolve_benchmark_list(const std::string& csv);
std::string benchmark_list_help();

struct CalibrationRun {
  CalibrationProfile profile;
  SampleLog samples;
  std::vector<std::string> warnings;
  std::vector<std::string> failures;  // sections that broke (not merely unavailable)
};
using Progress = std::function<void(const std::string& section, const std::string& what)>;

// memcpy, dram_gather, ssd_random_read, ssd_mmap, ssd_sequential (those in options.sections).
void run_host_benchmarks(const CalibrationOptions& o, CalibrationRun& run, const Progress& progress);
// Every GPU section in options.sections.
void run_gpu_benchmarks(const CalibrationOptions& o, CalibrationRun& run, const Progress& progress);

// Host, CPU, GPU, driver, date, version, options.
void fill_provenance(const CalibrationOptions& o, const GpuEnvironment& gpu, CalibrationRun& run);

// "dir/p.yaml" -> "dir/p.samples.csv".
std::string samples_path_for(const std::string& profile_path);
// Writes the samples CSV beside `profile_path`, records its name and hash in the provenance, then
// writes the profile; both atomically.
void write_calibration_run(CalibrationRun& run, const std::string& profile_path);

// Default GEMM shapes from the catalog's models (V4.1-Flash expert and attention projections,
// Llama-3-70B projections) at M = 1 .. 16384.
std::vector<GemmShape> default_gemm_shapes(bool quick);

}  // namespace engramsim::calibration
