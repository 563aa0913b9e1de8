#include "calibration/memory_benchmarks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "calibration/rank_scatter.hpp"
#include "core/rng.hpp"
#include "core/zipf_sampler.hpp"

namespace engramsim::calibration {
namespace {

using Clock = std::chrono::steady_clock;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<unsigned char, FreeDeleter>;

// Page-aligned (2 MiB, so transparent huge pages can back it when the system allows).
Buffer allocate(std::uint64_t bytes) {
  constexpr std::uint64_t align = 2u << 20;
  const std::uint64_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr)
    throw std::runtime_error("cannot allocate " + std::to_string(bytes >> 20) + " MiB for a benchmark buffer");
  return Buffer(static_cast<unsigned char*>(p));
}

// Runs body(t) on `threads` threads released together; returns the wall time from release to the
// last thread's end. Thread creation stays outside the timed region.
double run_parallel(int threads, const std::function<void(int)>& body) {
  std::atomic<int> go{0};
  std::vector<Clock::time_point> end(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      go.wait(0);
      body(t);
      end[static_cast<std::size_t>(t)] = Clock::now();
    });
  }
  const auto start = Clock::now();
  go.store(1);
  go.notify_all();
  for (auto& th : pool) th.join();
  const auto last = *std::max_element(end.begin(), end.end());
  return std::chrono::duration<double>(last - start).count();
}

// Distinct, non-zero content (zero pages could be deduplicated or compressed by a hypervisor).
void fill_pattern(unsigned char* p, std::uint64_t bytes, int threads) {
  const std::uint64_t words = bytes / 8;
  run_parallel(threads, [&](int t) {
    const std::uint64_t lo = words * static_cast<std::uint64_t>(t) / static_cast<std::uint64_t>(threads);
    const std::uint64_t hi = words * static_cast<std::uint64_t>(t + 1) / static_cast<std::uint64_t>(threads);
    for (std::uint64_t w = lo; w < hi; ++w) {
      const std::uint64_t v = (w + 1) * 0x9e3779b97f4a7c15ULL;
      std::memcpy(p + w * 8, &v, 8);
    }
  });
}

}  // namespace

