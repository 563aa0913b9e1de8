// HBM copies, Engram row gathers (from HBM, zero-copy from pinned host memory, and CPU-staged),
// and host-link copies. Each checks what it moved against the data pattern on the CPU.
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include "calibration/cuda/cuda_common.cuh"
#include "core/rng.hpp"

namespace engramsim::calibration {
namespace cuda {
namespace {

constexpr std::uint64_t kTableSeed = 0x5eed7ab1e0000001ULL;
constexpr std::uint64_t kOutputCap = 512ull << 20;  // largest gather output / staging buffer

__global__ void read_words_kernel(const std::uint64_t* src, const std::uint64_t* pos, std::uint64_t* out,
                                  std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = src[pos[i]];
}

// Reads src[pos[i]] for every i through the device (src may be device or mapped host memory).
std::vector<std::uint64_t> read_words(const std::uint64_t* src, const std::vector<std::uint64_t>& pos, cudaStream_t s) {
  DeviceBuffer<std::uint64_t> dpos(pos.size());
  DeviceBuffer<std::uint64_t> dout(pos.size());
  ENGRAMSIM_CUDA(cudaMemcpyAsync(dpos.get(), pos.data(), pos.size() * 8, cudaMemcpyHostToDevice, s));
  const auto n = static_cast<std::uint32_t>(pos.size());
  read_words_kernel<<<(n + 255) / 256, 256, 0, s>>>(src, dpos.get(), dout.get(), n);
  ENGRAMSIM_CUDA_LAUNCHED("read_words_kernel");
  std::vector<std::uint64_t> out(pos.size());
  ENGRAMSIM_CUDA(cudaMemcpyAsync(out.data(), dout.get(), pos.size() * 8, cudaMemcpyDeviceToHost, s));
  ENGRAMSIM_CUDA(cudaStreamSynchronize(s));
  return out;
}

// Positions to check in a buffer of `words`: both ends and `count` random words in between.
std::vector<std::uint64_t> sample_positions(std::uint64_t words, std::size_t count, std::uint64_t seed) {
  std::vector<std::uint64_t> pos = {0, words - 1};
  RngStream rng(seed, "check");
  for (std::size_t i = 0; i < count; ++i)
    pos.push_back(static_cast<std::uint64_t>(rng.uniform_int(0, static_cast<std::int64_t>(words) - 1)));
  return pos;
}

void host_fill(std::uint64_t* p, std::uint64_t words, std::uint64_t seed) {
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      const std::uint64_t lo = words * t / threads;
      const std::uint64_t hi = words * (t + 1) / threads;
      for (std::uint64_t w = lo; w < hi; ++w) p[w] = mix64(seed, w);
    });
  }
  for (auto& th : pool) th.join();
}

template <class Word>
__global__ void gather_kernel(const Word* __restrict__ table, const std::uint64_t* __restrict__ idx,
                              Word* __restrict__ out, std::uint32_t rows, std::uint32_t words_per_row) {
  // One output word per thread step: consecutive threads read consecutive words of a row
  // (coalesced), and threads of one row share its index (a broadcast load).
  const std::uint32_t total = rows * words_per_row;
  const std::uint32_t stride = gridDim.x * blockDim.x;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::uint32_t r = i / words_per_row;
    const std::uint32_t j = i - r * words_per_row;
    out[i] = table[idx[r] * words_per_row + j];
  }
}

void launch_gather(const void* table, const std::uint64_t* idx, void* out, std::uint32_t rows, std::uint32_t row_bytes,
                   cudaStream_t s, int sms) {
  if (row_bytes % 16 == 0) {
    const std::uint32_t wpr = row_bytes / 16;
    gather_kernel<uint4><<<grid_for(std::uint64_t{rows} * wpr, 256, sms), 256, 0, s>>>(
        static_cast<const uint4*>(table), idx, static_cast<uint4*>(out), rows, wpr);
  } else {
    const std::uint32_t wpr = row_bytes / 8;
    gather_kernel<std::uint64_t><<<grid_for(std::uint64_t{rows} * wpr, 256, sms), 256, 0, s>>>(
        static_cast<const std::uint64_t*>(table), idx, static_cast<std::uint64_t*>(out), rows, wpr);
  }
  ENGRAMSIM_CUDA_LAUNCHED("gather_kernel");
}

