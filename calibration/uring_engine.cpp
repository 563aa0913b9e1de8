#include "calibration/uring_engine.hpp"

#include <liburing.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace engramsim::calibration {
namespace {

using Clock = std::chrono::steady_clock;

class Ring {
 public:
  explicit Ring(unsigned entries) {
    const int rc = io_uring_queue_init(entries, &ring_, 0);
    if (rc < 0) throw IoError(std::string("io_uring_queue_init: ") + std::strerror(-rc), -rc);
  }
  ~Ring() { io_uring_queue_exit(&ring_); }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  io_uring* get() { return &ring_; }
  // Waits for at least one completion and puts those ready (up to cqes.size()) in `cqes`; returns
  // how many. The caller marks them seen (io_uring_cq_advance).
  unsigned wait(std::vector<io_uring_cqe*>& cqes) {
    for (;;) {
      io_uring_cqe* first = nullptr;
      const int rc = io_uring_wait_cqe(&ring_, &first);
      if (rc == -EINTR) continue;
      if (rc < 0) throw IoError(std::string("io_uring_wait_cqe: ") + std::strerror(-rc), -rc);
      return io_uring_peek_batch_cqe(&ring_, cqes.data(), static_cast<unsigned>(cqes.size()));
    }
  }

 private:
  io_uring ring_{};
};

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

std::unique_ptr<unsigned char, AlignedFree> aligned_buffers(std::size_t bytes) {
  void* p = nullptr;
  if (::posix_memalign(&p, 4096, bytes) != 0) throw IoError("cannot allocate aligned I/O buffers", ENOMEM);
  std::memset(p, 0, bytes);
  return std::unique_ptr<unsigned char, AlignedFree>(static_cast<unsigned char*>(p));
}

void prep_read(io_uring* ring, int fd, void* buf, std::uint32_t len, std::uint64_t off, std::uint64_t slot) {
  io_uring_sqe* sqe = io_uring_get_sqe(ring);
  if (sqe == nullptr) throw IoError("io_uring submission queue full", EBUSY);
  io_uring_prep_read(sqe, fd, buf, len, off);
  sqe->user_data = slot;
}

void check_cqe(const io_uring_cqe* cqe, std::uint32_t expect) {
  if (cqe->res < 0) throw IoError(std::string("read failed: ") + std::strerror(-cqe->res), -cqe->res);
  if (static_cast<std::uint32_t>(cqe->res) != expect) throw IoError("short read", EIO);
}

}  // namespace

UringStatus uring_status() {
  try {
    Ring probe(4);
  } catch (const IoError& e) {
    return {false, std::string("io_uring unavailable (") + e.what() + ")"};
  }
  return {true, ""};
}

RandomReadRun uring_random_reads(int fd, std::uint64_t file_bytes, std::uint32_t block, int queue_depth, double seconds,
                                 RngStream& rng) {
  if (file_bytes < block) throw IoError("file smaller than one block", EINVAL);
  const auto qd = static_cast<unsigned>(queue_depth);
  Ring ring(qd);
  auto bufs = aligned_buffers(std::size_t{qd} * block);
  const auto blocks = static_cast<std::int64_t>(file_bytes / block);
  std::vector<Clock::time_point> issued(qd);
  RandomReadRun run;
  run.queue_depth = queue_depth;
  run.latencies.reserve(1u << 16);

  auto submit_slot = [&](unsigned slot) {
    const auto off = static_cast<std::uint64_t>(rng.uniform_int(0, blocks - 1)) * block;
    prep_read(ring.get(), fd, bufs.get() + std::size_t{slot} * block, block, off, slot);
    issued[slot] = Clock::now();
  };
  const auto start = Clock::now();
  const auto stop_at = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (unsigned s = 0; s < qd; ++s) submit_slot(s);
  io_uring_submit(ring.get());
  unsigned in_flight = qd;
  std::vector<io_uring_cqe*> cqes(qd);
  while (in_flight > 0) {
    const unsigned n = ring.wait(cqes);
    const auto now = Clock::now();
    const bool refill = now < stop_at;
    for (unsigned i = 0; i < n; ++i) {
      check_cqe(cqes[i], block);
      const auto slot = static_cast<unsigned>(cqes[i]->user_data);
      run.latencies.push_back(std::chrono::duration<double>(now - issued[slot]).count());
      ++run.ops;
      if (refill)
        submit_slot(slot);
      else
        --in_flight;
    }
    io_uring_cq_advance(ring.get(), n);
    if (refill) io_uring_submit(ring.get());
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

SequentialRun uring_sequential_read(int fd, std::uint64_t file_bytes, std::uint32_t block, int queue_depth,
                                    double min_seconds, int max_passes) {
  const std::uint64_t blocks = file_bytes / block;
  if (blocks == 0) throw IoError("file smaller than one block", EINVAL);
  const auto qd = static_cast<unsigned>(queue_depth);
  Ring ring(qd);
  auto bufs = aligned_buffers(std::size_t{qd} * block);
  SequentialRun run;
  std::uint64_t next = 0;
  const std::uint64_t total_limit = blocks * static_cast<std::uint64_t>(max_passes);
  const auto start = Clock::now();
  const auto min_end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(min_seconds));
  auto submit_slot = [&](unsigned slot) {
    prep_read(ring.get(), fd, bufs.get() + std::size_t{slot} * block, block, (next % blocks) * block, slot);
    ++next;
  };
  unsigned in_flight = 0;
  for (unsigned s = 0; s < qd && next < total_limit; ++s, ++in_flight) submit_slot(s);
  io_uring_submit(ring.get());
  std::vector<io_uring_cqe*> cqes(qd);
  while (in_flight > 0) {
    const unsigned n = ring.wait(cqes);
    // Stop issuing after a whole pass once the minimum time is reached, or at the pass limit.
    const bool more = next < total_limit && (Clock::now() < min_end || next % blocks != 0);
    for (unsigned i = 0; i < n; ++i) {
      check_cqe(cqes[i], block);
      run.bytes += block;
      if (more && next < total_limit)
        submit_slot(static_cast<unsigned>(cqes[i]->user_data));
      else
        --in_flight;
    }
    io_uring_cq_advance(ring.get(), n);
    io_uring_submit(ring.get());
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

}  // namespace engramsim::calibration
