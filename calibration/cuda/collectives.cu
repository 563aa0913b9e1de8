// Multi-GPU transfers for alpha-beta fits: peer-to-peer copies (a size sweep GPU 0 -> 1, and every
// ordered pair at the largest size), and a ring all-reduce over P2P (reduce-scatter then
// all-gather, each GPU pulling a chunk from its left neighbour per step, steps separated by a host
// barrier). Needs 2+ GPUs with peer access; otherwise it reports why and measures nothing.
#include <chrono>

#include "calibration/cuda/cuda_common.cuh"
#include "core/rng.hpp"

namespace engramsim::calibration {
namespace cuda {
namespace {

constexpr std::uint64_t kSeed = 0xc011ec7000000001ULL;

// Small integers, so that sums over up to 8 GPUs are exact in float.
__host__ __device__ inline float ring_value(int gpu, std::uint64_t i) {
  return static_cast<float>(static_cast<int>(mix64(kSeed + static_cast<std::uint64_t>(gpu), i) % 17) - 8);
}

__global__ void ring_init(float* p, std::uint64_t n, int gpu) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    p[i] = ring_value(gpu, i);
}

__global__ void add_from_peer(float* __restrict__ mine, const float* __restrict__ peer, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    mine[i] += peer[i];
}

void enable_peer(int from, int to) {
  DeviceGuard g(from);
  const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();
    return;
  }
  ENGRAMSIM_CUDA(e);
}

// Why the ring cannot run: a GPU that cannot reach its left neighbour peer-to-peer; "" when every
// GPU can.
std::string ring_peer_problem(int n) {
  for (int r = 0; r < n; ++r) {
    const int left = (r + n - 1) % n;
    int ok = 0;
    ENGRAMSIM_CUDA(cudaDeviceCanAccessPeer(&ok, r, left));
    if (!ok) return "GPU " + std::to_string(r) + " cannot access GPU " + std::to_string(left) + " peer-to-peer";
  }
  return "";
}

// One buffer and stream per GPU, used by the peer copies and then by the all-reduce.
struct GpuRing {
  GpuRing(int gpus, std::uint64_t bytes) : n(gpus), max_bytes(bytes) {
    for (int r = 0; r < n; ++r) {
      DeviceGuard g(r);
      buf.emplace_back(max_bytes / 4);
      streams.push_back(std::make_unique<Stream>());
      sms.push_back(sm_count(r));
    }
  }

  std::uint64_t* words_of(int r) const {
    return reinterpret_cast<std::uint64_t*>(buf[static_cast<std::size_t>(r)].get());
  }

  // Copies src -> dst of `bytes`, timed on the source GPU's stream, then checks sampled words.
  std::vector<double> peer_copies(const GpuBenchConfig& c, int src, int dst, std::uint64_t bytes) const {
    {
      DeviceGuard g(src);
      fill_pattern(words_of(src), max_bytes / 8, kSeed + static_cast<std::uint64_t>(src), 0,
                   streams[static_cast<std::size_t>(src)]->get(), sms[static_cast<std::size_t>(src)]);
      streams[static_cast<std::size_t>(src)]->sync();
    }
    {
      DeviceGuard g(dst);
      ENGRAMSIM_CUDA(cudaMemset(words_of(dst), 0xff, max_bytes));
    }
    DeviceGuard g(src);
    const cudaStream_t s = streams[static_cast<std::size_t>(src)]->get();
    auto seconds = time_on_stream(s, c.warmup, c.repetitions, [&](int) {
      ENGRAMSIM_CUDA(cudaMemcpyPeerAsync(words_of(dst), dst, words_of(src), src, bytes, s));
    });
    RngStream rng(c.seed, "p2p/" + std::to_string(src) + "/" + std::to_string(dst) + "/" + std::to_string(bytes));
    for (int i = 0; i < 64; ++i) {
      const auto w = static_cast<std::uint64_t>(rng.uniform_int(0, static_cast<std::int64_t>(bytes / 8) - 1));
      std::uint64_t got = 0;
      ENGRAMSIM_CUDA(cudaMemcpy(&got, words_of(dst) + w, 8, cudaMemcpyDefault));
      if (got != mix64(kSeed + static_cast<std::uint64_t>(src), w))
        throw GpuCorrectnessError("P2P copy GPU " + std::to_string(src) + " -> " + std::to_string(dst) + " of " +
                                  std::to_string(bytes) + " bytes: word " + std::to_string(w) + " differs");
    }
    return seconds;
  }

  void barrier() const {
    for (int r = 0; r < n; ++r) {
      DeviceGuard g(r);
      streams[static_cast<std::size_t>(r)]->sync();
    }
  }

  // Every GPU's first `elems` elements set to its ring values, then a barrier.
  void init_values(std::uint64_t elems) const {
    for (int r = 0; r < n; ++r) {
      DeviceGuard g(r);
      ring_init<<<grid_for(elems, 256, sms[static_cast<std::size_t>(r)]), 256, 0,
                  streams[static_cast<std::size_t>(r)]->get()>>>(buf[static_cast<std::size_t>(r)].get(), elems, r);
      ENGRAMSIM_CUDA_LAUNCHED("ring_init");
    }
    barrier();
  }

