// The CUDA benchmarks, seen from plain C++ (no CUDA types here, so the host code compiles without
// nvcc). Implemented in calibration/cuda/*.cu when CMake found nvcc (ENGRAMSIM_HAVE_CUDA); else
// gpu_unavailable.cpp makes probe_gpu_environment() report that and the rest throw, since callers
// run nothing when the probe says no.
//
// Every benchmark checks its result against a CPU reference on random data before any timing is
// reported, and throws GpuCorrectnessError on a mismatch (the run fails loudly). CUDA errors throw
// std::runtime_error naming the call. Times are medians of `repetitions` timed runs after
// `warmup` untimed ones, measured with CUDA events (or the host clock where host work is part of
// what is measured), in seconds.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hardware/calibration_profile.hpp"
#include "hardware/gpu_spec.hpp"

namespace engramsim::calibration {

class GpuCorrectnessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GpuDeviceInfo {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  int cc_major = 0;
  int cc_minor = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
};

struct GpuEnvironment {
  bool compiled = false;   // built with nvcc
  bool available = false;  // at least one usable device
  std::string reason;      // why not available
  std::vector<GpuDeviceInfo> devices;
  std::string driver_version;   // "580.159.03" when NVML-free lookup works, else the CUDA driver API version "13.0"
  std::string runtime_version;  // "13.0"
  std::string cublas_version;   // "13.0.0"
};
// Never throws.
GpuEnvironment probe_gpu_environment();

struct GpuBenchConfig {
  int device = 0;
  std::uint64_t seed = 1;
  int warmup = 2;
  int repetitions = 10;
};

struct TimedSize {
  std::uint64_t bytes = 0;
  std::vector<double> seconds;  // one per timed repetition
};

// Device-to-device copies of `sizes` bytes (source and destination distinct buffers).
std::vector<TimedSize> gpu_hbm_copy(const GpuBenchConfig& c, const std::vector<std::uint64_t>& sizes);

enum class GatherSource {
  hbm,     // table in device memory, gather kernel
  uva,     // table in pinned host memory, the same kernel reading it over the host link (zero copy)
  staged,  // table in pinned host memory, CPU threads gather into pinned staging, one H2D copy
};
struct GpuGatherCase {
  std::uint32_t row_bytes = 264;  // multiple of 8
  IndexDistribution distribution = IndexDistribution::uniform;
  std::vector<std::uint64_t> batch_rows;  // timed batch sizes
  // Row indices into a table of table_bytes / row_bytes rows, at least 2 x max(batch_rows):
  // successive repetitions take successive windows so that no batch repeats the last one's rows.
  std::vector<std::uint64_t> indices;
};
struct GpuGatherPoint {
  std::uint32_t row_bytes = 0;
  IndexDistribution distribution = IndexDistribution::uniform;
  std::uint64_t rows = 0;
  std::vector<double> seconds;
};
std::vector<GpuGatherPoint> gpu_gather(const GpuBenchConfig& c, GatherSource source, std::uint64_t table_bytes,
                                       const std::vector<GpuGatherCase>& cases, int cpu_threads);

struct HostLinkRun {
  std::vector<TimedSize> h2d;
  std::vector<TimedSize> d2h;
};
HostLinkRun gpu_host_link(const GpuBenchConfig& c, const std::vector<std::uint64_t>& sizes);

// Y[m x n] = X[m x k] * W[n x k]^T: m tokens, k input features, n output features.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
};
struct GemmPointResult {
  Precision precision = Precision::bf16;
  GemmShape shape;
  std::vector<double> seconds;
  double relative_error = 0.0;  // sampled outputs against the CPU reference
};
struct GemmRun {
  std::string library;  // "cuBLASLt 13.0.0"
  std::vector<GemmPointResult> points;
  std::vector<std::string> skipped;  // "fp8 m=1 n=2304 k=5120: no cuBLASLt algorithm"
};
GemmRun gpu_gemm(const GpuBenchConfig& c, const std::vector<GemmShape>& shapes,
                 const std::vector<Precision>& precisions);

// Decode attention proxy: grouped-query attention over a bf16 KV cache, one query token per
// sequence; every K and V byte is read once per call.
struct AttentionCase {
  std::int64_t batch = 1;
  std::int64_t context = 1024;
};
struct AttentionPointResult {
  AttentionCase c;
  std::uint64_t kv_bytes = 0;
  std::vector<double> seconds;
  double relative_error = 0.0;
};
struct AttentionRun {
  std::string kernel;
  int kv_heads = 0;
  int q_heads_per_kv = 0;
  int head_dim = 0;
  std::vector<AttentionPointResult> points;
};
AttentionRun gpu_attention_decode(const GpuBenchConfig& c, const std::vector<AttentionCase>& cases, int kv_heads);

// The fixed cost of a kernel. Two CUDA graphs of `kernels` back-to-back launches on one stream:
// empty kernels, and kernels that each RMS-normalise one row of `row_floats` floats read from the
// previous kernel's output (scaled by a weight row), the shape of a norm or activation at batch 1.
// Each graph launch is timed whole. The chained row is checked against a CPU reference.
struct KernelLaunchRun {
  int kernels = 0;
  std::uint32_t row_floats = 0;
  std::vector<double> empty_seconds;  // one per timed graph launch
  std::vector<double> tiny_seconds;
};
KernelLaunchRun gpu_kernel_launch(const GpuBenchConfig& c, int kernels, std::uint32_t row_floats);

struct PeerPairResult {
  int src = 0;
  int dst = 0;
  std::uint64_t bytes = 0;
  std::vector<double> seconds;
};
struct CollectivesRun {
  int gpus = 0;
  bool measured = false;
  std::string reason;  // when not measured (one GPU, no peer access)
  std::string all_reduce_algorithm;
  std::vector<TimedSize> p2p;         // device 0 -> device 1
  std::vector<PeerPairResult> pairs;  // every ordered pair, at the largest size
  std::vector<TimedSize> all_reduce;  // bytes per GPU
};
CollectivesRun gpu_collectives(const GpuBenchConfig& c, const std::vector<std::uint64_t>& sizes);

}  // namespace engramsim::calibration
