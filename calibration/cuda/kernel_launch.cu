// The fixed cost of a kernel: CUDA graphs of back-to-back launches on one stream, timed whole.
// One graph holds empty kernels (what a launch costs by itself), the other a chain of tiny RMSNorm
// kernels, each reading the row the previous one wrote (what a kernel with almost no work costs:
// grid launch, a few rounds of dependent memory accesses, a block reduction, drain). The chain's
// final row is checked against the same chain computed on the CPU.
#include <cmath>

#include "calibration/cuda/cuda_common.cuh"

namespace engramsim::calibration {
namespace cuda {
namespace {

constexpr unsigned kBlock = 256;
constexpr float kEps = 1e-6f;

__global__ void empty_kernel() {}

// out[i] = in[i] / rms(in) * w[i], one block over the whole row.
__global__ void rms_row_kernel(const float* in, const float* w, float* out, std::uint32_t n) {
  __shared__ float partial[kBlock];
  float sum = 0.0f;
  for (std::uint32_t i = threadIdx.x; i < n; i += kBlock) sum += in[i] * in[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float scale = rsqrtf(partial[0] / static_cast<float>(n) + kEps);
  for (std::uint32_t i = threadIdx.x; i < n; i += kBlock) out[i] = in[i] * scale * w[i];
}

// The same chain on the CPU, in double: the GPU's float result must stay within a relative 1e-3.
std::vector<double> reference_chain(const std::vector<float>& x0, const std::vector<float>& w, int steps) {
  std::vector<double> x(x0.begin(), x0.end());
  for (int s = 0; s < steps; ++s) {
    double sum = 0.0;
    for (const double v : x) sum += v * v;
    const double scale = 1.0 / std::sqrt(sum / static_cast<double>(x.size()) + kEps);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = x[i] * scale * w[i];
  }
  return x;
}

class Graph {
 public:
  // Captures `record(stream)` into a graph and instantiates it.
  template <class F>
  Graph(cudaStream_t stream, F record) {
    ENGRAMSIM_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    record(stream);
    ENGRAMSIM_CUDA(cudaStreamEndCapture(stream, &graph_));
    ENGRAMSIM_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  ~Graph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  void launch(cudaStream_t stream) const { ENGRAMSIM_CUDA(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace
}  // namespace cuda

KernelLaunchRun gpu_kernel_launch(const GpuBenchConfig& c, int kernels, std::uint32_t row_floats) {
  using namespace cuda;
  if (kernels < 1 || row_floats < 1)
    throw std::invalid_argument("kernel launch benchmark: kernels and row size must be >= 1");
  DeviceGuard guard(c.device);
  Stream stream;
  KernelLaunchRun r;
  r.kernels = kernels;
  r.row_floats = row_floats;

  std::vector<float> x0(row_floats), w(row_floats);
  for (std::uint32_t i = 0; i < row_floats; ++i) {
    x0[i] = pattern_float(c.seed, i);
    w[i] = 1.0f + 0.01f * pattern_float(c.seed ^ 0x77ULL, i);  // [0.99, 1.01): the row keeps its spread over the chain
  }
  DeviceBuffer<float> a(row_floats), b(row_floats), dw(row_floats);
  ENGRAMSIM_CUDA(cudaMemcpyAsync(dw.get(), w.data(), row_floats * sizeof(float), cudaMemcpyHostToDevice, stream.get()));

  const Graph empty(stream.get(), [&](cudaStream_t s) {
    for (int k = 0; k < kernels; ++k) {
      empty_kernel<<<1, 32, 0, s>>>();
      ENGRAMSIM_CUDA_LAUNCHED("empty_kernel");
    }
  });
  // Ping-pong between a and b: kernel k reads what kernel k-1 wrote.
  const Graph tiny(stream.get(), [&](cudaStream_t s) {
    for (int k = 0; k < kernels; ++k) {
      const float* in = k % 2 == 0 ? a.get() : b.get();
      float* out = k % 2 == 0 ? b.get() : a.get();
      rms_row_kernel<<<1, kBlock, 0, s>>>(in, dw.get(), out, row_floats);
      ENGRAMSIM_CUDA_LAUNCHED("rms_row_kernel");
    }
  });

  r.empty_seconds = time_on_stream(stream.get(), c.warmup, c.repetitions, [&](int) { empty.launch(stream.get()); });
  // The chain starts from x0; the timed launches continue it (the row stays normalised), and the
  // checked launch restarts it so that its result is one chain of `kernels` steps.
  const auto reset = [&] {
    ENGRAMSIM_CUDA(
        cudaMemcpyAsync(a.get(), x0.data(), row_floats * sizeof(float), cudaMemcpyHostToDevice, stream.get()));
  };
  reset();
  r.tiny_seconds = time_on_stream(stream.get(), c.warmup, c.repetitions, [&](int) { tiny.launch(stream.get()); });
  reset();
  tiny.launch(stream.get());
  std::vector<float> got(row_floats);
  const float* last = kernels % 2 == 1 ? b.get() : a.get();
  ENGRAMSIM_CUDA(cudaMemcpyAsync(got.data(), last, row_floats * sizeof(float), cudaMemcpyDeviceToHost, stream.get()));
  stream.sync();
  const std::vector<double> want = reference_chain(x0, w, kernels);
  double err = 0.0, norm = 0.0;
  for (std::uint32_t i = 0; i < row_floats; ++i) {
    if (!std::isfinite(got[i]))
      throw GpuCorrectnessError("kernel launch: tiny-kernel chain produced a non-finite value at " + std::to_string(i));
    err += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  const double rel = std::sqrt(err / std::max(norm, 1e-300));
  if (!(rel < 1e-3))
    throw GpuCorrectnessError("kernel launch: tiny-kernel chain off the CPU reference by a relative " +
                              std::to_string(rel));
  return r;
}

}  // namespace engramsim::calibration