// Host threads that spin between jobs, so that a small staged batch is not timed with thread
// start-up in it. The caller's thread takes part 0.
class SpinPool {
 public:
  explicit SpinPool(int threads) : n_(std::max(1, threads)) {
    for (int t = 1; t < n_; ++t) workers_.emplace_back([this, t] { loop(t); });
  }
  ~SpinPool() {
    stop_.store(true);
    generation_.fetch_add(1);
    for (auto& w : workers_) w.join();
  }
  SpinPool(const SpinPool&) = delete;
  SpinPool& operator=(const SpinPool&) = delete;
  int size() const { return n_; }
  void run(const std::function<void(int)>& job) {
    job_ = &job;
    done_.store(0);
    generation_.fetch_add(1);
    job(0);
    while (done_.load() < n_ - 1) std::this_thread::yield();
  }

 private:
  void loop(int t) {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t g;
      while ((g = generation_.load()) == seen) std::this_thread::yield();
      seen = g;
      if (stop_.load()) return;
      (*job_)(t);
      done_.fetch_add(1);
    }
  }
  int n_;
  std::vector<std::thread> workers_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> stop_{false};
  const std::function<void(int)>* job_ = nullptr;
};

void check_gather(const std::uint64_t* out_dev, const std::vector<std::uint64_t>& idx, std::uint64_t first,
                  std::uint32_t rows, std::uint32_t row_bytes, std::uint64_t seed, cudaStream_t s, const char* what) {
  const std::uint32_t wpr = row_bytes / 8;
  const std::uint64_t out_words = std::uint64_t{rows} * wpr;
  const auto pos = sample_positions(out_words, 4096, seed ^ rows ^ row_bytes);
  const auto got = read_words(out_dev, pos, s);
  for (std::size_t i = 0; i < pos.size(); ++i) {
    const std::uint64_t r = pos[i] / wpr;
    const std::uint64_t j = pos[i] % wpr;
    const std::uint64_t want = mix64(kTableSeed, idx[first + r] * wpr + j);
    if (got[i] != want) {
      throw GpuCorrectnessError(std::string(what) + " gather: output row " + std::to_string(r) + " word " +
                                std::to_string(j) + " differs from the CPU reference (row " +
                                std::to_string(row_bytes) + " B, " + std::to_string(rows) + " rows)");
    }
  }
}

// Fills the table where the source reads it: HBM (dtable), or pinned host memory mapped into the
// device's address space (htable). Returns the address the gather kernel reads.
const void* place_table(GatherSource source, std::uint64_t table_words, DeviceBuffer<std::uint64_t>& dtable,
                        PinnedBuffer<std::uint64_t>& htable, const Stream& s, int sms) {
  if (source == GatherSource::hbm) {
    dtable = DeviceBuffer<std::uint64_t>(table_words);
    fill_pattern(dtable.get(), table_words, kTableSeed, 0, s.get(), sms);
    return dtable.get();
  }
  htable = PinnedBuffer<std::uint64_t>(table_words);
  host_fill(htable.get(), table_words, kTableSeed);
  return htable.device_pointer();
}

// Throws when the case's rows are not whole words or an index is beyond the table.
void check_gather_case(const GpuGatherCase& k, std::uint64_t table_words) {
  if (k.row_bytes == 0 || k.row_bytes % 8 != 0) throw std::invalid_argument("gather rows must be multiples of 8 bytes");
  const std::uint64_t table_rows = table_words * 8 / k.row_bytes;
  for (const std::uint64_t i : k.indices)
    if (i >= table_rows) throw std::invalid_argument("gather index beyond the table");
}

// What every gather point of a run shares: the table, the index and output buffers, the stream, and
// for staged gathers the pinned staging buffer and the CPU threads.
struct GatherBench {
  const GpuBenchConfig& c;
  GatherSource source;
  const void* table_for_kernel;
  const PinnedBuffer<std::uint64_t>& htable;
  const DeviceBuffer<std::uint64_t>& out;
  const DeviceBuffer<std::uint64_t>& didx;
  const PinnedBuffer<std::uint64_t>& staging;
  const std::unique_ptr<SpinPool>& pool;
  const Stream& s;
  int sms;
  const char* what;