std::vector<int> thread_sweep(int max_threads) {
  std::vector<int> out;
  for (int t = 1; t < max_threads; t *= 2) out.push_back(t);
  out.push_back(std::max(1, max_threads));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<MemcpyMeasurement> run_memcpy_benchmark(const MemcpyOptions& o) {
  if (o.buffer_bytes < (1u << 20)) throw std::invalid_argument("memcpy buffer below 1 MiB");
  const int max_threads = *std::max_element(o.thread_counts.begin(), o.thread_counts.end());
  Buffer src = allocate(o.buffer_bytes);
  Buffer dst = allocate(o.buffer_bytes);
  fill_pattern(src.get(), o.buffer_bytes, max_threads);
  fill_pattern(dst.get(), o.buffer_bytes, max_threads);  // first touch outside the timed region
  std::vector<MemcpyMeasurement> out;
  for (const int threads : o.thread_counts) {
    MemcpyMeasurement m;
    m.threads = threads;
    m.bytes_copied = o.buffer_bytes;
    auto copy = [&](int t) {
      const std::uint64_t lo = o.buffer_bytes * static_cast<std::uint64_t>(t) / static_cast<std::uint64_t>(threads);
      const std::uint64_t hi = o.buffer_bytes * static_cast<std::uint64_t>(t + 1) / static_cast<std::uint64_t>(threads);
      std::memcpy(dst.get() + lo, src.get() + lo, hi - lo);
    };
    run_parallel(threads, copy);  // warm-up
    for (int r = 0; r < o.repetitions; ++r) m.seconds.push_back(run_parallel(threads, copy));
    if (std::memcmp(dst.get(), src.get(), o.buffer_bytes) != 0)
      throw std::runtime_error("memcpy benchmark: copy mismatch");
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

// The gather's working memory: the table (filled with the checksum pattern), one staging ring per
// thread (a power of two of rows: the ring index is a mask) and every thread's drawn indices.
struct GatherBuffers {
  Buffer table;
  std::vector<Buffer> rings;
  std::uint32_t staging = 1;
  std::vector<std::vector<std::uint64_t>> indices;
};

GatherBuffers gather_buffers(const DramGatherOptions& o, int max_threads, std::uint32_t max_row) {
  GatherBuffers g;
  while (g.staging < o.staging_rows) g.staging <<= 1;
  g.table = allocate(o.table_bytes);
  fill_pattern(g.table.get(), o.table_bytes, max_threads);
  for (int t = 0; t < max_threads; ++t) {
    g.rings.push_back(allocate(std::uint64_t{g.staging} * max_row));
    std::memset(g.rings.back().get(), 0, std::uint64_t{g.staging} * max_row);
  }
  g.indices.assign(static_cast<std::size_t>(max_threads), std::vector<std::uint64_t>(o.rows_per_thread));
  return g;
}

// Every thread's row indices for one (row size, distribution), drawn in parallel before any timing.
void draw_indices(const DramGatherOptions& o, GatherBuffers& g, int max_threads, std::uint32_t row,
                  IndexDistribution dist) {
  const std::uint64_t rows_in_table = o.table_bytes / row;
  run_parallel(max_threads, [&](int t) {
    RngStream rng(o.seed,
                  "dram_gather/" + std::string(to_string(dist)) + "/" + std::to_string(row) + "/" + std::to_string(t));
    auto& idx = g.indices[static_cast<std::size_t>(t)];
    if (dist == IndexDistribution::uniform) {
      const auto hi = static_cast<std::int64_t>(rows_in_table - 1);
      for (auto& i : idx) i = static_cast<std::uint64_t>(rng.uniform_int(0, hi));
    } else {
      const ZipfSampler zipf(static_cast<std::int64_t>(rows_in_table), o.zipf_exponent);
      const RankScatter scatter(rows_in_table);
      for (auto& i : idx) i = scatter(static_cast<std::uint64_t>(zipf.sample(rng) - 1));
    }
  });
}

// The sum over the drawn rows' last words, which the fill pattern defines: what the gather's
// checksum must come to once per repetition.
std::uint64_t expected_checksum(const GatherBuffers& g, int threads, std::uint32_t row) {
  std::uint64_t expect = 0;
  for (int t = 0; t < threads; ++t)
    for (const std::uint64_t i : g.indices[static_cast<std::size_t>(t)]) {
      const std::uint64_t word = (i * row + row - 8) / 8;
      expect += (word + 1) * 0x9e3779b97f4a7c15ULL;
    }
  return expect;
}

// One timed point: `threads` threads each copy their rows into their ring, reading each row's last
// word so the whole row must have landed; a wrong copy is a failed benchmark, not a number.
DramGatherMeasurement time_gather(const DramGatherOptions& o, GatherBuffers& g, std::uint32_t row,
                                  IndexDistribution dist, int threads) {
  DramGatherMeasurement m;
  m.row_size = row;
  m.distribution = dist;
  m.threads = threads;
  m.rows = o.rows_per_thread * static_cast<std::uint64_t>(threads);
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads), 0);
  auto gather = [&](int t) {
    const unsigned char* base = g.table.get();
    unsigned char* ring = g.rings[static_cast<std::size_t>(t)].get();
    const std::uint64_t* idx = g.indices[static_cast<std::size_t>(t)].data();
    const std::uint64_t n = o.rows_per_thread;
    const std::uint32_t mask = g.staging - 1;
    std::uint64_t sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      unsigned char* d = ring + std::uint64_t{static_cast<std::uint32_t>(i) & mask} * row;
      std::memcpy(d, base + idx[i] * row, row);
      std::uint64_t w;
      std::memcpy(&w, d + row - 8, 8);
      sum += w;
    }
    sums[static_cast<std::size_t>(t)] += sum;
  };
  for (int r = 0; r < o.repetitions; ++r) m.seconds.push_back(run_parallel(threads, gather));
  std::uint64_t got = 0;
  for (auto s : sums) got += s;
  if (got != expected_checksum(g, threads, row) * static_cast<std::uint64_t>(o.repetitions))
    throw std::runtime_error("DRAM gather: checksum mismatch (row " + std::to_string(row) + " B)");
  m.checksum = got;
  return m;
}

}  // namespace

std::vector<DramGatherMeasurement> run_dram_gather_benchmark(const DramGatherOptions& o,
                                                             const std::function<void(const std::string&)>& progress) {
  if (o.thread_counts.empty() || o.row_sizes.empty() || o.distributions.empty())
    throw std::invalid_argument("DRAM gather: empty sweep");
  const int max_threads = *std::max_element(o.thread_counts.begin(), o.thread_counts.end());
  const std::uint32_t max_row = *std::max_element(o.row_sizes.begin(), o.row_sizes.end());
  if (o.table_bytes < std::uint64_t{max_row} * 16) throw std::invalid_argument("DRAM gather: table too small");
  GatherBuffers g = gather_buffers(o, max_threads, max_row);
  std::vector<DramGatherMeasurement> out;
  for (const std::uint32_t row : o.row_sizes) {
    if (row == 0 || row % 8 != 0) throw std::invalid_argument("DRAM gather: row sizes must be multiples of 8 bytes");
    for (const IndexDistribution dist : o.distributions) {
      draw_indices(o, g, max_threads, row, dist);
      for (const int threads : o.thread_counts) {
        if (progress)
          progress("row " + std::to_string(row) + " B, " + to_string(dist) + ", " + std::to_string(threads) +
                   (threads == 1 ? " thread" : " threads"));
        out.push_back(time_gather(o, g, row, dist, threads));
      }
    }
  }
  return out;
}

}  // namespace engramsim::calibration
