#include "sim/metrics/metrics_collector.hpp"

#include <algorithm>

namespace engramsim::sim {

MetricsCollector::MetricsCollector(Time timeseries_interval, std::int32_t replicas)
    : series_(timeseries_interval, replicas) {}

void MetricsCollector::on_arrival(const Request& request, std::uint32_t) {
  ++arrivals_;
  series_.add_arrival(request.arrival);
}

void MetricsCollector::on_step(const StepRecord& s) {
  totals_.steps += 1;
  totals_.busy += s.cost.total;
  totals_.engram_stall += s.cost.engram_stall;
  totals_.engram_fetch += s.cost.engram_fetch;
  totals_.kv_block_ns += s.kv_usage * static_cast<double>(s.cost.total.count_ns());
  totals_.prefill_tokens += s.prefill_tokens;
  totals_.decode_positions += s.decode_positions;
  series_.add_step(s.start, s.cost.total, s.cost.engram_stall, s.kv_usage, s.prefill_tokens, s.decode_positions);
  if (s.engram_in_run)
    series_.add_engram(s.start, s.engram.lookups, s.engram.hbm_hit_lookups, s.engram.host_bytes, s.engram.ssd_pages,
                       s.engram.cache_lookups, s.engram.cache_hits);
}

void MetricsCollector::on_request_done(const RequestRecord& record) {
  records_.push_back(record);
  if (record.status == RequestStatus::finished) series_.add_finish(record.finish);
}

void MetricsCollector::finalize(std::vector<RequestRecord> unfinished) {
  records_.insert(records_.end(), unfinished.begin(), unfinished.end());
  std::sort(records_.begin(), records_.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.id < b.id; });
}

}  // namespace engramsim::sim
