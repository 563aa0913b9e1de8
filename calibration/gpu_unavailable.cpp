// Built instead of calibration/cuda/*.cu when CMake found no nvcc: the probe reports that, and the
// benchmark entry points, which callers reach only after a successful probe, throw.
#include <stdexcept>

#include "calibration/gpu_benchmarks.hpp"

namespace engramsim::calibration {
namespace {
[[noreturn]] void no_cuda() {
  throw std::logic_error("engramsim was built without CUDA (nvcc not found at configure time)");
}
}  // namespace

GpuEnvironment probe_gpu_environment() {
  GpuEnvironment e;
  e.reason = "built without CUDA (nvcc not found at configure time)";
  return e;
}

std::vector<TimedSize> gpu_hbm_copy(const GpuBenchConfig&, const std::vector<std::uint64_t>&) { no_cuda(); }
std::vector<GpuGatherPoint> gpu_gather(const GpuBenchConfig&, GatherSource, std::uint64_t,
                                       const std::vector<GpuGatherCase>&, int) {
  no_cuda();
}
HostLinkRun gpu_host_link(const GpuBenchConfig&, const std::vector<std::uint64_t>&) { no_cuda(); }
GemmRun gpu_gemm(const GpuBenchConfig&, const std::vector<GemmShape>&, const std::vector<Precision>&) { no_cuda(); }
AttentionRun gpu_attention_decode(const GpuBenchConfig&, const std::vector<AttentionCase>&, int) { no_cuda(); }
CollectivesRun gpu_collectives(const GpuBenchConfig&, const std::vector<std::uint64_t>&) { no_cuda(); }
KernelLaunchRun gpu_kernel_launch(const GpuBenchConfig&, int, std::uint32_t) { no_cuda(); }

}  // namespace engramsim::calibration
