#include "sim/metrics/summary_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/number_text.hpp"

namespace engramsim::sim {

const char* to_string(MetricSection s) { return kMetricSectionNames.name(s); }

bool section_written(MetricSection section, const Summary& s) {
  if (section == MetricSection::agentic) return s.windowed;
  if (section == MetricSection::kv_offload) return s.kv_offload;
  if (section == MetricSection::disaggregation) return s.disaggregated;
  return true;
}

namespace {

using Get = double (*)(const Summary&);

// A metric just added to the list, to say which other outputs carry it.
class Declared {
 public:
  explicit Declared(SummaryMetric& m) : m_(m) {}
  Declared& row(std::string label, int digits, MetricSection group, int rank, bool ratio, Shown shown = Shown::plain) {
    m_.row = TableRow{std::move(label), digits, shown, ratio, group, rank};
    return *this;
  }
  Declared& golden(int rank, double rel = 0.01, double abs = 1e-3) {
    m_.golden = GoldenCheck{rank, rel, abs};
    return *this;
  }
  Declared& exact(int rank) { return golden(rank, 0.0, 0.0); }
  Declared& share(int rank) { return golden(rank, 0.0, 0.005); }
  Declared& sweep() {
    m_.in_sweep = true;
    return *this;
  }
  Declared& table_only() {
    m_.in_summary_json = false;
    return *this;
  }

 private:
  SummaryMetric& m_;
};

// The `run` table's row groups: every run, windowed runs, runs with a KV-offload pool.
constexpr MetricSection kEvery = MetricSection::run;
constexpr MetricSection kWindowed = MetricSection::agentic;
constexpr MetricSection kOffload = MetricSection::kv_offload;
constexpr MetricSection kDisaggregated = MetricSection::disaggregation;
constexpr bool kRatio = true;
constexpr bool kNoRatio = false;

// The metric `key` already in `out`, to declare its other outputs.
Declared declared(std::vector<SummaryMetric>& out, const std::string& key) {
  for (SummaryMetric& m : out)
    if (m.key == key) return Declared(m);
  throw std::logic_error("no summary metric named " + key);
}

// Adds metrics of one section read from the Summary alone.
class SectionBuilder {
 public:
  SectionBuilder(std::vector<SummaryMetric>& out, MetricSection section) : out_(out), section_(section) {}
  Declared num(std::string key, std::string unit, std::string meaning, Get get) {
    return add(std::move(key), std::move(unit), std::move(meaning), false, get);
  }
  Declared count(std::string key, std::string unit, std::string meaning, Get get) {
    return add(std::move(key), std::move(unit), std::move(meaning), true, get);
  }
  void with_slo(std::string key, std::string meaning, double (*get)(const SloParams&)) {
    out_.push_back({std::move(key), "ms", std::move(meaning), section_, false,
                    [get](const Summary&, const SloParams& slo) { return get(slo); }});
  }

