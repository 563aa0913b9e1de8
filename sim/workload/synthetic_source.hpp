// A generated open-loop workload: arrivals from an ArrivalProcess, lengths from a
// LengthDistribution, until `num_requests` requests or `duration` of arrivals, whichever comes
// first (an arrival past the nanosecond clock is a ConfigError at the rate). The first request arrives at t = 0 (as
// `vllm bench serve` sends its first request at once). Arrival gaps and lengths draw from separate RNG streams
// ("workload/arrivals", "workload/lengths") seeded from the run seed, so changing one never reshuffles the other.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/error.hpp"

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
  // Where the rate was given: an arrival drawn past the clock (Time::max) without a duration to stop
  // it is a ConfigError located there rather than an overflow.
  void locate_rate(SourceLocation where, std::string field);

 private:
  // The next gap, or nullopt when it does not fit the clock.
  std::optional<Time> next_gap();

  SourceLocation rate_at_;
  std::string rate_field_ = "workload.arrival.rate_per_s";
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