  // Staged gathers of `rows` rows starting at first_of(rep). Host work is part of the cost: time on
  // the host clock, CPU gather + copy + sync. Sets last_rep to the last repetition run.
  template <class F>
  std::vector<double> time_staged(const GpuGatherCase& k, std::uint32_t rows, std::uint64_t out_bytes, F first_of,
                                  int& last_rep) const {
    std::vector<double> seconds;
    const unsigned char* base = reinterpret_cast<const unsigned char*>(htable.get());
    unsigned char* stage = reinterpret_cast<unsigned char*>(staging.get());
    for (int rep = 0; rep < c.warmup + c.repetitions; ++rep) {
      const std::uint64_t first = first_of(rep);
      const auto t0 = std::chrono::steady_clock::now();
      pool->run([&](int t) {
        const std::uint64_t lo = std::uint64_t{rows} * t / pool->size();
        const std::uint64_t hi = std::uint64_t{rows} * (t + 1) / pool->size();
        for (std::uint64_t r = lo; r < hi; ++r)
          std::memcpy(stage + r * k.row_bytes, base + k.indices[first + r] * k.row_bytes, k.row_bytes);
      });
      ENGRAMSIM_CUDA(cudaMemcpyAsync(out.get(), stage, out_bytes, cudaMemcpyHostToDevice, s.get()));
      ENGRAMSIM_CUDA(cudaStreamSynchronize(s.get()));
      const auto t1 = std::chrono::steady_clock::now();
      if (rep >= c.warmup) seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
      last_rep = rep;
    }
    return seconds;
  }

  // One batch size of one case (its indices already in didx): the timed gathers, then the last
  // batch checked against the CPU reference.
  GpuGatherPoint point(const GpuGatherCase& k, std::uint32_t rows) const {
    const std::uint64_t windows = k.indices.size() - rows + 1;
    auto first_of = [&](int rep) { return (static_cast<std::uint64_t>(rep) * rows) % windows; };
    const std::uint64_t out_bytes = std::uint64_t{rows} * k.row_bytes;
    ENGRAMSIM_CUDA(cudaMemsetAsync(out.get(), 0xff, out_bytes, s.get()));
    GpuGatherPoint p;
    p.row_bytes = k.row_bytes;
    p.distribution = k.distribution;
    p.rows = rows;
    int last_rep = 0;
    if (source != GatherSource::staged) {
      p.seconds = time_on_stream(s.get(), c.warmup, c.repetitions, [&](int rep) {
        last_rep = rep;
        launch_gather(table_for_kernel, didx.get() + first_of(rep), out.get(), rows, k.row_bytes, s.get(), sms);
      });
    } else {
      p.seconds = time_staged(k, rows, out_bytes, first_of, last_rep);
    }
    check_gather(out.get(), k.indices, first_of(last_rep), rows, k.row_bytes, c.seed, s.get(), what);
    return p;
  }
};

}  // namespace
}  // namespace cuda

using namespace cuda;

