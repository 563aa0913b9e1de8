#include "sim/metrics/result_writers.hpp"

#include <charconv>
#include <cmath>

namespace engramsim::sim {

namespace {

class JsonObject {
 public:
  explicit JsonObject(std::ostream& os) : os_(os) { os_ << "{\n"; }
  void num(const std::string& key, double v) { field(key, format_number(v)); }
  void integer(const std::string& key, std::int64_t v) { field(key, std::to_string(v)); }
  void close() { os_ << "\n}\n"; }

 private:
  void field(const std::string& key, const std::string& value) {
    os_ << (first_ ? "" : ",\n") << "  \"" << key << "\": " << value;
    first_ = false;
  }
  std::ostream& os_;
  bool first_ = true;
};

}  // namespace

void write_summary_json(const Summary& s, const SloParams& slo, std::ostream& os,
                        const std::vector<SummaryMetric>& metrics) {
  JsonObject j(os);
  for (const SummaryMetric& m : metrics) {
    if (!m.in_summary_json || !section_written(m.section, s)) continue;
    const double v = m.value(s, slo);
    if (m.integer)
      j.integer(m.key, static_cast<std::int64_t>(v));
    else
      j.num(m.key, v);
  }
  j.close();
}

void write_requests_csv(const std::vector<RequestRecord>& records, std::ostream& os,
                        const std::vector<RequestColumn>& columns) {
  for (std::size_t i = 0; i < columns.size(); ++i) os << (i ? "," : "") << columns[i].name;
  os << '\n';
  for (const RequestRecord& r : records) {
    for (std::size_t i = 0; i < columns.size(); ++i) os << (i ? "," : "") << columns[i].text(r);
    os << '\n';
  }
}

void write_timeseries_csv(const TimeSeries& ts, std::ostream& os) {
  // The in-run Engram tier's columns follow only when a run had it (other runs' files are unchanged).
  const bool tier = ts.has_engram_tier();
  os << "t_start_s,arrivals,finished,steps,prefill_tokens,decode_tokens,utilization,kv_usage,engram_stall_s,"
        "engram_stall_share";
  if (tier) os << ",engram_lookups,engram_hbm_hit_ratio,engram_host_gb,engram_ssd_pages,engram_cache_hit_ratio";
  os << '\n';
  const auto& bins = ts.bins();
  for (std::size_t i = 0; i < bins.size(); ++i) {
    const TimeSeriesBin& b = bins[i];
    os << format_number((ts.interval() * static_cast<std::int64_t>(i)).seconds(), 6, false) << ',' << b.arrivals << ','
       << b.finished << ',' << b.steps << ',' << b.prefill_tokens << ',' << b.decode_positions << ','
       << format_number(ts.utilization(i), 6, false) << ',' << format_number(ts.kv_usage(i), 6, false) << ','
       << format_number(b.stall_ns * 1e-9, 6, false) << ',' << format_number(ts.engram_stall_share(i), 6, false);
    if (tier)
      os << ',' << format_number(b.engram_lookups, 0, false) << ','
         << format_number(ts.engram_hbm_hit_ratio(i), 6, false) << ','
         << format_number(b.engram_host_bytes * 1e-9, 6, false) << ',' << format_number(b.engram_ssd_pages, 0, false)
         << ',' << format_number(ts.engram_cache_hit_ratio(i), 6, false);
    os << '\n';
  }
}

}  // namespace engramsim::sim
