#include "sim/metrics/time_series.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace engramsim::sim {

TimeSeries::TimeSeries(Time interval, std::int32_t replicas) : interval_(interval), replicas_(replicas) {
  if (interval <= Time::zero()) throw ConfigError({}, "metrics.timeseries_interval", "must be positive");
}

namespace {
void add_into(TimeSeriesBin& to, const TimeSeriesBin& b) {
  to.arrivals += b.arrivals;
  to.finished += b.finished;
  to.steps += b.steps;
  to.prefill_tokens += b.prefill_tokens;
  to.decode_positions += b.decode_positions;
  to.busy_ns += b.busy_ns;
  to.stall_ns += b.stall_ns;
  to.kv_block_ns += b.kv_block_ns;
  to.engram_lookups += b.engram_lookups;
  to.engram_hbm_hits += b.engram_hbm_hits;
  to.engram_host_bytes += b.engram_host_bytes;
  to.engram_ssd_pages += b.engram_ssd_pages;
  to.engram_cache_lookups += b.engram_cache_lookups;
  to.engram_cache_hits += b.engram_cache_hits;
}
}  // namespace

// Every field is a sum over the bin, so two bins merge by adding them.
void TimeSeries::cover(Time t) {
  while (t.count_ns() / interval_.count_ns() >= kMaxBins) {
    std::vector<TimeSeriesBin> merged((bins_.size() + 1) / 2);
    for (std::size_t i = 0; i < bins_.size(); ++i) add_into(merged[i / 2], bins_[i]);
    bins_.swap(merged);
    interval_ = interval_ * 2;
  }
}

TimeSeriesBin& TimeSeries::bin_at(std::int64_t index) {
  if (static_cast<std::size_t>(index) >= bins_.size()) bins_.resize(static_cast<std::size_t>(index) + 1);
  return bins_[static_cast<std::size_t>(index)];
}

void TimeSeries::add_arrival(Time t) {
  cover(t);
  ++bin_at(t.count_ns() / interval_.count_ns()).arrivals;
}

void TimeSeries::add_finish(Time t) {
  cover(t);
  ++bin_at(t.count_ns() / interval_.count_ns()).finished;
}

void TimeSeries::add_step(Time start, Time duration, Time stall, double kv_usage, std::int64_t prefill_tokens,
                          std::int64_t decode_positions) {
  cover(start + duration);
  const std::int64_t w = interval_.count_ns();
  const std::int64_t s = start.count_ns();
  const std::int64_t e = s + duration.count_ns();
  TimeSeriesBin& first = bin_at(s / w);
  ++first.steps;
  first.prefill_tokens += prefill_tokens;
  first.decode_positions += decode_positions;
  const double d = static_cast<double>(duration.count_ns());
  const double stall_per_ns = d > 0 ? static_cast<double>(stall.count_ns()) / d : 0.0;
  for (std::int64_t b = s / w; b * w < e; ++b) {
    const std::int64_t overlap = std::min(e, (b + 1) * w) - std::max(s, b * w);
    TimeSeriesBin& bin = bin_at(b);
    const auto o = static_cast<double>(overlap);
    bin.busy_ns += o;
    bin.stall_ns += o * stall_per_ns;
    bin.kv_block_ns += o * kv_usage;
  }
}

void TimeSeries::add_engram(Time start, double lookups, double hbm_hits, double host_bytes, double ssd_pages,
                            double cache_lookups, double cache_hits) {
  has_engram_ = true;
  cover(start);
  TimeSeriesBin& b = bin_at(start.count_ns() / interval_.count_ns());
  b.engram_lookups += lookups;
  b.engram_hbm_hits += hbm_hits;
  b.engram_host_bytes += host_bytes;
  b.engram_ssd_pages += ssd_pages;
  b.engram_cache_lookups += cache_lookups;
  b.engram_cache_hits += cache_hits;
}

double TimeSeries::engram_hbm_hit_ratio(std::size_t bin) const {
  return bins_[bin].engram_lookups > 0 ? bins_[bin].engram_hbm_hits / bins_[bin].engram_lookups : 0.0;
}

double TimeSeries::engram_cache_hit_ratio(std::size_t bin) const {
  return bins_[bin].engram_cache_lookups > 0 ? bins_[bin].engram_cache_hits / bins_[bin].engram_cache_lookups : 0.0;
}

double TimeSeries::utilization(std::size_t bin) const {
  return bins_[bin].busy_ns / (static_cast<double>(interval_.count_ns()) * replicas_);
}

double TimeSeries::kv_usage(std::size_t bin) const {
  return bins_[bin].kv_block_ns / (static_cast<double>(interval_.count_ns()) * replicas_);
}

double TimeSeries::engram_stall_share(std::size_t bin) const {
  return bins_[bin].busy_ns > 0 ? bins_[bin].stall_ns / bins_[bin].busy_ns : 0.0;
}

}  // namespace engramsim::sim
