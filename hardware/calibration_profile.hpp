// A calibration profile: what one machine measurably delivers, as plain data.
//
// Written by `engramsim calibrate` (calibration/) to hardware/calibrations/NAME.yaml with the raw
// samples beside it (NAME.samples.csv); read by the step-time model, which replaces its default
// efficiencies and curves with the sections present here. Every section is optional:
//   - present with data      -> measured on this machine; the model uses it;
//   - present as `{not_measured: "reason"}` -> tried and failed (no GPU, no O_DIRECT, ...); the
//     model keeps its default, and the reason is shown to the user;
//   - absent                 -> not tried; the model keeps its default.
// describe_sections() renders that state for people; check_profile_matches() says whether a profile
// may be applied to a scenario's GPU.
//
// Units and conventions (the YAML carries unit strings for every dimensioned value):
//   - "traffic" bandwidths count bytes read plus bytes written (as datasheets quote memory
//     bandwidth); a copy of N bytes is 2N bytes of traffic.
//   - gather "bandwidth" is payload: rows x row_size delivered per second.
//   - transfer fits are alpha-beta: time(bytes) = alpha + bytes / beta.
//   - GEMM fits: time(flops) = overhead + flops / rate, per (precision, n, k); `achieved` is
//     2*m*n*k / time.
//   - latency percentiles are per operation (one 4 KiB read, one page fault).
// The keys, their types and these checks are declared once, in calibration_schema.cpp, which the
// loader, the writer and docs/calibration.md's key table share. Invariants enforced by the loader:
// every rate and size > 0, every count >= 1, percentiles ordered p50 <= p90 <= p99, efficiencies
// in (0, 4], no NaN, no unknown key, and GPU sections only when provenance.gpu names the GPU they
// were measured on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "hardware/gpu_spec.hpp"

