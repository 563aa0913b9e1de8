// Shared helpers for the CUDA calibration benchmarks: error checks that throw, RAII buffers,
// event timing, and the deterministic data pattern both the GPU and the CPU reference compute.
//
// Data pattern: word w of a buffer seeded with s holds mix64(s, w). Kernels fill device buffers
// with it and CPU references recompute any word from its index, so correctness checks need no host
// copy of multi-GiB tables.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "calibration/gpu_benchmarks.hpp"

namespace engramsim::calibration::cuda {

inline void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                             cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}
#define ENGRAMSIM_CUDA(call) ::engramsim::calibration::cuda::check((call), #call, __FILE__, __LINE__)
// After every launch: launch-configuration errors surface here, execution errors at the next sync.
#define ENGRAMSIM_CUDA_LAUNCHED(name) \
  ::engramsim::calibration::cuda::check(cudaGetLastError(), name, __FILE__, __LINE__)

__host__ __device__ inline std::uint64_t mix64(std::uint64_t seed, std::uint64_t w) {
  std::uint64_t z = seed + (w + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A float in [-1, 1) from the pattern (24 random mantissa bits).
__host__ __device__ inline float pattern_float(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>(static_cast<double>(mix64(seed, i) >> 40) * (1.0 / 8388608.0) - 1.0);
}

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) ENGRAMSIM_CUDA(cudaMalloc(&p_, count * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (p_ != nullptr) cudaFree(p_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  std::size_t count_ = 0;
};

// Page-locked host memory, mapped into the device address space (zero-copy access over the link).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count > 0) ENGRAMSIM_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&p_), count * sizeof(T), cudaHostAllocMapped));
  }
  ~PinnedBuffer() {
    if (p_ != nullptr) cudaFreeHost(p_);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(count_, o.count_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* get() const { return p_; }
  T* device_pointer() const {
    T* d = nullptr;
    ENGRAMSIM_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), p_, 0));
    return d;
  }
  std::size_t size() const { return count_; }

 private:
  T* p_ = nullptr;
  std::size_t count_ = 0;
};

class Stream {
 public:
  Stream() { ENGRAMSIM_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { ENGRAMSIM_CUDA(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class EventPair {
 public:
  EventPair() {
    ENGRAMSIM_CUDA(cudaEventCreate(&a_));
    ENGRAMSIM_CUDA(cudaEventCreate(&b_));
  }
  ~EventPair() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s) { ENGRAMSIM_CUDA(cudaEventRecord(a_, s)); }
  void stop(cudaStream_t s) { ENGRAMSIM_CUDA(cudaEventRecord(b_, s)); }
  double seconds() {
    ENGRAMSIM_CUDA(cudaEventSynchronize(b_));
    float ms = 0.0f;
    ENGRAMSIM_CUDA(cudaEventElapsedTime(&ms, a_, b_));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaEvent_t a_ = nullptr;
  cudaEvent_t b_ = nullptr;
};

// Runs `launch(i)` warmup + repetitions times on `stream`, timing each timed one with events.
template <class F>
std::vector<double> time_on_stream(cudaStream_t stream, int warmup, int repetitions, F launch) {
  EventPair ev;
  for (int i = 0; i < warmup; ++i) launch(i);
  ENGRAMSIM_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(repetitions));
  for (int i = 0; i < repetitions; ++i) {
    ev.start(stream);
    launch(warmup + i);
    ev.stop(stream);
    out.push_back(ev.seconds());
  }
  return out;
}

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    ENGRAMSIM_CUDA(cudaGetDevice(&previous_));
    ENGRAMSIM_CUDA(cudaSetDevice(device));
  }
  ~DeviceGuard() { cudaSetDevice(previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

// Grid size for a grid-stride loop over `n` items: enough blocks to fill the device a few times.
inline unsigned grid_for(std::uint64_t n, unsigned block, int sm_count) {
  const std::uint64_t want = (n + block - 1) / block;
  const std::uint64_t cap = static_cast<std::uint64_t>(std::max(1, sm_count)) * 16;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(want, cap)));
}

inline int sm_count(int device) {
  int v = 0;
  ENGRAMSIM_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device));
  return v;
}

// Fills `words` 8-byte words at `p` with mix64(seed, first_word + i).
void fill_pattern(std::uint64_t* p, std::uint64_t words, std::uint64_t seed, std::uint64_t first_word,
                  cudaStream_t stream, int sms);
// Fills `count` elements with pattern_float(seed, i) rounded to the element type (round to
// nearest even; fp8 e4m3 saturating). The CPU references round with the same conversions.
void fill_bf16(void* p, std::uint64_t count, std::uint64_t seed, cudaStream_t stream, int sms);
void fill_fp8_e4m3(void* p, std::uint64_t count, std::uint64_t seed, cudaStream_t stream, int sms);
float bf16_round_host(float x);
float fp8_e4m3_round_host(float x);

}  // namespace engramsim::calibration::cuda
