// The aggregate results of a run, named as `vllm bench serve` and InferenceX name them.
//
// Definitions (times in ms unless the name says otherwise):
//   duration               first arrival -> end of the run (the last completion when the run drains)
//   completed              requests that generated all their output tokens
//   total_input_tokens     prompt tokens of completed requests; total_output_tokens likewise
//   request_throughput     completed / duration; output_throughput, input_throughput,
//                          total_token_throughput (input + output) per second likewise
//   ttft                   first token - arrival (includes queueing)
//   tpot                   (finish - first token) / (output tokens - 1), requests with > 1 token
//   itl                    gaps between successive token emissions of a request, over all
//                          requests (a speculative step emitting several tokens is one gap)
//   e2el                   finish - arrival
//   queue                  first scheduled step - arrival
//   percentiles            numpy "linear" rule over per-request values (ITL: histogram, <= 0.1%)
//   std                    population standard deviation
//   request_goodput        completed requests meeting every SLO bound given / duration (NaN
//                          when no SLO was given); goodput_fraction = that count / completed
//   tput_per_gpu           total_token_throughput / GPUs; output_ and input_tput_per_gpu likewise
//   mean_intvty            1000 / mean TPOT (tokens/s per user); median_intvty from median TPOT
//   mean_kv_usage          time-weighted used KV fraction over duration and replicas
//   gpu_busy_fraction      time replicas spent in steps / (duration * replicas)
//   engram_stall_share     exposed Engram stall time / busy time
//   decode_padding_share   dummy decode positions of CUDA-graph padding / all decode positions
//                          stepped (real + dummy); 0 without padding, NaN without decodes
//   cost_usd               usd_per_gpu_hour * GPUs * duration; tokens_per_dollar (input + output)
//                          and output_tokens_per_dollar from it
//   usd_per_m_{total,input,output}_tokens, m_tokens_per_dollar, m_output_tokens_per_dollar,
//   tokens_per_s_per_mw, joules_per_token  core/cost_metrics.hpp from the per-GPU throughputs,
//                          usd_per_gpu_hour and power_kw_per_gpu
// Windowed runs (the agentic replay, a closed loop with warm-up; SummaryInputs::windowed): only
// requests with RequestRecord::measured count anywhere in the summary (`excluded_requests` counts the
// others), and duration is the last finish minus the first arrival of the measured requests (the
// dashboard's total_tput_tps denominator). Agentic quantities (computed for every run, written for windowed ones):
//   cached_input_tokens    prompt tokens of completed requests served from the prefix cache;
//   uncached_input_tokens  the rest of their prompt tokens (prefill actually computed);
//   cached_input_tput_per_gpu, uncached_input_tput_per_gpu  those / duration / GPUs (their sum with
//                          output_tput_per_gpu is tput_per_gpu: cached input counts);
//   p90_e2e_norm_intvty    1 / P90 over completed requests of (E2E seconds / output tokens), the
//                          dashboard's "P90 E2E-normalised interactivity" (tokens/s/user);
//                          median_e2e_norm_intvty with the median;
//   p90_itl_intvty         1000 / P90 ITL (ms): the 1/ITL view at the same percentile;
//   ideal_prefix_hit_rate  reusable prompt tokens (what an unbounded cache would hold) / prompt
//                          tokens, completed requests with a known reusable count;
//   recomputed_prefix_tokens  reusable tokens that missed (evicted before reuse), summed;
//   recomputed_tokens      KV tokens dropped by preemption and computed again;
//   kv_evictions           cached prefix blocks evicted, whole run, all replicas;
//   session_hit_rate_p10, session_hit_rate_median  over sessions (completed requests grouped by
//                          session), each session's cached / prompt tokens; num_sessions.
// Host KV-offload pool (SummaryInputs::kv_offload set; written only then). Hits split by where they
// were served, both over completed requests' prompt tokens at first admission:
//   gpu_prefix_hit_rate, host_prefix_hit_rate  their sum is prefix_cache_hit_rate;
//   session_gpu_hit_rate_median, session_host_hit_rate_median  the per-session split, medians;
//   kv_offload_written_gb, kv_offload_loaded_gb  host-link bytes (D2H of GPU evictions, H2D of hits),
//                          whole run, all replicas (decimal GB); _blocks the same in blocks;
//   kv_offload_evictions   blocks the full host pools dropped (LRU);
//   kv_offload_load_s      step time added by loads, summed over replicas; kv_offload_write_s the
//                          copy-stream time of the writes and kv_offload_write_exposed_s its part
//                          that outlasted the steps.
// Quantities that are undefined (no completed requests, no price) are NaN and written as null.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/units.hpp"
#include "sim/metrics/metrics_collector.hpp"
#include "sim/serving/disaggregation_totals.hpp"