namespace engramsim {

inline constexpr const char* kCalibrationSchema = "engramsim-calibration/1";

struct CalibrationProvenance {
  std::string host;       // hostname
  std::string cpu_model;  // /proc/cpuinfo "model name"
  int cpu_threads = 0;    // online logical CPUs
  std::string gpu;        // device name as the driver reports it ("NVIDIA H200"); empty: none
  int gpu_count = 0;
  std::string gpu_driver;    // "580.159.03"; empty when no GPU
  std::string cuda_runtime;  // "13.0"; empty when no GPU
  std::string date;          // ISO 8601 UTC, "2026-11-20T10:11:12Z"
  std::string engramsim_version;
  std::string options;       // benchmark options as given on the command line
  std::string samples_file;  // raw samples CSV, relative to the profile's folder
  std::string samples_hash;  // "fnv1a64:" + 16 hex digits of the samples file's bytes
  std::string notes;         // free text: filesystem of the SSD file, THP policy, ...
};

enum class IndexDistribution { uniform, zipf };
inline constexpr EnumNames<IndexDistribution, 2> kIndexDistributionNames{{{
    {IndexDistribution::uniform, "uniform"},
    {IndexDistribution::zipf, "zipf"},
}}};
const char* to_string(IndexDistribution d);
std::optional<IndexDistribution> index_distribution_from_string(const std::string& s);

struct LatencyPercentiles {
  Time p50;
  Time p90;
  Time p99;
};

// Least-squares fit time = alpha + bytes / beta, with its residuals relative to the samples.
struct AlphaBeta {
  Time alpha;
  Bandwidth beta;
  double rms_relative_residual = 0.0;
  double max_relative_residual = 0.0;
  int samples = 0;
};

// --- host sections ---------------------------------------------------------------------------

struct MemcpyPoint {
  int threads = 1;
  Bandwidth traffic;  // read + write bytes per second over all threads
};
struct MemcpySection {
  Bytes buffer_size;  // bytes copied per pass (each thread's share summed)
  std::vector<MemcpyPoint> points;
};

struct DramGatherPoint {
  Bytes row_size;
  IndexDistribution distribution = IndexDistribution::uniform;
  int threads = 1;
  double rows_per_s = 0.0;
  Bandwidth bandwidth;  // payload: rows_per_s * row_size
};
struct DramGatherSection {
  Bytes table_size;
  double zipf_exponent = 1.0;  // used by the `zipf` points
  std::vector<DramGatherPoint> points;
};

struct SsdRandomReadPoint {
  int queue_depth = 1;
  double iops = 0.0;
  LatencyPercentiles latency;
};
struct SsdRandomReadSection {
  std::string engine;  // "io_uring O_DIRECT"
  Bytes block_size;    // 4 KiB
  Bytes file_size;     // span the offsets were drawn from
  std::vector<SsdRandomReadPoint> points;
};

struct SsdMmapPoint {
  int threads = 1;
  double faults_per_s = 0.0;   // major faults over all threads
  LatencyPercentiles latency;  // one first touch of a non-resident page
};
struct SsdMmapSection {
  Bytes page_size;
  Bytes file_size;
  std::vector<SsdMmapPoint> points;
};

struct SsdSequentialSection {
  std::string engine;  // "io_uring O_DIRECT" or "buffered pread"
  Bytes block_size;
  int queue_depth = 1;
  Bandwidth bandwidth;
};

// --- GPU sections ----------------------------------------------------------------------------

struct HbmSection {
  Bytes buffer_size;       // bytes copied per pass
  Bandwidth copy_traffic;  // device-to-device copy, read + write
};

// One gather batch: `rows` rows of `row_size` bytes from a table into a dense HBM buffer.
struct GpuGatherPoint {
  Bytes row_size;
  IndexDistribution distribution = IndexDistribution::uniform;
  std::int64_t rows = 0;
  Time time;            // median wall time of one batch
  Bandwidth bandwidth;  // payload rows * row_size / time
};
// Per (row size, distribution): alpha-beta over payload bytes, and the asymptotic efficiency
// against the section's reference (see GpuGatherSection::reference).
struct GpuGatherCurve {
  Bytes row_size;
  IndexDistribution distribution = IndexDistribution::uniform;
  AlphaBeta fit;
  double efficiency = 0.0;
};
// Used for hbm_gather (table in HBM; efficiency = 2 * beta / hbm copy traffic), uva_gather (table
// in pinned host memory read by the kernel over the host link; efficiency = beta / host_link H2D
// beta) and staged_gather (CPU gathers into pinned staging, then one H2D copy; same reference).
struct GpuGatherSection {
  Bytes table_size;
  double zipf_exponent = 1.0;
  std::string reference;  // what `efficiency` is relative to, in words
  std::vector<GpuGatherPoint> points;
  std::vector<GpuGatherCurve> curves;
};

struct TransferPoint {
  Bytes size;
  Time time;  // median
};
struct HostLinkSection {
  std::vector<TransferPoint> h2d;  // pinned host -> device
  std::vector<TransferPoint> d2h;
  AlphaBeta h2d_fit;
  AlphaBeta d2h_fit;
};

struct GemmPoint {
  Precision precision = Precision::bf16;
  std::int64_t m = 0, n = 0, k = 0;
  Time time;          // median
  FlopRate achieved;  // 2*m*n*k / time
};
struct GemmFit {
  Precision precision = Precision::bf16;
  std::int64_t n = 0, k = 0;
  Time overhead;  // fixed cost per call
  FlopRate rate;  // asymptotic rate for large m
  double rms_relative_residual = 0.0;
  double max_relative_residual = 0.0;
  int samples = 0;
};
struct GemmSection {
  std::string library;  // "cuBLASLt 13.0.0"
  std::vector<GemmPoint> points;
  std::vector<GemmFit> fits;
};

struct AttentionDecodePoint {
  std::int64_t batch = 0;
  std::int64_t context = 0;  // tokens of KV per sequence
  Bytes kv_bytes;            // K and V bytes streamed per call
  Time time;                 // median
  Bandwidth bandwidth;       // kv_bytes / time
  double efficiency = 0.0;   // bandwidth / hbm copy traffic
};
struct AttentionDecodeSection {
  std::string kernel;  // what the proxy computes, in words
  int kv_heads = 0;
  int q_heads_per_kv = 0;
  int head_dim = 0;
  std::vector<AttentionDecodePoint> points;
};

// Fixed cost of a kernel: CUDA graphs of `kernels_per_graph` back-to-back launches, timed whole and
// divided by the count. `empty_kernel`: kernels that do nothing (the launch gap); `tiny_kernel`:
// kernels that each RMS-normalise one row of `row_size` bytes read from the previous kernel's output
// (a kernel with almost no work, as norms and activations are at batch 1).
struct KernelLaunchSection {
  int kernels_per_graph = 0;
  Bytes row_size;
  Time empty_kernel;  // per kernel
  Time tiny_kernel;   // per kernel
};

struct PeerPairPoint {
  int src = 0;
  int dst = 0;
  Bytes size;
  Bandwidth bandwidth;  // size / median time of one copy
};
struct CollectivesSection {
  int gpus = 0;
  std::vector<TransferPoint> p2p;  // GPU 0 -> GPU 1 copies
  AlphaBeta p2p_fit;
  std::vector<PeerPairPoint> p2p_pairs;   // every ordered GPU pair at one size
  std::string all_reduce_algorithm;       // "ring over P2P, pull-based"
  std::vector<TransferPoint> all_reduce;  // size = buffer bytes per GPU
  AlphaBeta all_reduce_fit;
};

// --- the profile -----------------------------------------------------------------------------

struct CalibrationProfile {
  std::string name;
  CalibrationProvenance provenance;
  std::optional<MemcpySection> memcpy;
  std::optional<DramGatherSection> dram_gather;
  std::optional<SsdRandomReadSection> ssd_random_read;
  std::optional<SsdMmapSection> ssd_mmap;
  std::optional<SsdSequentialSection> ssd_sequential;
  std::optional<HbmSection> hbm;
  std::optional<GpuGatherSection> hbm_gather;
  std::optional<HostLinkSection> host_link;
  std::optional<GpuGatherSection> uva_gather;
  std::optional<GpuGatherSection> staged_gather;
  std::optional<GemmSection> gemm;
  std::optional<AttentionDecodeSection> attention_decode;
  std::optional<KernelLaunchSection> kernel_launch;
  std::optional<CollectivesSection> collectives;
  // Sections that were tried and could not be measured: section name -> reason. A name here has
  // no data above.
  std::map<std::string, std::string> not_measured;
};

// Every section name in file order, and which of them describe the GPU (rather than the host);
// both come from the schema (calibration_schema.cpp).
const std::vector<std::string>& calibration_section_names();
bool is_gpu_section(const std::string& name);
// True when the section has data.
bool has_section_data(const CalibrationProfile& p, const std::string& name);

// Strict loader. Bad input throws ConfigError "file:line:col: field: message".
CalibrationProfile load_calibration_profile(const std::string& path);
CalibrationProfile parse_calibration_profile(const std::string& yaml_text, const std::string& name);

// Renders the profile as YAML (unit strings, six significant digits) and writes it atomically:
// a temporary file in the same folder, flushed to disk, renamed over `path`. Throws
// std::runtime_error on I/O failure; `path` is then untouched.
std::string render_calibration_profile(const CalibrationProfile& p);
void write_calibration_profile(const CalibrationProfile& p, const std::string& path);
// The same atomic replacement for any text file (the samples CSV).
void write_text_file_atomically(const std::string& path, const std::string& text);

// "fnv1a64:0123456789abcdef" of the bytes.
std::string samples_hash_of(const std::string& bytes);
// Reads the samples file named in the provenance (relative to the profile's folder) and compares
// its hash. Returns an empty string when it matches, else what is wrong.
std::string verify_samples_file(const CalibrationProfile& p, const std::string& profile_path);

enum class SectionState { measured, not_measured, default_value };
// How `engramsim run` and `calibrate` show a section's state to people (not parsed).
inline constexpr EnumNames<SectionState, 3> kSectionStateNames{{{
    {SectionState::measured, "measured"},
    {SectionState::not_measured, "not measured"},
    {SectionState::default_value, "default"},
}}};
struct SectionDescription {
  std::string name;
  SectionState state = SectionState::default_value;
  std::string detail;  // headline numbers, the not-measured reason, or what the default means
};
const char* to_string(SectionState s);
std::vector<SectionDescription> describe_sections(const CalibrationProfile& p);

// Whether a profile may be applied to a scenario whose GPU is `gpu_name` (a catalog key such as
// "h200" or a device name such as "NVIDIA H200"). Rule:
//   - no GPU section measured                     -> ok (host sections apply to any GPU);
//   - GPU sections but provenance.gpu empty        -> error (cannot tell what they describe);
//   - same GPU (after dropping vendor words and memory-size/form-factor tokens such as "80gb",
//     "hbm3", "sxm5")                              -> ok;
//   - same chip, one name has extra variant tokens ("h200" vs "NVIDIA H200 NVL") -> warning;
//   - anything else                                -> error (the GPU sections describe another GPU).
enum class MatchSeverity { ok, warning, error };
struct ProfileMatch {
  MatchSeverity severity = MatchSeverity::ok;
  std::string message;
};
ProfileMatch check_profile_matches(const CalibrationProfile& p, const std::string& gpu_name);

// A profile named on a command line (--calibration), loaded.
struct CalibrationCandidate {
  std::string path;
  CalibrationProfile profile;
};
// Which candidate applies to a GPU, by rank: one whose GPU sections were measured on that GPU
// (check_profile_matches ok), then one measured on a variant of its chip (warning), then one with
// host sections only. Null when none applies. Two candidates of the best rank found are ambiguous:
// ConfigError (field "--calibration") naming both.
const CalibrationCandidate* choose_calibration(const std::vector<CalibrationCandidate>& candidates,
                                               const std::string& gpu_name);

}  // namespace engramsim
