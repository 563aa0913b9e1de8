// Built instead of uring_engine.cpp when liburing was not found at configure time: the status
// says so, and the read functions are never reached (callers check the status first).
#include <cerrno>

#include "calibration/uring_engine.hpp"

namespace engramsim::calibration {

UringStatus uring_status() { return {false, "built without liburing (install liburing-dev and reconfigure)"}; }

RandomReadRun uring_random_reads(int, std::uint64_t, std::uint32_t, int, double, RngStream&) {
  throw IoError("built without liburing", ENOSYS);
}

SequentialRun uring_sequential_read(int, std::uint64_t, std::uint32_t, int, double, int) {
  throw IoError("built without liburing", ENOSYS);
}

}  // namespace engramsim::calibration
