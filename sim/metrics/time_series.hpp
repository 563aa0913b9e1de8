// Fleet-wide metrics over time in fixed bins of `interval` (a run that would need more than
// kMaxBins of them doubles the interval, merging bin pairs, as often as needed; interval() is the
// one used): arrivals, completions, steps, busy
// time, KV usage and Engram stall. A step's busy time, stall and KV-occupancy time are spread over
// the bins it overlaps in proportion to the overlap; its token counts go to the bin it starts in.
// Derived per bin (TimeSeriesBin accessors):
//   utilization        busy time / (interval * replicas)
//   kv_usage           time-weighted used-block fraction over the bin, averaged over replicas
//                      (an idle replica holds no blocks and counts as 0)
//   engram_stall_share exposed Engram stall / busy time
// With the in-run Engram tier (sim/memory/engram_tier_service.hpp) each step also adds what its fetch
// moved (to the bin it starts in), so cache warm-up shows over time:
//   engram_hbm_hit_ratio    lookups served by the HBM hot-row cache / lookups
//   engram_cache_hit_ratio  DRAM page-cache hits / page lookups (ssd tier)
#pragma once

#include <cstdint>
#include <vector>

#include "core/units.hpp"

namespace engramsim::sim {

struct TimeSeriesBin {
  std::int64_t arrivals = 0;
  std::int64_t finished = 0;
  std::int64_t steps = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t decode_positions = 0;
  double busy_ns = 0.0;
  double stall_ns = 0.0;
  double kv_block_ns = 0.0;  // sum over steps of usage * overlap
  // In-run Engram tier (zero without it).
  double engram_lookups = 0.0;
  double engram_hbm_hits = 0.0;
  double engram_host_bytes = 0.0;
  double engram_ssd_pages = 0.0;
  double engram_cache_lookups = 0.0;
  double engram_cache_hits = 0.0;
};

class TimeSeries {
 public:
  static constexpr std::int64_t kMaxBins = 2'000'000;  // about 100 bytes each
  TimeSeries(Time interval, std::int32_t replicas);
  void add_arrival(Time t);
  void add_finish(Time t);
  void add_step(Time start, Time duration, Time stall, double kv_usage, std::int64_t prefill_tokens,
                std::int64_t decode_positions);
  // What an in-run Engram fetch starting at `start` moved; marks the series as having those columns.
  void add_engram(Time start, double lookups, double hbm_hits, double host_bytes, double ssd_pages,
                  double cache_lookups, double cache_hits);
  bool has_engram_tier() const { return has_engram_; }
  double engram_hbm_hit_ratio(std::size_t bin) const;
  double engram_cache_hit_ratio(std::size_t bin) const;

  Time interval() const { return interval_; }
  std::int32_t replicas() const { return replicas_; }
  const std::vector<TimeSeriesBin>& bins() const { return bins_; }
  double utilization(std::size_t bin) const;
  double kv_usage(std::size_t bin) const;
  double engram_stall_share(std::size_t bin) const;

 private:
  TimeSeriesBin& bin_at(std::int64_t index);
  // Coarsens the bins until time `t` falls within kMaxBins of them.
  void cover(Time t);
  Time interval_;
  std::int32_t replicas_;
  std::vector<TimeSeriesBin> bins_;
  bool has_engram_ = false;
};

}  // namespace engramsim::sim
