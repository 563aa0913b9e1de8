#include "sim/metrics/result_writers.hpp"

#include <charconv>
#include <cmath>

namespace engramsim::sim {

std::string format_number(double v, int decimals, bool json) {
  if (!std::isfinite(v)) return json ? "null" : "";
  if (v == 0.0) v = 0.0;  // no "-0.000000"
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  if (res.ec != std::errc()) return json ? "null" : "";
  std::string out(buf, res.ptr);
  if (out.find_first_not_of("-0.") == std::string::npos) out = decimals > 0 ? "0." + std::string(decimals, '0') : "0";
  return out;
}

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

void write_requests_csv(const std::vector<RequestRecord>& records, std::ostream& os) {
  os << "request_id,replica,status,session,arrival_s,input_tokens,output_tokens,generated_tokens,cached_tokens,"
        "preemptions,queue_ms,ttft_ms,tpot_ms,e2el_ms\n";
  const auto ms_or_blank = [](Time a, Time b) {
    return a == Time::max() || b == Time::max() ? std::string() : format_number((a - b).millis(), 6, false);
  };
  for (const RequestRecord& r : records) {
    std::string tpot;
    if (r.status == RequestStatus::finished && r.generated_tokens > 1) {
      tpot = format_number((r.finish - r.first_token).millis() / (r.generated_tokens - 1), 6, false);
    }
    os << r.id << ',' << r.replica << ',' << to_string(r.status) << ',' << r.session << ','
       << format_number(r.arrival.seconds(), 6, false) << ',' << r.prompt_tokens << ',' << r.output_tokens << ','
       << r.generated_tokens << ',' << r.cached_prompt_tokens << ',' << r.preemptions << ','
       << ms_or_blank(r.first_scheduled, r.arrival) << ',' << ms_or_blank(r.first_token, r.arrival) << ',' << tpot
       << ',' << ms_or_blank(r.finish, r.arrival) << '\n';
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
