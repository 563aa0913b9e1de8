// io_uring read engine for the SSD benchmarks (liburing). Built from uring_engine.cpp when
// liburing is found at configure time, else from uring_engine_unavailable.cpp, whose status()
// says so; callers check uring_status() and mark the io_uring sections not measured.
//
// Reads use a file descriptor the caller opened with O_DIRECT, buffers aligned to 4 KiB, and
// fixed-size blocks. Random reads keep exactly `queue_depth` requests in flight for `seconds`,
// refilling each slot as it completes, and record every request's latency (submission to reaped
// completion). Any failed or short read throws IoError (with errno's text).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.hpp"

namespace engramsim::calibration {

class IoError : public std::runtime_error {
 public:
  IoError(const std::string& what, int err) : std::runtime_error(what), err_(err) {}
  int error_number() const { return err_; }

 private:
  int err_;
};

struct UringStatus {
  bool available = false;
  std::string reason;  // why not, when unavailable
};
UringStatus uring_status();

struct RandomReadRun {
  int queue_depth = 1;
  std::uint64_t ops = 0;
  double seconds = 0.0;
  std::vector<double> latencies;  // seconds, one per completed read
};
RandomReadRun uring_random_reads(int fd, std::uint64_t file_bytes, std::uint32_t block, int queue_depth, double seconds,
                                 RngStream& rng);

struct SequentialRun {
  std::uint64_t bytes = 0;
  double seconds = 0.0;
};
// Reads the file front to back in `block`-sized requests, `queue_depth` in flight, wrapping around
// until at least min_seconds have passed or the file was read max_passes times.
SequentialRun uring_sequential_read(int fd, std::uint64_t file_bytes, std::uint32_t block, int queue_depth,
                                    double min_seconds, int max_passes);

}  // namespace engramsim::calibration