 private:
  Declared add(std::string key, std::string unit, std::string meaning, bool integer, Get get) {
    out_.push_back({std::move(key), std::move(unit), std::move(meaning), section_, integer,
                    [get](const Summary& s, const SloParams&) { return get(s); }});
    return Declared(out_.back());
  }
  std::vector<SummaryMetric>& out_;
  MetricSection section_;
};

double as_double(std::int64_t v) { return static_cast<double>(v); }

// A deployment's rate over one pool's GPUs; NaN for a pool without GPUs.
double per_pool_gpu(double rate, std::int32_t gpus) {
  return gpus > 0 ? rate / gpus : std::numeric_limits<double>::quiet_NaN();
}

void add_counts(std::vector<SummaryMetric>& out) {
  SectionBuilder b(out, MetricSection::counts);
  b.count("summary_version", "", "layout version of summary.json (1)", [](const Summary&) { return 1.0; });
  b.num("duration", "s", "first arrival to the end of the run (windowed: of the measured requests)",
        [](const Summary& s) { return s.duration_s; })
      .row("simulated s", 1, kEvery, 220, kNoRatio)
      .golden(7);
  b.count("num_requests", "", "requests counted (windowed: measured ones)",
          [](const Summary& s) { return as_double(s.num_requests); })
      .exact(1)
      .sweep();
  b.count("completed", "", "requests that generated all their output tokens",
          [](const Summary& s) { return as_double(s.completed); })
      .exact(2)
      .sweep();
  b.count("failed", "", "unfinished + rejected", [](const Summary& s) { return as_double(s.unfinished + s.rejected); });
  b.count("unfinished", "", "requests still running or waiting when the run ended",
          [](const Summary& s) { return as_double(s.unfinished); })
      .exact(3)
      .sweep();
  b.count("rejected", "", "requests refused at arrival (prompt + output over max_model_len)",
          [](const Summary& s) { return as_double(s.rejected); })
      .exact(4)
      .sweep();
  b.count("total_input_tokens", "tokens", "prompt tokens of completed requests",
          [](const Summary& s) { return as_double(s.total_input_tokens); })
      .exact(5)
      .sweep();
  b.count("total_output_tokens", "tokens", "output tokens of completed requests",
          [](const Summary& s) { return as_double(s.total_output_tokens); })
      .exact(6)
      .sweep();
  b.count("generated_tokens", "tokens", "output tokens generated by every request, finished or not",
          [](const Summary& s) { return as_double(s.generated_tokens); });
  b.num("request_throughput", "requests/s", "completed / duration", [](const Summary& s) {
     return s.request_throughput;
   }).golden(8);
  b.num("request_goodput", "requests/s", "completed requests meeting every SLO bound / duration (null without one)",
        [](const Summary& s) { return s.request_goodput; });
  b.num("goodput_fraction", "", "completed requests meeting every SLO bound / completed",
        [](const Summary& s) { return s.goodput_fraction; })
      .share(24)
      .sweep();
  b.num("input_throughput", "tokens/s", "total_input_tokens / duration",
        [](const Summary& s) { return s.input_throughput; });
  b.num("output_throughput", "tokens/s", "total_output_tokens / duration", [](const Summary& s) {
     return s.output_throughput;
   }).golden(9);
  b.num("total_token_throughput", "tokens/s", "(input + output tokens) / duration",
        [](const Summary& s) { return s.total_token_throughput; })
      .golden(10)
      .sweep();
}

// mean, median, std, p50, p90, p95, p99 and max of one latency, in ms.
void add_latency(std::vector<SummaryMetric>& out, const std::string& name, const std::string& what,
                 LatencySummary Summary::*member) {
  const std::pair<const char*, double LatencySummary::*> stats[] = {
      {"mean", &LatencySummary::mean},  {"median", &LatencySummary::median}, {"std", &LatencySummary::std},
      {"p50", &LatencySummary::median}, {"p90", &LatencySummary::p90},       {"p95", &LatencySummary::p95},
      {"p99", &LatencySummary::p99},    {"max", &LatencySummary::max}};
  for (const auto& [stat, field] : stats) {
    out.push_back({std::string(stat) + "_" + name + "_ms", "ms", std::string(stat) + " " + what, MetricSection::latency,
                   false, [member, field](const Summary& s, const SloParams&) { return (s.*member).*field; }});
  }
}

void add_latencies(std::vector<SummaryMetric>& out) {
  add_latency(out, "ttft", "time to first token (arrival to first token, queueing included)", &Summary::ttft);
  add_latency(out, "tpot", "time per output token after the first, per request", &Summary::tpot);
  add_latency(out, "itl", "gap between successive token emissions, all requests", &Summary::itl);
  add_latency(out, "e2el", "end-to-end latency (arrival to finish)", &Summary::e2el);
  add_latency(out, "queue", "arrival to first scheduled step", &Summary::queue);
  declared(out, "mean_ttft_ms").golden(13);
  declared(out, "median_ttft_ms").row("TTFT p50 ms", 2, kEvery, 30, kRatio).golden(14);
  declared(out, "p99_ttft_ms").row("TTFT p99 ms", 2, kEvery, 40, kRatio).golden(15);
  declared(out, "mean_tpot_ms").golden(16);
  declared(out, "median_tpot_ms").row("TPOT p50 ms", 3, kEvery, 50, kRatio).golden(17);
  declared(out, "p99_tpot_ms").row("TPOT p99 ms", 3, kEvery, 60, kRatio).golden(18);
  declared(out, "median_itl_ms").row("ITL p50 ms", 3, kEvery, 70, kRatio).golden(19);
  declared(out, "p99_itl_ms").row("ITL p99 ms", 3, kEvery, 80, kRatio).golden(20);
  declared(out, "median_e2el_ms").golden(21);
  declared(out, "p99_e2el_ms").golden(22);
  SectionBuilder b(out, MetricSection::latency);
  b.count("num_replicas", "", "model replicas", [](const Summary& s) { return as_double(s.num_replicas); });
  b.count("num_gpus", "", "GPUs of all replicas", [](const Summary& s) { return as_double(s.num_gpus); });
  b.num("tput_per_gpu", "tokens/s", "total_token_throughput / GPUs (cached input counts)",
        [](const Summary& s) { return s.tput_per_gpu; })
      .row("throughput tok/s/GPU", 1, kEvery, 10, kRatio)
      .golden(11);
  b.num("output_tput_per_gpu", "tokens/s", "output_throughput / GPUs",
        [](const Summary& s) { return s.output_tput_per_gpu; })
      .row("output tok/s/GPU", 1, kEvery, 20, kRatio)
      .golden(12);
  b.num("input_tput_per_gpu", "tokens/s", "input_throughput / GPUs",
        [](const Summary& s) { return s.input_tput_per_gpu; });
  b.num("intvty", "tokens/s/user", "1000 / mean TPOT (the same as mean_intvty)",
        [](const Summary& s) { return s.mean_intvty; });
  b.num("mean_intvty", "tokens/s/user", "1000 / mean TPOT", [](const Summary& s) { return s.mean_intvty; });
  b.num("median_intvty", "tokens/s/user", "1000 / median TPOT", [](const Summary& s) { return s.median_intvty; })
      .row("interactivity 1000/TPOT p50 tok/s/user", 1, kEvery, 90, kRatio)
      .golden(23);
}

double opt_ms(const std::optional<Time>& t) { return t ? t->millis() : std::nan(""); }

void add_slo(std::vector<SummaryMetric>& out) {
  SectionBuilder b(out, MetricSection::slo);
  b.with_slo("slo_ttft_ms", "the TTFT bound goodput counts against (null without one)",
             [](const SloParams& slo) { return opt_ms(slo.ttft); });
  b.with_slo("slo_tpot_ms", "the TPOT bound (null without one)", [](const SloParams& slo) { return opt_ms(slo.tpot); });
  b.with_slo("slo_e2el_ms", "the end-to-end bound (null without one)",
             [](const SloParams& slo) { return opt_ms(slo.e2el); });
}

void add_run_figures(std::vector<SummaryMetric>& out) {
  SectionBuilder b(out, MetricSection::run);
  b.count("preemptions", "", "sequences preempted (recompute), all replicas",
          [](const Summary& s) { return as_double(s.preemptions); })
      .row("preemptions", 0, kEvery, 120, kNoRatio)
      .golden(25, 0.01, 2.0)
      .sweep();
  b.num("decode_padding_share", "", "dummy decode rows of CUDA-graph padding / all decode rows stepped",
        [](const Summary& s) { return s.decode_padding_share; })
      .row("decode padding %", 1, kEvery, 130, kNoRatio, Shown::percent);
  b.num("prefix_cache_hit_rate", "", "prompt tokens served from the prefix cache / prompt tokens",
        [](const Summary& s) { return s.prefix_cache_hit_rate; })
      .row("prefix cache hit %", 1, kWindowed, 310, kNoRatio, Shown::percent)
      .share(26)
      .sweep();
  b.num("mean_kv_usage", "", "time-weighted share of KV blocks held by running sequences, over replicas",
        [](const Summary& s) { return s.mean_kv_usage; })
      .row("KV usage mean %", 1, kEvery, 110, kNoRatio, Shown::percent)
      .share(27)
      .sweep();
  b.num("gpu_busy_fraction", "", "time replicas spent in steps / (duration x replicas)",
        [](const Summary& s) { return s.gpu_busy_fraction; })
      .share(28)
      .sweep();
  b.num("engram_stall_s", "s", "exposed Engram fetch stall, summed over replicas", [](const Summary& s) {
     return s.engram_stall_s;
   }).sweep();
  b.num("engram_fetch_s", "s", "Engram fetch time, hidden or not, summed over replicas", [](const Summary& s) {
     return s.engram_fetch_s;
   }).sweep();
  b.num("engram_stall_share", "", "engram_stall_s / busy time", [](const Summary& s) { return s.engram_stall_share; })
      .row("Engram stall % of busy", 3, kEvery, 100, kNoRatio, Shown::percent)
      .share(29);
  b.num("usd_per_gpu_hour", "$/GPU-hour", "the run's all-in price per GPU-hour", [](const Summary& s) {
     return s.usd_per_gpu_hour;
   }).row("$/GPU-hour", 3, kEvery, 140, kRatio);
  b.num("cost_usd", "$", "usd_per_gpu_hour x GPUs x duration", [](const Summary& s) { return s.cost_usd; });
  b.num("tokens_per_dollar", "tokens/$", "(input + output tokens) / cost_usd",
        [](const Summary& s) { return s.tokens_per_dollar; })
      .golden(30)
      .sweep();
  b.num("output_tokens_per_dollar", "tokens/$", "output tokens / cost_usd",
        [](const Summary& s) { return s.output_tokens_per_dollar; });
  b.num("usd_per_m_total_tokens", "$/M tokens", "cost of a million input + output tokens", [](const Summary& s) {
     return s.usd_per_m_total_tokens;
   }).row("$/M tok total", 4, kEvery, 150, kRatio);
  b.num("usd_per_m_output_tokens", "$/M tokens", "cost of a million output tokens", [](const Summary& s) {
     return s.usd_per_m_output_tokens;
   }).row("$/M tok output", 4, kEvery, 180, kRatio);
  b.num("usd_per_m_input_tokens", "$/M tokens", "cost of a million input tokens (cached included)",
        [](const Summary& s) { return s.usd_per_m_input_tokens; })
      .row("$/M tok input (cached incl.)", 4, kEvery, 160, kRatio);
  b.num("usd_per_m_uncached_input_tokens", "$/M tokens", "cost of a million prompt tokens computed (not cached)",
        [](const Summary& s) {
          return s.uncached_input_tokens > 0 ? s.cost_usd / as_double(s.uncached_input_tokens) * 1e6 : std::nan("");
        })
      .row("$/M uncached input tok", 4, kEvery, 170, kRatio)
      .table_only();
  b.num("m_tokens_per_dollar", "M tokens/$", "tokens_per_dollar / 1e6", [](const Summary& s) {
     return s.m_tokens_per_dollar;
   }).row("tokens per $ (M)", 3, kEvery, 190, kRatio);
  b.num("m_output_tokens_per_dollar", "M tokens/$", "output_tokens_per_dollar / 1e6",
        [](const Summary& s) { return s.m_output_tokens_per_dollar; });
  b.num("power_kw_per_gpu", "kW", "all-in power per GPU the energy figures use",
        [](const Summary& s) { return s.power_kw_per_gpu; });
  b.num("tokens_per_s_per_mw", "tokens/s/MW", "tput_per_gpu / all-in MW per GPU", [](const Summary& s) {
     return s.tokens_per_s_per_mw;
   }).row("tok/s per all-in MW (M)", 3, kEvery, 200, kRatio, Shown::millions);
  b.num("joules_per_token", "J", "all-in energy per input + output token", [](const Summary& s) {
     return s.joules_per_token;
   }).row("J per token", 4, kEvery, 210, kRatio);
  b.count("steps", "", "engine steps, all replicas", [](const Summary& s) { return static_cast<double>(s.steps); })
      .golden(31, 0.01, 2.0)
      .sweep();
  b.count("events", "", "simulation events processed", [](const Summary& s) {
     return static_cast<double>(s.events);
   }).sweep();
}

void add_agentic(std::vector<SummaryMetric>& out) {
  SectionBuilder b(out, MetricSection::agentic);
  b.count("excluded_requests", "", "warm-up and other unmeasured requests, counted nowhere else",
          [](const Summary& s) { return as_double(s.excluded_requests); })
      .row("warm-up/unmeasured requests", 0, kWindowed, 330, kNoRatio)
      .exact(101);
  b.count("cached_input_tokens", "tokens", "prompt tokens of completed requests served from the prefix cache",
          [](const Summary& s) { return as_double(s.cached_input_tokens); })
      .sweep();
  b.count("uncached_input_tokens", "tokens", "the rest of their prompt tokens (prefill computed)",
          [](const Summary& s) { return as_double(s.uncached_input_tokens); });
  b.num("cached_input_tput_per_gpu", "tokens/s", "cached_input_tokens / duration / GPUs", [](const Summary& s) {
     return s.cached_input_tput_per_gpu;
   }).golden(102);
  b.num("uncached_input_tput_per_gpu", "tokens/s", "uncached_input_tokens / duration / GPUs", [](const Summary& s) {
     return s.uncached_input_tput_per_gpu;
   }).golden(103);
  b.num("p90_e2e_norm_intvty", "tokens/s/user", "1 / P90 of (E2E seconds / output tokens), the dashboard's x-axis",
        [](const Summary& s) { return s.p90_e2e_norm_intvty; })
      .row("P90 E2E-norm intvty tok/s/user", 1, kWindowed, 300, kRatio)
      .golden(104);
  b.num("median_e2e_norm_intvty", "tokens/s/user", "the same with the median",
        [](const Summary& s) { return s.median_e2e_norm_intvty; });
  b.num("p90_itl_intvty", "tokens/s/user", "1000 / P90 ITL", [](const Summary& s) {
     return s.p90_itl_intvty;
   }).golden(105);
  b.num("ideal_prefix_hit_rate", "", "what an unbounded prefix cache would hit / prompt tokens",
        [](const Summary& s) { return s.ideal_prefix_hit_rate; })
      .row("ideal prefix hit %", 1, kWindowed, 320, kNoRatio, Shown::percent)
      .share(106)
      .sweep();
  b.count("recomputed_prefix_tokens", "tokens", "reusable prompt tokens that missed (evicted before reuse)",
          [](const Summary& s) { return as_double(s.recomputed_prefix_tokens); })
      .row("recomputed prefix tokens (M)", 3, kOffload, 430, kNoRatio, Shown::millions)
      .golden(108)
      .sweep();
  b.count("recomputed_tokens", "tokens", "KV tokens dropped by preemption and computed again", [](const Summary& s) {
     return as_double(s.recomputed_tokens);
   }).sweep();
  b.count("kv_evictions", "", "cached prefix blocks evicted, all replicas",
          [](const Summary& s) { return as_double(s.kv_evictions); })
      .golden(109)
      .sweep();
  b.count("num_sessions", "", "sessions with completed requests",
          [](const Summary& s) { return as_double(s.num_sessions); });
  b.num("session_hit_rate_p10", "", "10th percentile over sessions of cached / prompt tokens",
        [](const Summary& s) { return s.session_hit_rate_p10; });
  b.num("session_hit_rate_median", "", "median over sessions of cached / prompt tokens", [](const Summary& s) {
     return s.session_hit_rate_median;
   }).share(107);
}

void add_kv_offload(std::vector<SummaryMetric>& out) {
  SectionBuilder b(out, MetricSection::kv_offload);
  b.num("gpu_prefix_hit_rate", "", "prompt tokens hit in GPU blocks / prompt tokens", [](const Summary& s) {
     return s.gpu_prefix_hit_rate;
   }).row("prefix hit % from GPU", 1, kOffload, 400, kNoRatio, Shown::percent);
  b.num("host_prefix_hit_rate", "", "prompt tokens hit in the host pool / prompt tokens", [](const Summary& s) {
     return s.host_prefix_hit_rate;
   }).row("prefix hit % from host pool", 1, kOffload, 410, kNoRatio, Shown::percent);
  b.num("session_gpu_hit_rate_median", "", "median over sessions of the GPU part",
        [](const Summary& s) { return s.session_gpu_hit_rate_median; });
  b.num("session_host_hit_rate_median", "", "median over sessions of the host part", [](const Summary& s) {
     return s.session_host_hit_rate_median;
   }).row("session host hit % median", 1, kOffload, 420, kNoRatio, Shown::percent);
  b.count("offloaded_input_tokens", "tokens", "the host-pool part of cached_input_tokens",
          [](const Summary& s) { return as_double(s.offloaded_input_tokens); });
  b.count("kv_offload_written_blocks", "", "blocks copied to the host pool (GPU evictions)",
          [](const Summary& s) { return as_double(s.kv_offload_written_blocks); });
  b.count("kv_offload_loaded_blocks", "", "blocks loaded back from the host pool",
          [](const Summary& s) { return as_double(s.kv_offload_loaded_blocks); });
  b.count("kv_offload_evictions", "", "blocks the full host pools dropped (LRU)",
          [](const Summary& s) { return as_double(s.kv_offload_evictions); });
  b.num("kv_offload_written_gb", "GB", "host-link bytes written (D2H), decimal GB", [](const Summary& s) {
     return s.kv_offload_written_gb;
   }).row("KV offload written GB", 1, kOffload, 440, kNoRatio);
  b.num("kv_offload_loaded_gb", "GB", "host-link bytes loaded (H2D), decimal GB", [](const Summary& s) {
     return s.kv_offload_loaded_gb;
   }).row("KV offload loaded GB", 1, kOffload, 450, kNoRatio);
  b.num("kv_offload_load_s", "s", "step time added by loads, summed over replicas", [](const Summary& s) {
     return s.kv_offload_load_s;
   }).row("KV load time s (all replicas)", 3, kOffload, 460, kNoRatio);
  b.num("kv_offload_write_s", "s", "copy-stream time of the writes",
        [](const Summary& s) { return s.kv_offload_write_s; });
  b.num("kv_offload_write_exposed_s", "s", "the part of the writes that outlasted the steps",
        [](const Summary& s) { return s.kv_offload_write_exposed_s; });
}

void add_disaggregation(std::vector<SummaryMetric>& out) {
  SectionBuilder b(out, MetricSection::disaggregation);
  b.count("prefill_gpus", "", "GPUs of the prefill pool", [](const Summary& s) {
     return as_double(s.prefill_gpus);
   }).row("prefill pool GPUs", 0, kDisaggregated, 500, kNoRatio);
  b.count("decode_gpus", "", "GPUs of the decode pool", [](const Summary& s) {
     return as_double(s.decode_gpus);
   }).row("decode pool GPUs", 0, kDisaggregated, 505, kNoRatio);
  // Per GPU of the pool that does the work: what pools are sized by and disaggregated deployments
  // publish (SGLang and DeepSeek per node of each pool).
  b.num("prefill_input_tput_per_gpu", "tokens/s", "input_throughput / prefill_gpus: prompt tokens per prefill-pool GPU",
        [](const Summary& s) { return per_pool_gpu(s.input_throughput, s.prefill_gpus); })
      .row("prefill pool input tok/s/GPU", 1, kDisaggregated, 506, kRatio);
  b.num("decode_output_tput_per_gpu", "tokens/s", "output_throughput / decode_gpus: output tokens per decode-pool GPU",
        [](const Summary& s) { return per_pool_gpu(s.output_throughput, s.decode_gpus); })
      .row("decode pool output tok/s/GPU", 1, kDisaggregated, 507, kRatio);
  b.num("remote_prefill_share", "", "requests sent to the prefill pool / requests routed", [](const Summary& s) {
     return s.remote_prefill_share;
   }).row("prefilled on prefill pool %", 1, kDisaggregated, 510, kNoRatio, Shown::percent);
  b.num("prefill_busy_fraction", "", "prefill pool step time / (its replicas x run time)", [](const Summary& s) {
     return s.prefill_busy_fraction;
   }).row("prefill pool busy %", 1, kDisaggregated, 515, kNoRatio, Shown::percent);
  b.num("prefill_prefix_hit_rate", "", "prompt tokens the prefill pool found cached / its prompt tokens",
        [](const Summary& s) { return s.prefill_prefix_hit_rate; })
      .row("prefill pool prefix hit %", 1, kDisaggregated, 520, kNoRatio, Shown::percent);
  b.count("kv_transfers", "", "KV transfers from the prefill to the decode pool",
          [](const Summary& s) { return as_double(s.kv_transfers); });
  b.num("kv_transfer_gb", "GB", "KV bytes moved between the pools, decimal GB", [](const Summary& s) {
     return s.kv_transfer_gb;
   }).row("KV transferred GB", 1, kDisaggregated, 525, kNoRatio);
  b.num("mean_prefill_queue_ms", "ms", "TTFT part: waiting for a prefill replica (mean, remote prefills)",
        [](const Summary& s) { return s.mean_prefill_queue_ms; })
      .row("TTFT mean: prefill queue ms", 2, kDisaggregated, 530, kNoRatio);
  b.num("mean_prefill_ms", "ms", "TTFT part: the prefill (mean, remote prefills)", [](const Summary& s) {
     return s.mean_prefill_ms;
   }).row("TTFT mean: prefill ms", 2, kDisaggregated, 535, kNoRatio);
  b.num("mean_decode_queue_ms", "ms",
        "TTFT part: the decode replica's front end and wait for KV blocks (mean, remote prefills)",
        [](const Summary& s) { return s.mean_decode_queue_ms; })
      .row("TTFT mean: decode queue ms", 2, kDisaggregated, 540, kNoRatio);
  b.num("mean_kv_transfer_ms", "ms", "TTFT part: the KV transfer, setup included (mean, remote prefills)",
        [](const Summary& s) { return s.mean_kv_transfer_ms; })
      .row("TTFT mean: KV transfer ms", 3, kDisaggregated, 545, kNoRatio);
}

std::vector<SummaryMetric> build_summary_metrics() {
  std::vector<SummaryMetric> out;
  add_counts(out);
  add_latencies(out);
  add_slo(out);
  add_run_figures(out);
  add_agentic(out);
  add_kv_offload(out);
  add_disaggregation(out);
  return out;
}

}  // namespace

const std::vector<SummaryMetric>& summary_metrics() {
  static const std::vector<SummaryMetric> list = build_summary_metrics();
  return list;
}

double summary_metric_value(const std::vector<SummaryMetric>& list, const std::string& key, const Summary& s,
                            const SloParams& slo) {
  for (const SummaryMetric& m : list)
    if (m.key == key) return m.value(s, slo);
  throw std::out_of_range("no summary metric named " + key);
}

std::vector<const SummaryMetric*> run_table_metrics(const std::vector<SummaryMetric>& list, bool windowed, bool offload,
                                                    bool disaggregated) {
  std::vector<const SummaryMetric*> out;
  for (const SummaryMetric& m : list) {
    if (!m.row) continue;
    if (m.row->group == MetricSection::agentic && !windowed) continue;
    if (m.row->group == MetricSection::kv_offload && !offload) continue;
    if (m.row->group == MetricSection::disaggregation && !disaggregated) continue;
    out.push_back(&m);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->row->rank < b->row->rank; });
  return out;
}

