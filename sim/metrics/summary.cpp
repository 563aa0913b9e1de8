#include "sim/metrics/summary.hpp"

#include "core/cost_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace engramsim::sim {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
double ratio(double a, double b) { return b > 0 ? a / b : kNaN; }
double ms(Time t) { return t.millis(); }
}  // namespace

double percentile_sorted(const std::vector<double>& v, double p) {
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = static_cast<std::size_t>(std::ceil(rank));
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

LatencySummary summarize_latencies(std::vector<double> v) {
  LatencySummary s;
  if (v.empty()) {
    s.mean = s.median = s.std = s.p90 = s.p95 = s.p99 = s.max = kNaN;
    return s;
  }
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (const double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (const double x : v) sq += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(v.size()));
  s.median = percentile_sorted(v, 50);
  s.p90 = percentile_sorted(v, 90);
  s.p95 = percentile_sorted(v, 95);
  s.p99 = percentile_sorted(v, 99);
  s.max = v.back();
  return s;
}

namespace {

struct SessionTokens {
  std::int64_t cached = 0;  // GPU and host hits
  std::int64_t prompt = 0;
  std::int64_t host = 0;  // host-pool hits
};

double median_of(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, 50);
}

void summarize_offload(Summary& s, const KvOffloadTotals& t, const std::map<std::uint64_t, SessionTokens>& sessions) {
  s.kv_offload = true;
  s.offloaded_input_tokens = 0;
  std::vector<double> gpu, host;
  for (const auto& [id, st] : sessions) {
    s.offloaded_input_tokens += st.host;
    if (st.prompt <= 0) continue;
    gpu.push_back(static_cast<double>(st.cached - st.host) / static_cast<double>(st.prompt));
    host.push_back(static_cast<double>(st.host) / static_cast<double>(st.prompt));
  }
  const auto prompt = static_cast<double>(s.total_input_tokens);
  s.host_prefix_hit_rate = ratio(static_cast<double>(s.offloaded_input_tokens), prompt);
  s.gpu_prefix_hit_rate = ratio(static_cast<double>(s.cached_input_tokens - s.offloaded_input_tokens), prompt);
  s.session_gpu_hit_rate_median = median_of(std::move(gpu));
  s.session_host_hit_rate_median = median_of(std::move(host));
  s.kv_offload_written_blocks = t.written_blocks;
  s.kv_offload_loaded_blocks = t.loaded_blocks;
  s.kv_offload_evictions = t.evictions;
  s.kv_offload_written_gb = t.written_bytes.value() * 1e-9;
  s.kv_offload_loaded_gb = t.loaded_bytes.value() * 1e-9;
  s.kv_offload_load_s = t.load_time.seconds();
  s.kv_offload_write_s = t.write_time.seconds();
  s.kv_offload_write_exposed_s = t.write_exposed.seconds();
}

void summarize_disaggregation(Summary& s, const DisaggregationTotals& t, Time end) {
  s.disaggregated = true;
  s.prefill_gpus = t.prefill_gpus;
  s.decode_gpus = t.decode_gpus;
  const auto requests = static_cast<double>(t.remote_prefills + t.local_prefills);
  s.remote_prefill_share = ratio(static_cast<double>(t.remote_prefills), requests);
  s.prefill_busy_fraction = ratio(t.prefill_busy.seconds(), end.seconds() * t.prefill_replicas);
  s.prefill_prefix_hit_rate =
      ratio(static_cast<double>(t.prefill_cached_tokens), static_cast<double>(t.prefill_prompt_tokens));
  s.kv_transfers = t.transfers;
  s.kv_transfer_gb = t.transferred.value() * 1e-9;
  const auto n = static_cast<double>(t.measured_remote);
  s.mean_prefill_queue_ms = ratio(t.measured_prefill_queue.seconds() * 1e3, n);
  s.mean_prefill_ms = ratio(t.measured_prefill.seconds() * 1e3, n);
  s.mean_decode_queue_ms = ratio(t.measured_decode_queue.seconds() * 1e3, n);
  s.mean_kv_transfer_ms = ratio(t.measured_transfer.seconds() * 1e3, n);
}

void summarize_agentic(Summary& s, std::vector<double> e2e_per_token,
                       const std::map<std::uint64_t, SessionTokens>& sessions, std::int64_t reusable,
                       std::int64_t prompt_with_reusable, std::int64_t kv_evictions) {
  const double gpus_s = static_cast<double>(s.num_gpus) * s.duration_s;
  s.cached_input_tokens = 0;
  for (const auto& [id, cp] : sessions) s.cached_input_tokens += cp.cached;
  s.uncached_input_tokens = s.total_input_tokens - s.cached_input_tokens;
  s.cached_input_tput_per_gpu = ratio(static_cast<double>(s.cached_input_tokens), gpus_s);
  s.uncached_input_tput_per_gpu = ratio(static_cast<double>(s.uncached_input_tokens), gpus_s);
  if (e2e_per_token.empty()) {
    s.p90_e2e_norm_intvty = s.median_e2e_norm_intvty = kNaN;
  } else {
    std::sort(e2e_per_token.begin(), e2e_per_token.end());
    s.p90_e2e_norm_intvty = ratio(1.0, percentile_sorted(e2e_per_token, 90));
    s.median_e2e_norm_intvty = ratio(1.0, percentile_sorted(e2e_per_token, 50));
  }
  s.p90_itl_intvty = ratio(1000.0, s.itl.p90);
  s.ideal_prefix_hit_rate = ratio(static_cast<double>(reusable), static_cast<double>(prompt_with_reusable));
  s.kv_evictions = kv_evictions;
  std::vector<double> rates;
  for (const auto& [id, cp] : sessions)
    if (cp.prompt > 0) rates.push_back(static_cast<double>(cp.cached) / static_cast<double>(cp.prompt));
  s.num_sessions = static_cast<std::int64_t>(rates.size());
  std::sort(rates.begin(), rates.end());
  s.session_hit_rate_p10 = rates.empty() ? kNaN : percentile_sorted(rates, 10);
  s.session_hit_rate_median = rates.empty() ? kNaN : percentile_sorted(rates, 50);
}

// What one pass over the request records gathers.
struct RequestPass {
  std::vector<double> ttft, tpot, e2el, queue;
  std::vector<double> e2e_per_token;
  Time first_arrival = Time::max(), last_finish = Time::zero();
  std::int64_t prompt_of_completed = 0, cached_of_completed = 0, good = 0;
  std::int64_t reusable = 0, prompt_with_reusable = 0;
  std::map<std::uint64_t, SessionTokens> sessions;
};

// One completed request: token totals, prefix reuse, its session, latencies and the SLO.
void add_completed(const RequestRecord& r, const SloParams& slo, Summary& s, RequestPass& p) {
  ++s.completed;
  s.total_input_tokens += r.prompt_tokens;
  s.total_output_tokens += r.generated_tokens;
  p.prompt_of_completed += r.prompt_tokens;
  p.cached_of_completed += r.cached_prompt_tokens;
  s.recomputed_tokens += r.recomputed_tokens;
  if (r.reusable_prompt_tokens >= 0) {
    p.reusable += r.reusable_prompt_tokens;
    p.prompt_with_reusable += r.prompt_tokens;
    s.recomputed_prefix_tokens += std::max(0, r.reusable_prompt_tokens - r.cached_prompt_tokens);
  }
  auto& sess = p.sessions[r.session];
  sess.cached += r.cached_prompt_tokens;
  sess.prompt += r.prompt_tokens;
  sess.host += r.offloaded_prompt_tokens;
  p.last_finish = std::max(p.last_finish, r.finish);
  const Time t_ttft = r.first_token - r.arrival;
  const Time t_e2el = r.finish - r.arrival;
  p.ttft.push_back(ms(t_ttft));
  p.e2el.push_back(ms(t_e2el));
  p.e2e_per_token.push_back(t_e2el.seconds() / static_cast<double>(std::max(1, r.generated_tokens)));
  std::optional<double> t_tpot_ms;
  if (r.generated_tokens > 1) {
    t_tpot_ms = ms(r.finish - r.first_token) / static_cast<double>(r.generated_tokens - 1);
    p.tpot.push_back(*t_tpot_ms);
  }
  bool ok = true;
  if (slo.ttft && t_ttft > *slo.ttft) ok = false;
  if (slo.e2el && t_e2el > *slo.e2el) ok = false;
  if (slo.tpot && t_tpot_ms && *t_tpot_ms > slo.tpot->millis()) ok = false;
  if (ok) ++p.good;
}

RequestPass collect_requests(const SummaryInputs& in, Summary& s) {
  RequestPass p;
  for (const RequestRecord& r : in.metrics->records()) {
    if (in.windowed && !r.measured) {
      ++s.excluded_requests;
      continue;
    }
    ++s.num_requests;
    p.first_arrival = std::min(p.first_arrival, r.arrival);
    s.generated_tokens += r.generated_tokens;
    if (r.first_scheduled != Time::max()) p.queue.push_back(ms(r.first_scheduled - r.arrival));
    if (r.status == RequestStatus::rejected) {
      ++s.rejected;
    } else if (r.status == RequestStatus::unfinished) {
      ++s.unfinished;
    } else {
      add_completed(r, in.slo, s, p);
    }
  }
  return p;
}

void summarize_itl(const LogHistogram& h, Summary& s) {
  if (h.count() == 0) {
    s.itl = summarize_latencies({});
    return;
  }
  s.itl.mean = h.mean() * 1e-6;
  s.itl.std = h.stddev() * 1e-6;
  s.itl.median = h.percentile(50) * 1e-6;
  s.itl.p90 = h.percentile(90) * 1e-6;
  s.itl.p95 = h.percentile(95) * 1e-6;
  s.itl.p99 = h.percentile(99) * 1e-6;
  s.itl.max = static_cast<double>(h.max()) * 1e-6;
}

// Rates over the measured span, per run and per GPU.
void summarize_rates(const SummaryInputs& in, const RequestPass& p, double duration, Summary& s) {
  const double in_tok = static_cast<double>(s.total_input_tokens);
  const double out_tok = static_cast<double>(s.total_output_tokens);
  s.request_throughput = ratio(static_cast<double>(s.completed), duration);
  s.request_goodput = in.slo.any() ? ratio(static_cast<double>(p.good), duration) : kNaN;
  s.goodput_fraction = in.slo.any() ? ratio(static_cast<double>(p.good), static_cast<double>(s.completed)) : kNaN;
  s.input_throughput = ratio(in_tok, duration);
  s.output_throughput = ratio(out_tok, duration);
  s.total_token_throughput = ratio(in_tok + out_tok, duration);
  s.num_replicas = in.num_replicas;
  s.num_gpus = in.num_gpus;
  const double gpus = static_cast<double>(in.num_gpus);
  s.tput_per_gpu = ratio(s.total_token_throughput, gpus);
  s.output_tput_per_gpu = ratio(s.output_throughput, gpus);
  s.input_tput_per_gpu = ratio(s.input_throughput, gpus);
}

// Fleet totals (busy time, KV block-time) accumulate over the whole run, warm-up included, so a
// windowed run divides them by the whole run's span, not by the measured one.
void summarize_fleet(const SummaryInputs& in, const RequestPass& p, double duration, Summary& s) {
  s.preemptions = in.preemptions;
  s.decode_padding_share =
      ratio(static_cast<double>(in.padding_rows), static_cast<double>(in.padding_rows + in.decode_positions));
  s.prefix_cache_hit_rate =
      ratio(static_cast<double>(p.cached_of_completed), static_cast<double>(p.prompt_of_completed));
  const FleetTotals& t = in.metrics->totals();
  s.mean_decode_rows = ratio(static_cast<double>(in.decode_positions), static_cast<double>(t.steps));
  const double fleet_s = in.windowed ? in.end_time.seconds() : duration;
  const double replica_ns = fleet_s * 1e9 * in.num_replicas;
  s.mean_kv_usage = ratio(t.kv_block_ns, replica_ns);
  s.gpu_busy_fraction = ratio(static_cast<double>(t.busy.count_ns()), replica_ns);
  s.engram_stall_s = t.engram_stall.seconds();
  s.engram_fetch_s = t.engram_fetch.seconds();
  s.engram_stall_share = ratio(static_cast<double>(t.engram_stall.count_ns()), static_cast<double>(t.busy.count_ns()));
  s.steps = t.steps;
  s.events = in.events;
}

void summarize_cost(const SummaryInputs& in, double duration, Summary& s) {
  const double in_tok = static_cast<double>(s.total_input_tokens);
  const double out_tok = static_cast<double>(s.total_output_tokens);
  if (in.price_per_gpu_hour) {
    s.usd_per_gpu_hour = in.price_per_gpu_hour->value();
    s.cost_usd = s.usd_per_gpu_hour * static_cast<double>(in.num_gpus) * duration / 3600.0;
    s.tokens_per_dollar = ratio(in_tok + out_tok, s.cost_usd);
    s.output_tokens_per_dollar = ratio(out_tok, s.cost_usd);
  } else {
    s.usd_per_gpu_hour = s.cost_usd = s.tokens_per_dollar = s.output_tokens_per_dollar = kNaN;
  }
  const CostMetrics c =
      cost_metrics({s.tput_per_gpu, s.input_tput_per_gpu, s.output_tput_per_gpu,
                    MoneyRate(in.price_per_gpu_hour ? in.price_per_gpu_hour->value() : 0.0), in.power_kw_per_gpu});
  s.usd_per_m_total_tokens = c.usd_per_m_total_tokens;
  s.usd_per_m_input_tokens = c.usd_per_m_input_tokens;
  s.usd_per_m_output_tokens = c.usd_per_m_output_tokens;
  s.m_tokens_per_dollar = c.m_tokens_per_usd;
  s.m_output_tokens_per_dollar = c.m_output_tokens_per_usd;
  s.power_kw_per_gpu = in.power_kw_per_gpu > 0.0 ? in.power_kw_per_gpu : kNaN;
  s.tokens_per_s_per_mw = c.tokens_per_s_per_mw;
  s.joules_per_token = c.joules_per_token;
}

}  // namespace

