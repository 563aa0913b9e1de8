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
  void num(const char* key, double v) { field(key, format_number(v)); }
  void integer(const char* key, std::int64_t v) { field(key, std::to_string(v)); }
  void latency(const char* name, const LatencySummary& l) {
    const std::string n(name);
    num(("mean_" + n + "_ms").c_str(), l.mean);
    num(("median_" + n + "_ms").c_str(), l.median);
    num(("std_" + n + "_ms").c_str(), l.std);
    num(("p50_" + n + "_ms").c_str(), l.median);
    num(("p90_" + n + "_ms").c_str(), l.p90);
    num(("p95_" + n + "_ms").c_str(), l.p95);
    num(("p99_" + n + "_ms").c_str(), l.p99);
    num(("max_" + n + "_ms").c_str(), l.max);
  }
  void close() { os_ << "\n}\n"; }

 private:
  void field(const char* key, const std::string& value) {
    os_ << (first_ ? "" : ",\n") << "  \"" << key << "\": " << value;
    first_ = false;
  }
  std::ostream& os_;
  bool first_ = true;
};

double opt_ms(const std::optional<Time>& t) { return t ? t->millis() : std::nan(""); }

}  // namespace

namespace {

// Counts, token totals and throughputs.
void write_counts(JsonObject& j, const Summary& s) {
  j.integer("summary_version", 1);
  j.num("duration", s.duration_s);
  j.integer("num_requests", s.num_requests);
  j.integer("completed", s.completed);
  j.integer("failed", s.unfinished + s.rejected);
  j.integer("unfinished", s.unfinished);
  j.integer("rejected", s.rejected);
  j.integer("total_input_tokens", s.total_input_tokens);
  j.integer("total_output_tokens", s.total_output_tokens);
  j.integer("generated_tokens", s.generated_tokens);
  j.num("request_throughput", s.request_throughput);
  j.num("request_goodput", s.request_goodput);
  j.num("goodput_fraction", s.goodput_fraction);
  j.num("input_throughput", s.input_throughput);
  j.num("output_throughput", s.output_throughput);
  j.num("total_token_throughput", s.total_token_throughput);
}

// Latency percentiles, per-GPU rates, interactivity and the SLO bounds.
void write_latencies(JsonObject& j, const Summary& s, const SloParams& slo) {
  j.latency("ttft", s.ttft);
  j.latency("tpot", s.tpot);
  j.latency("itl", s.itl);
  j.latency("e2el", s.e2el);
  j.latency("queue", s.queue);
  j.integer("num_replicas", s.num_replicas);
  j.integer("num_gpus", s.num_gpus);
  j.num("tput_per_gpu", s.tput_per_gpu);
  j.num("output_tput_per_gpu", s.output_tput_per_gpu);
  j.num("input_tput_per_gpu", s.input_tput_per_gpu);
  j.num("intvty", s.mean_intvty);
  j.num("mean_intvty", s.mean_intvty);
  j.num("median_intvty", s.median_intvty);
  j.num("slo_ttft_ms", opt_ms(slo.ttft));
  j.num("slo_tpot_ms", opt_ms(slo.tpot));
  j.num("slo_e2el_ms", opt_ms(slo.e2el));
}

// Scheduler, KV, Engram, cost and power figures, and the run's size.
void write_run_figures(JsonObject& j, const Summary& s) {
  j.integer("preemptions", s.preemptions);
  j.num("decode_padding_share", s.decode_padding_share);
  j.num("prefix_cache_hit_rate", s.prefix_cache_hit_rate);
  j.num("mean_kv_usage", s.mean_kv_usage);
  j.num("gpu_busy_fraction", s.gpu_busy_fraction);
  j.num("engram_stall_s", s.engram_stall_s);
  j.num("engram_fetch_s", s.engram_fetch_s);
  j.num("engram_stall_share", s.engram_stall_share);
  j.num("usd_per_gpu_hour", s.usd_per_gpu_hour);
  j.num("cost_usd", s.cost_usd);
  j.num("tokens_per_dollar", s.tokens_per_dollar);
  j.num("output_tokens_per_dollar", s.output_tokens_per_dollar);
  j.num("usd_per_m_total_tokens", s.usd_per_m_total_tokens);
  j.num("usd_per_m_output_tokens", s.usd_per_m_output_tokens);
  j.num("usd_per_m_input_tokens", s.usd_per_m_input_tokens);
  j.num("m_tokens_per_dollar", s.m_tokens_per_dollar);
  j.num("m_output_tokens_per_dollar", s.m_output_tokens_per_dollar);
  j.num("power_kw_per_gpu", s.power_kw_per_gpu);
  j.num("tokens_per_s_per_mw", s.tokens_per_s_per_mw);
  j.num("joules_per_token", s.joules_per_token);
  j.integer("steps", static_cast<std::int64_t>(s.steps));
  j.integer("events", static_cast<std::int64_t>(s.events));
}

// Agentic replay (docs/agentic.md "Metrics"); absent from other runs so their files stay as they were.
void write_agentic(JsonObject& j, const Summary& s) {
  j.integer("excluded_requests", s.excluded_requests);
  j.integer("cached_input_tokens", s.cached_input_tokens);
  j.integer("uncached_input_tokens", s.uncached_input_tokens);
  j.num("cached_input_tput_per_gpu", s.cached_input_tput_per_gpu);
  j.num("uncached_input_tput_per_gpu", s.uncached_input_tput_per_gpu);
  j.num("p90_e2e_norm_intvty", s.p90_e2e_norm_intvty);
  j.num("median_e2e_norm_intvty", s.median_e2e_norm_intvty);
  j.num("p90_itl_intvty", s.p90_itl_intvty);
  j.num("ideal_prefix_hit_rate", s.ideal_prefix_hit_rate);
  j.integer("recomputed_prefix_tokens", s.recomputed_prefix_tokens);
  j.integer("recomputed_tokens", s.recomputed_tokens);
  j.integer("kv_evictions", s.kv_evictions);
  j.integer("num_sessions", s.num_sessions);
  j.num("session_hit_rate_p10", s.session_hit_rate_p10);
  j.num("session_hit_rate_median", s.session_hit_rate_median);
}

// Host KV-offload pool (docs/agentic.md "KV offload tier"); absent without one.
void write_kv_offload(JsonObject& j, const Summary& s) {
  j.num("gpu_prefix_hit_rate", s.gpu_prefix_hit_rate);
  j.num("host_prefix_hit_rate", s.host_prefix_hit_rate);
  j.num("session_gpu_hit_rate_median", s.session_gpu_hit_rate_median);
  j.num("session_host_hit_rate_median", s.session_host_hit_rate_median);
  j.integer("offloaded_input_tokens", s.offloaded_input_tokens);
  j.integer("kv_offload_written_blocks", s.kv_offload_written_blocks);
  j.integer("kv_offload_loaded_blocks", s.kv_offload_loaded_blocks);
  j.integer("kv_offload_evictions", s.kv_offload_evictions);
  j.num("kv_offload_written_gb", s.kv_offload_written_gb);
  j.num("kv_offload_loaded_gb", s.kv_offload_loaded_gb);
  j.num("kv_offload_load_s", s.kv_offload_load_s);
  j.num("kv_offload_write_s", s.kv_offload_write_s);
  j.num("kv_offload_write_exposed_s", s.kv_offload_write_exposed_s);
}

}  // namespace

void write_summary_json(const Summary& s, const SloParams& slo, std::ostream& os) {
  JsonObject j(os);
  write_counts(j, s);
  write_latencies(j, s, slo);
  write_run_figures(j, s);
  if (s.windowed) write_agentic(j, s);
  if (s.kv_offload) write_kv_offload(j, s);
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