double shown_value(const SummaryMetric& m, const Summary& s, const SloParams& slo) {
  const double v = m.value(s, slo);
  const Shown shown = m.row ? m.row->shown : Shown::plain;
  if (shown == Shown::percent) return 100.0 * v;
  if (shown == Shown::millions) return v / 1e6;
  return v;
}

std::vector<MetricValue> golden_values(const std::vector<SummaryMetric>& list, const Summary& s) {
  std::vector<const SummaryMetric*> kept;
  for (const SummaryMetric& m : list)
    if (m.golden && section_written(m.section, s)) kept.push_back(&m);
  std::stable_sort(kept.begin(), kept.end(),
                   [](const auto* a, const auto* b) { return a->golden->rank < b->golden->rank; });
  std::vector<MetricValue> out;
  for (const SummaryMetric* m : kept) out.push_back({m->key, m->value(s, {}), m->integer});
  return out;
}

GoldenCheck golden_check(const std::vector<SummaryMetric>& list, const std::string& key) {
  for (const SummaryMetric& m : list)
    if (m.key == key && m.golden) return *m.golden;
  throw std::out_of_range("no golden metric named " + key);
}

std::string golden_check_words(const GoldenCheck& c) {
  if (c.rel == 0.0 && c.abs == 0.0) return "exact";
  if (c.rel == 0.0) return "abs " + printf_number(c.abs, "%.6g");
  return "rel " + printf_number(100.0 * c.rel, "%.6g") + " % + " + printf_number(c.abs, "%.6g");
}

std::vector<MetricValue> sweep_values(const std::vector<SummaryMetric>& list, const Summary& s) {
  std::vector<MetricValue> out;
  for (const SummaryMetric& m : list)
    if (m.in_sweep) out.push_back({m.key, m.value(s, {}), m.integer});
  return out;
}

namespace {

// Where else than summary.json a metric shows, in words.
std::string other_outputs(const SummaryMetric& m) {
  std::string out;
  const auto add = [&out](const std::string& what) { out += (out.empty() ? "" : "; ") + what; };
  if (m.row) add("run table \"" + m.row->label + "\"");
  if (m.golden) add("goldens (" + golden_check_words(*m.golden) + ")");
  if (m.in_sweep) add("sweep results");
  return out;
}

}  // namespace

std::string summary_metrics_markdown(const std::vector<SummaryMetric>& list) {
  std::string out = "| key | unit | in summary.json | also in | meaning |\n|---|---|---|---|---|\n";
  for (const SummaryMetric& m : list)
    out += "| `" + m.key + "` | " + m.unit + " | " + (m.in_summary_json ? to_string(m.section) : "no") + " | " +
           other_outputs(m) + " | " + m.meaning + " |\n";
  return out;
}

}  // namespace engramsim::sim
