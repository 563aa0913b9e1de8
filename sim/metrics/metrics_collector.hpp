// Observes a serving run and keeps what the summary needs: one compact record per request that
// left the system, an inter-token-latency histogram, the time series and fleet totals. Per-token
// work is one histogram increment; memory is ~80 bytes per request plus the fixed histogram and the
// time-series bins.
#pragma once

#include <vector>

#include "sim/metrics/log_histogram.hpp"
#include "sim/metrics/time_series.hpp"
#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

struct FleetTotals {
  std::uint64_t steps = 0;
  Time busy;
  Time engram_stall;
  Time engram_fetch;
  double kv_block_ns = 0.0;  // sum over steps of used fraction * duration
  std::int64_t prefill_tokens = 0;
  std::int64_t decode_positions = 0;
};

class MetricsCollector final : public ServingObserver {
 public:
  MetricsCollector(Time timeseries_interval, std::int32_t replicas);

  void on_arrival(const Request& request, std::uint32_t replica) override;
  void on_step(const StepRecord& step) override;
  void on_token_gap(Time gap) override { itl_.add(gap); }
  void on_request_done(const RequestRecord& record) override;

  // Finalize: adds the records of requests still in flight and sorts all records by id.
  void finalize(std::vector<RequestRecord> unfinished);

  const std::vector<RequestRecord>& records() const { return records_; }
  const LogHistogram& itl() const { return itl_; }
  const TimeSeries& timeseries() const { return series_; }
  const FleetTotals& totals() const { return totals_; }
  std::uint64_t arrivals() const { return arrivals_; }

 private:
  std::vector<RequestRecord> records_;
  LogHistogram itl_;
  TimeSeries series_;
  FleetTotals totals_;
  std::uint64_t arrivals_ = 0;
};

}  // namespace engramsim::sim
