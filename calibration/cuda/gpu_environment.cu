// Probing the CUDA environment (never throws) and the shared fill kernel.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "calibration/cuda/cuda_common.cuh"

namespace engramsim::calibration {
namespace {

std::string version_string(int v) {
  // CUDA encodes versions as 1000 * major + 10 * minor.
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// The kernel module's version ("580.159.03") from /proc, which needs no NVML; empty if absent.
std::string kernel_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  std::istringstream ss(line);
  std::string tok;
  while (ss >> tok) {
    int dots = 0;
    bool ok = !tok.empty() && std::isdigit(static_cast<unsigned char>(tok[0]));
    for (const char c : tok) {
      if (c == '.')
        ++dots;
      else if (!std::isdigit(static_cast<unsigned char>(c)))
        ok = false;
    }
    if (ok && dots >= 1) return tok;
  }
  return "";
}

}  // namespace

GpuEnvironment probe_gpu_environment() {
  GpuEnvironment e;
  e.compiled = true;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) e.runtime_version = version_string(runtime);
  int driver = 0;
  const cudaError_t de = cudaDriverGetVersion(&driver);
  if (de != cudaSuccess || driver == 0) {
    e.reason = "no CUDA driver on this machine (no GPU, or the NVIDIA driver is not installed)";
    return e;
  }
  const std::string module = kernel_driver_version();
  e.driver_version = module.empty() ? version_string(driver) + " (CUDA driver API)" : module;
  const std::size_t lt = cublasLtGetVersion();
  e.cublas_version =
      std::to_string(lt / 10000) + "." + std::to_string((lt / 100) % 100) + "." + std::to_string(lt % 100);
  int count = 0;
  const cudaError_t ce = cudaGetDeviceCount(&count);
  if (ce != cudaSuccess || count == 0) {
    e.reason = ce != cudaSuccess ? std::string("no usable CUDA device (") + cudaGetErrorString(ce) + ")"
                                 : std::string("no CUDA device");
    cudaGetLastError();  // clear the sticky error from the failed query
    return e;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    GpuDeviceInfo info;
    info.ordinal = d;
    info.name = p.name;
    info.sm_count = p.multiProcessorCount;
    info.cc_major = p.major;
    info.cc_minor = p.minor;
    info.memory_bytes = p.totalGlobalMem;
    info.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
    e.devices.push_back(info);
  }
  e.available = !e.devices.empty();
  if (!e.available) e.reason = "CUDA devices found but none could be queried";
  return e;
}

namespace cuda {
namespace {
__global__ void fill_kernel(std::uint64_t* p, std::uint64_t words, std::uint64_t seed, std::uint64_t first) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < words; i += stride)
    p[i] = mix64(seed, first + i);
}
}  // namespace

void fill_pattern(std::uint64_t* p, std::uint64_t words, std::uint64_t seed, std::uint64_t first_word,
                  cudaStream_t stream, int sms) {
  fill_kernel<<<grid_for(words, 256, sms), 256, 0, stream>>>(p, words, seed, first_word);
  ENGRAMSIM_CUDA_LAUNCHED("fill_kernel");
}

namespace {
__global__ void fill_bf16_kernel(__nv_bfloat16* p, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    p[i] = __float2bfloat16_rn(pattern_float(seed, i));
}
__global__ void fill_fp8_kernel(__nv_fp8_e4m3* p, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    p[i] = __nv_fp8_e4m3(pattern_float(seed, i));
}
}  // namespace

void fill_bf16(void* p, std::uint64_t count, std::uint64_t seed, cudaStream_t stream, int sms) {
  fill_bf16_kernel<<<grid_for(count, 256, sms), 256, 0, stream>>>(static_cast<__nv_bfloat16*>(p), count, seed);
  ENGRAMSIM_CUDA_LAUNCHED("fill_bf16_kernel");
}

void fill_fp8_e4m3(void* p, std::uint64_t count, std::uint64_t seed, cudaStream_t stream, int sms) {
  fill_fp8_kernel<<<grid_for(count, 256, sms), 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(p), count, seed);
  ENGRAMSIM_CUDA_LAUNCHED("fill_fp8_kernel");
}

float bf16_round_host(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
float fp8_e4m3_round_host(float x) { return static_cast<float>(__nv_fp8_e4m3(x)); }

}  // namespace cuda
}  // namespace engramsim::calibration
