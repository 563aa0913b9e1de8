// A generated open-loop workload: arrivals from an ArrivalProcess, lengths from a
// LengthDistribution, until `num_requests` requests or `duration` of arrivals, whichever comes
// first. The first request arrives at t = 0 (as `vllm bench serve` sends its first request at once).
// Arrival gaps and lengths draw from separate RNG streams ("workload/arrivals",
// "workload/lengths") seeded from the run seed, so changing one never reshuffles the other.
#pragma once

#include <cstdint>
#include <memory>

#include "core/rng.hpp"
#include "sim/workload/arrival_process.hpp"
#include "sim/workload/length_distribution.hpp"
#include "sim/workload/request_source.hpp"

namespace engramsim::sim {

class SyntheticSource final : public RequestSource {
 public:
  SyntheticSource(std::unique_ptr<ArrivalProcess> arrivals, std::unique_ptr<LengthDistribution> lengths,
                  std::uint64_t seed, std::uint64_t num_requests, Time duration = Time::max());
  bool next(Request& out) override;
  std::string describe() const override;

 private:
  std::unique_ptr<ArrivalProcess> arrivals_;
  std::unique_ptr<LengthDistribution> lengths_;
  RngStream arrival_rng_;
  RngStream length_rng_;
  std::uint64_t limit_;
  Time duration_;
  std::uint64_t count_ = 0;
  Time t_;
};

}  // namespace engramsim::sim