Summary summarize(const SummaryInputs& in) {
  Summary s;
  s.windowed = in.windowed;
  RequestPass p = collect_requests(in, s);
  const Time end = in.windowed ? p.last_finish : in.end_time;
  const double duration =
      p.first_arrival == Time::max() || end < p.first_arrival ? 0.0 : (end - p.first_arrival).seconds();
  s.duration_s = duration;
  summarize_rates(in, p, duration, s);
  s.ttft = summarize_latencies(std::move(p.ttft));
  s.tpot = summarize_latencies(std::move(p.tpot));
  s.e2el = summarize_latencies(std::move(p.e2el));
  s.queue = summarize_latencies(std::move(p.queue));
  summarize_itl(in.metrics->itl(), s);
  s.mean_intvty = ratio(1000.0, s.tpot.mean);
  s.median_intvty = ratio(1000.0, s.tpot.median);
  summarize_fleet(in, p, duration, s);
  summarize_cost(in, duration, s);
  summarize_agentic(s, std::move(p.e2e_per_token), p.sessions, p.reusable, p.prompt_with_reusable, in.kv_evictions);
  if (in.kv_offload) summarize_offload(s, *in.kv_offload, p.sessions);
  if (in.disaggregation) summarize_disaggregation(s, *in.disaggregation, in.end_time);
  return s;
}

}  // namespace engramsim::sim