std::vector<TimedSize> gpu_hbm_copy(const GpuBenchConfig& c, const std::vector<std::uint64_t>& sizes) {
  DeviceGuard guard(c.device);
  const int sms = sm_count(c.device);
  const std::uint64_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
  const std::uint64_t words = max_bytes / 8;
  DeviceBuffer<std::uint64_t> src(words), dst(words);
  Stream s;
  fill_pattern(src.get(), words, kTableSeed, 0, s.get(), sms);
  std::vector<TimedSize> out;
  for (const std::uint64_t bytes : sizes) {
    ENGRAMSIM_CUDA(cudaMemsetAsync(dst.get(), 0xff, bytes, s.get()));  // poison: unwritten words show
    TimedSize t;
    t.bytes = bytes;
    t.seconds = time_on_stream(s.get(), c.warmup, c.repetitions, [&](int) {
      ENGRAMSIM_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s.get()));
    });
    const auto pos = sample_positions(bytes / 8, 4096, c.seed ^ bytes);
    const auto got = read_words(dst.get(), pos, s.get());
    for (std::size_t i = 0; i < pos.size(); ++i)
      if (got[i] != mix64(kTableSeed, pos[i]))
        throw GpuCorrectnessError("HBM copy of " + std::to_string(bytes) + " bytes: word " + std::to_string(pos[i]) +
                                  " differs from the source pattern");
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<GpuGatherPoint> gpu_gather(const GpuBenchConfig& c, GatherSource source, std::uint64_t table_bytes,
                                       const std::vector<GpuGatherCase>& cases, int cpu_threads) {
  DeviceGuard guard(c.device);
  const int sms = sm_count(c.device);
  const std::uint64_t table_words = table_bytes / 8;
  DeviceBuffer<std::uint64_t> dtable;
  PinnedBuffer<std::uint64_t> htable;
  Stream s;
  const void* table_for_kernel = place_table(source, table_words, dtable, htable, s, sms);
  std::uint64_t max_pool = 0;
  for (const auto& k : cases) max_pool = std::max<std::uint64_t>(max_pool, k.indices.size());
  DeviceBuffer<std::uint64_t> out(kOutputCap / 8);
  DeviceBuffer<std::uint64_t> didx(max_pool);
  PinnedBuffer<std::uint64_t> staging;
  std::unique_ptr<SpinPool> pool;
  if (source == GatherSource::staged) {
    staging = PinnedBuffer<std::uint64_t>(kOutputCap / 8);
    pool = std::make_unique<SpinPool>(cpu_threads);
  }
  const char* what = source == GatherSource::hbm ? "HBM" : source == GatherSource::uva ? "zero-copy (UVA)" : "staged";
  const GatherBench bench{c, source, table_for_kernel, htable, out, didx, staging, pool, s, sms, what};

  std::vector<GpuGatherPoint> pts;
  for (const auto& k : cases) {
    check_gather_case(k, table_words);
    ENGRAMSIM_CUDA(
        cudaMemcpyAsync(didx.get(), k.indices.data(), k.indices.size() * 8, cudaMemcpyHostToDevice, s.get()));
    for (const std::uint64_t want_rows : k.batch_rows) {
      const std::uint64_t rows64 = std::min<std::uint64_t>(want_rows, kOutputCap / k.row_bytes);
      if (rows64 != want_rows || 2 * rows64 > k.indices.size()) continue;  // beyond the buffers: not a point
      pts.push_back(bench.point(k, static_cast<std::uint32_t>(rows64)));
    }
  }
  return pts;
}

HostLinkRun gpu_host_link(const GpuBenchConfig& c, const std::vector<std::uint64_t>& sizes) {
  DeviceGuard guard(c.device);
  const std::uint64_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
  const std::uint64_t words = max_bytes / 8;
  PinnedBuffer<std::uint64_t> hsrc(words), hdst(words);
  DeviceBuffer<std::uint64_t> dev(words);
  host_fill(hsrc.get(), words, kTableSeed);
  Stream s;
  HostLinkRun r;
  for (const std::uint64_t bytes : sizes) {
    TimedSize up{bytes, {}};
    up.seconds = time_on_stream(s.get(), c.warmup, c.repetitions, [&](int) {
      ENGRAMSIM_CUDA(cudaMemcpyAsync(dev.get(), hsrc.get(), bytes, cudaMemcpyHostToDevice, s.get()));
    });
    const auto pos = sample_positions(bytes / 8, 1024, c.seed ^ bytes);
    const auto got = read_words(dev.get(), pos, s.get());
    for (std::size_t i = 0; i < pos.size(); ++i)
      if (got[i] != mix64(kTableSeed, pos[i]))
        throw GpuCorrectnessError("H2D copy of " + std::to_string(bytes) + " bytes: word " + std::to_string(pos[i]) +
                                  " differs");
    std::memset(hdst.get(), 0xff, bytes);
    TimedSize down{bytes, {}};
    down.seconds = time_on_stream(s.get(), c.warmup, c.repetitions, [&](int) {
      ENGRAMSIM_CUDA(cudaMemcpyAsync(hdst.get(), dev.get(), bytes, cudaMemcpyDeviceToHost, s.get()));
    });
    for (const std::uint64_t p : pos)
      if (hdst.get()[p] != mix64(kTableSeed, p))
        throw GpuCorrectnessError("D2H copy of " + std::to_string(bytes) + " bytes: word " + std::to_string(p) +
                                  " differs");
    r.h2d.push_back(std::move(up));
    r.d2h.push_back(std::move(down));
  }
  return r;
}

}  // namespace engramsim::calibration