  // Ring all-reduce of the first `elems` elements: reduce-scatter, then all-gather.
  void all_reduce(std::uint64_t elems) const {
    const std::uint64_t chunk = elems / static_cast<std::uint64_t>(n);
    for (int step = 0; step < n - 1; ++step) {
      for (int r = 0; r < n; ++r) {
        DeviceGuard g(r);
        const int left = (r + n - 1) % n;
        const auto ch = static_cast<std::uint64_t>((r - step - 1 + 2 * n) % n);
        add_from_peer<<<grid_for(chunk, 256, sms[static_cast<std::size_t>(r)]), 256, 0,
                        streams[static_cast<std::size_t>(r)]->get()>>>(
            buf[static_cast<std::size_t>(r)].get() + ch * chunk, buf[static_cast<std::size_t>(left)].get() + ch * chunk,
            chunk);
        ENGRAMSIM_CUDA_LAUNCHED("add_from_peer");
      }
      barrier();
    }
    for (int step = 0; step < n - 1; ++step) {
      for (int r = 0; r < n; ++r) {
        DeviceGuard g(r);
        const int left = (r + n - 1) % n;
        const auto ch = static_cast<std::uint64_t>((r - step + 2 * n) % n);
        ENGRAMSIM_CUDA(cudaMemcpyAsync(buf[static_cast<std::size_t>(r)].get() + ch * chunk,
                                       buf[static_cast<std::size_t>(left)].get() + ch * chunk, chunk * 4,
                                       cudaMemcpyDefault, streams[static_cast<std::size_t>(r)]->get()));
      }
      barrier();
    }
  }

  // Sampled elements of every GPU's buffer against the sum of all GPUs' ring values.
  void check_all_reduce(const GpuBenchConfig& c, std::uint64_t bytes, std::uint64_t elems) const {
    RngStream rng(c.seed, "allreduce/" + std::to_string(bytes));
    for (int i = 0; i < 64; ++i) {
      const auto w = static_cast<std::uint64_t>(rng.uniform_int(0, static_cast<std::int64_t>(elems) - 1));
      float want = 0.0f;
      for (int r = 0; r < n; ++r) want += ring_value(r, w);
      for (int r = 0; r < n; ++r) {
        float got = 0.0f;
        ENGRAMSIM_CUDA(cudaMemcpy(&got, buf[static_cast<std::size_t>(r)].get() + w, 4, cudaMemcpyDefault));
        if (got != want)
          throw GpuCorrectnessError("ring all-reduce of " + std::to_string(bytes) + " bytes: GPU " + std::to_string(r) +
                                    " element " + std::to_string(w) + " is " + std::to_string(got) + ", expected " +
                                    std::to_string(want));
      }
    }
  }

  // Timing: host clock over the whole multi-GPU operation (values keep growing; only time matters now).
  TimedSize time_all_reduce(const GpuBenchConfig& c, std::uint64_t elems) const {
    TimedSize t{elems * 4, {}};
    for (int rep = 0; rep < c.warmup + c.repetitions; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      all_reduce(elems);
      const auto t1 = std::chrono::steady_clock::now();
      if (rep >= c.warmup) t.seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    }
    return t;
  }

  int n;
  std::uint64_t max_bytes;
  std::vector<DeviceBuffer<float>> buf;
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<int> sms;
};

}  // namespace
}  // namespace cuda

using namespace cuda;

CollectivesRun gpu_collectives(const GpuBenchConfig& c, const std::vector<std::uint64_t>& sizes) {
  CollectivesRun run;
  int count = 0;
  ENGRAMSIM_CUDA(cudaGetDeviceCount(&count));
  run.gpus = std::min(count, 8);
  if (run.gpus < 2) {
    run.reason = "needs 2 or more GPUs (found " + std::to_string(count) + ")";
    return run;
  }
  const int n = run.gpus;
  if (std::string why = ring_peer_problem(n); !why.empty()) {
    run.reason = std::move(why);
    return run;
  }
  for (int r = 0; r < n; ++r) enable_peer(r, (r + n - 1) % n);
  enable_peer(0, 1);
  enable_peer(1, 0);
  run.all_reduce_algorithm = "ring over P2P: reduce-scatter + all-gather, " + std::to_string(2 * (n - 1)) +
                             " steps of one chunk pulled from the left neighbour, host barrier between steps";
  const std::uint64_t max_bytes = *std::max_element(sizes.begin(), sizes.end());

  const GpuRing ring(n, max_bytes);
  for (const std::uint64_t bytes : sizes) run.p2p.push_back({bytes, ring.peer_copies(c, 0, 1, bytes)});
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      int ok = 0;
      ENGRAMSIM_CUDA(cudaDeviceCanAccessPeer(&ok, i, j));
      if (ok) enable_peer(i, j);
      run.pairs.push_back({i, j, max_bytes, ring.peer_copies(c, i, j, max_bytes)});
    }

  // Ring all-reduce.
  for (const std::uint64_t bytes : sizes) {
    const std::uint64_t elems = bytes / 4 / static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
    if (elems == 0) continue;
    ring.init_values(elems);
    ring.all_reduce(elems);
    ring.check_all_reduce(c, bytes, elems);
    run.all_reduce.push_back(ring.time_all_reduce(c, elems));
  }
  run.measured = !run.all_reduce.empty();
  if (!run.measured) run.reason = "all sizes too small to split over the GPUs";
  return run;
}

}  // namespace engramsim::calibration