namespace engramsim::sim {

struct SloParams {
  std::optional<Time> ttft;
  std::optional<Time> tpot;
  std::optional<Time> e2el;
  bool any() const { return ttft || tpot || e2el; }
};

struct LatencySummary {
  double mean = 0, median = 0, std = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;  // ms
};

struct Summary {
  std::int64_t num_requests = 0;
  std::int64_t completed = 0;
  std::int64_t unfinished = 0;
  std::int64_t rejected = 0;
  std::int64_t total_input_tokens = 0;
  std::int64_t total_output_tokens = 0;
  std::int64_t generated_tokens = 0;  // by every request, finished or not
  double duration_s = 0;
  double request_throughput = 0;
  double request_goodput = 0;
  double goodput_fraction = 0;
  double input_throughput = 0;
  double output_throughput = 0;
  double total_token_throughput = 0;
  LatencySummary ttft, tpot, itl, e2el, queue;
  std::int32_t num_replicas = 0;
  std::int32_t num_gpus = 0;
  double tput_per_gpu = 0;
  double output_tput_per_gpu = 0;
  double input_tput_per_gpu = 0;
  double mean_intvty = 0;
  double median_intvty = 0;
  std::int64_t preemptions = 0;
  double decode_padding_share = 0;  // dummy rows of CUDA-graph padding / all decode rows stepped
  double mean_decode_rows = 0;      // real decode rows per step, over every replica's steps
  double prefix_cache_hit_rate = 0;
  double mean_kv_usage = 0;
  double gpu_busy_fraction = 0;
  double engram_stall_s = 0;
  double engram_fetch_s = 0;
  double engram_stall_share = 0;
  double usd_per_gpu_hour = 0;
  double cost_usd = 0;
  double tokens_per_dollar = 0;
  double output_tokens_per_dollar = 0;
  double usd_per_m_total_tokens = 0;
  double usd_per_m_output_tokens = 0;
  double usd_per_m_input_tokens = 0;
  double m_tokens_per_dollar = 0;
  double m_output_tokens_per_dollar = 0;
  double power_kw_per_gpu = 0;
  double tokens_per_s_per_mw = 0;
  double joules_per_token = 0;
  std::uint64_t steps = 0;
  std::uint64_t events = 0;
  // Agentic quantities (definitions above).
  bool windowed = false;
  std::int64_t excluded_requests = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t uncached_input_tokens = 0;
  double cached_input_tput_per_gpu = 0;
  double uncached_input_tput_per_gpu = 0;
  double p90_e2e_norm_intvty = 0;
  double median_e2e_norm_intvty = 0;
  double p90_itl_intvty = 0;
  double ideal_prefix_hit_rate = 0;
  std::int64_t recomputed_prefix_tokens = 0;
  std::int64_t recomputed_tokens = 0;
  std::int64_t kv_evictions = 0;
  std::int64_t num_sessions = 0;
  double session_hit_rate_p10 = 0;
  double session_hit_rate_median = 0;
  // Host KV-offload pool (definitions above).
  bool kv_offload = false;
  double gpu_prefix_hit_rate = 0;
  double host_prefix_hit_rate = 0;
  double session_gpu_hit_rate_median = 0;
  double session_host_hit_rate_median = 0;
  std::int64_t offloaded_input_tokens = 0;  // the host-pool part of cached_input_tokens
  std::int64_t kv_offload_written_blocks = 0;
  std::int64_t kv_offload_loaded_blocks = 0;
  std::int64_t kv_offload_evictions = 0;
  double kv_offload_written_gb = 0;
  double kv_offload_loaded_gb = 0;
  double kv_offload_load_s = 0;
  double kv_offload_write_s = 0;
  double kv_offload_write_exposed_s = 0;
  // Prefill/decode disaggregation (sim/serving/disaggregation_totals.hpp): the pools' GPUs (their
  // sum is num_gpus), the share of requests that went through the prefill pool, how busy its
  // replicas were over the run, its prefix hits, the KV moved, and the mean parts of those
  // requests' TTFT (measured requests only).
  bool disaggregated = false;
  std::int32_t prefill_gpus = 0;
  std::int32_t decode_gpus = 0;
  double remote_prefill_share = 0;
  double prefill_busy_fraction = 0;
  double prefill_prefix_hit_rate = 0;
  std::int64_t kv_transfers = 0;
  double kv_transfer_gb = 0;
  double mean_prefill_queue_ms = 0;
  double mean_prefill_ms = 0;
  double mean_decode_queue_ms = 0;
  double mean_kv_transfer_ms = 0;
};

// Host KV-offload totals of a run, all replicas (replica.hpp ReplicaTotals).
struct KvOffloadTotals {
  std::int64_t written_blocks = 0;
  std::int64_t loaded_blocks = 0;
  std::int64_t evictions = 0;
  Bytes written_bytes;
  Bytes loaded_bytes;
  Time load_time;
  Time write_time;
  Time write_exposed;
};

struct SummaryInputs {
  const MetricsCollector* metrics = nullptr;  // finalized
  Time end_time;                              // simulation clock at the end of the run
  std::int32_t num_replicas = 0;
  std::int32_t num_gpus = 0;
  std::int64_t preemptions = 0;
  std::int64_t decode_positions = 0;  // real decode rows stepped, all replicas
  std::int64_t padding_rows = 0;      // dummy rows added by CUDA-graph padding
  SloParams slo;
  std::optional<MoneyRate> price_per_gpu_hour;
  double power_kw_per_gpu = 0.0;  // all-in; 0 leaves tokens per MW and joules per token NaN
  std::uint64_t events = 0;
  bool windowed = false;                               // count only RequestRecord::measured requests
  std::int64_t kv_evictions = 0;                       // all replicas
  std::optional<KvOffloadTotals> kv_offload;           // set when the replicas have host KV-offload pools
  std::optional<DisaggregationTotals> disaggregation;  // set for a disaggregated deployment
};

Summary summarize(const SummaryInputs& in);

// numpy-style percentile (linear interpolation) of a sorted, non-empty sample.
double percentile_sorted(const std::vector<double>& sorted, double p);
// Summary of a sample of values in ms (sorts a copy); all NaN when empty.
LatencySummary summarize_latencies(std::vector<double> values_ms);

}  // namespace engramsim::sim
