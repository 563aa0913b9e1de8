#include "sim/metrics/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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

Summary summarize(const SummaryInputs& in) {
  const MetricsCollector& m = *in.metrics;
  Summary s;
  std::vector<double> ttft, tpot, e2el, queue;
  Time first_arrival = Time::max();
  std::int64_t prompt_of_completed = 0, cached_of_completed = 0, good = 0;
  for (const RequestRecord& r : m.records()) {
    ++s.num_requests;
    first_arrival = std::min(first_arrival, r.arrival);
    s.generated_tokens += r.generated_tokens;
    if (r.first_scheduled != Time::max()) queue.push_back(ms(r.first_scheduled - r.arrival));
    if (r.status == RequestStatus::rejected) {
      ++s.rejected;
      continue;
    }
    if (r.status == RequestStatus::unfinished) {
      ++s.unfinished;
      continue;
    }
    ++s.completed;
    s.total_input_tokens += r.prompt_tokens;
    s.total_output_tokens += r.generated_tokens;
    prompt_of_completed += r.prompt_tokens;
    cached_of_completed += r.cached_prompt_tokens;
    const Time t_ttft = r.first_token - r.arrival;
    const Time t_e2el = r.finish - r.arrival;
    ttft.push_back(ms(t_ttft));
    e2el.push_back(ms(t_e2el));
    std::optional<double> t_tpot_ms;
    if (r.generated_tokens > 1) {
      t_tpot_ms = ms(r.finish - r.first_token) / static_cast<double>(r.generated_tokens - 1);
      tpot.push_back(*t_tpot_ms);
    }
    bool ok = true;
    if (in.slo.ttft && t_ttft > *in.slo.ttft) ok = false;
    if (in.slo.e2el && t_e2el > *in.slo.e2el) ok = false;
    if (in.slo.tpot && t_tpot_ms && *t_tpot_ms > in.slo.tpot->millis()) ok = false;
    if (ok) ++good;
  }

  const double duration = first_arrival == Time::max() ? 0.0 : (in.end_time - first_arrival).seconds();
  s.duration_s = duration;
  const double in_tok = static_cast<double>(s.total_input_tokens);
  const double out_tok = static_cast<double>(s.total_output_tokens);
  s.request_throughput = ratio(static_cast<double>(s.completed), duration);
  s.request_goodput = in.slo.any() ? ratio(static_cast<double>(good), duration) : kNaN;
  s.goodput_fraction = in.slo.any() ? ratio(static_cast<double>(good), static_cast<double>(s.completed)) : kNaN;
  s.input_throughput = ratio(in_tok, duration);
  s.output_throughput = ratio(out_tok, duration);
  s.total_token_throughput = ratio(in_tok + out_tok, duration);

  s.ttft = summarize_latencies(std::move(ttft));
  s.tpot = summarize_latencies(std::move(tpot));
  s.e2el = summarize_latencies(std::move(e2el));
  s.queue = summarize_latencies(std::move(queue));
  const LogHistogram& h = m.itl();
  if (h.count() == 0) {
    s.itl = summarize_latencies({});
  } else {
    s.itl.mean = h.mean() * 1e-6;
    s.itl.std = h.stddev() * 1e-6;
    s.itl.median = h.percentile(50) * 1e-6;
    s.itl.p90 = h.percentile(90) * 1e-6;
    s.itl.p95 = h.percentile(95) * 1e-6;
    s.itl.p99 = h.percentile(99) * 1e-6;
    s.itl.max = static_cast<double>(h.max()) * 1e-6;
  }

  s.num_replicas = in.num_replicas;
  s.num_gpus = in.num_gpus;
  const double gpus = static_cast<double>(in.num_gpus);
  s.tput_per_gpu = ratio(s.total_token_throughput, gpus);
  s.output_tput_per_gpu = ratio(s.output_throughput, gpus);
  s.input_tput_per_gpu = ratio(s.input_throughput, gpus);
  s.mean_intvty = ratio(1000.0, s.tpot.mean);
  s.median_intvty = ratio(1000.0, s.tpot.median);

  s.preemptions = in.preemptions;
  s.decode_padding_share = ratio(static_cast<double>(in.padding_rows),
                                 static_cast<double>(in.padding_rows + in.decode_positions));
  s.prefix_cache_hit_rate = ratio(static_cast<double>(cached_of_completed), static_cast<double>(prompt_of_completed));
  const FleetTotals& t = m.totals();
  const double replica_ns = duration * 1e9 * in.num_replicas;
  s.mean_kv_usage = ratio(t.kv_block_ns, replica_ns);
  s.gpu_busy_fraction = ratio(static_cast<double>(t.busy.count_ns()), replica_ns);
  s.engram_stall_s = t.engram_stall.seconds();
  s.engram_fetch_s = t.engram_fetch.seconds();
  s.engram_stall_share = ratio(static_cast<double>(t.engram_stall.count_ns()), static_cast<double>(t.busy.count_ns()));

  if (in.price_per_gpu_hour) {
    s.usd_per_gpu_hour = in.price_per_gpu_hour->value();
    s.cost_usd = s.usd_per_gpu_hour * gpus * duration / 3600.0;
    s.tokens_per_dollar = ratio(in_tok + out_tok, s.cost_usd);
    s.output_tokens_per_dollar = ratio(out_tok, s.cost_usd);
    s.usd_per_m_total_tokens = ratio(s.cost_usd * 1e6, in_tok + out_tok);
    s.usd_per_m_output_tokens = ratio(s.cost_usd * 1e6, out_tok);
  } else {
    s.usd_per_gpu_hour = s.cost_usd = s.tokens_per_dollar = s.output_tokens_per_dollar = kNaN;
    s.usd_per_m_total_tokens = s.usd_per_m_output_tokens = kNaN;
  }
  s.steps = t.steps;
  s.events = in.events;
  return s;
}

}  // namespace engramsim::sim
