// The result object of one evaluated point, as stored under "result" in results.jsonl.
//
// The planner's analyses (Pareto, tokens per dollar, report) read only these fields, so an
// evaluator fills a PointMetrics and stores to_json(metrics); anything else it wants to keep goes
// in `extra` and is carried through untouched. Definitions follow InferenceX
// (reference/engram-and-hardware-facts.md §3.2):
//   throughput_per_gpu        total (input + output) tokens/s divided by the GPUs of one replica
//   output_throughput_per_gpu generated tokens/s per GPU
//   interactivity             tok/s/user = 1000 / median TPOT in ms; for an agentic replay the
//                             dashboard's P90 E2E-normalised interactivity, 1 / P90(E2E s / output
//                             tokens) (docs/agentic.md "Metrics")
//   cost_per_gpu_hour_usd     all-in $/GPU-hour per GPU used: the GPU price tier plus amortised Engram
//                             DRAM/SSD capacity per GPU, times the GPUs paid per GPU used (a node's
//                             idle GPUs, core/cost_metrics.hpp); tokens per dollar divide by this
//   power_kw_per_gpu          all-in kW per GPU used (the GPU preset's power_kw, times the same share)
// to_json also writes the cost metrics of core/cost_metrics.hpp (usd_per_m_{total,input,output}_tokens,
// m_tokens_per_dollar, m_output_tokens_per_dollar, tokens_per_s_per_mw, joules_per_token), derived
// from the fields above by cost_metrics_of() and never read back.
// Latencies are milliseconds. Fields absent from a JSON result read back as NaN (numbers) or empty.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cost_metrics.hpp"

namespace engramsim::planner {

struct Percentiles {
  double p50 = 0.0;
  double p90 = 0.0;
  double p99 = 0.0;
};

// One term of the per-GPU HBM budget (weights, engram, kv_pool, activations, reserve, ...).
struct FootprintTerm {
  std::string term;
  double gib = 0.0;
};

struct PointMetrics {
  int gpus = 0;                     // GPUs per replica (tp x pp x ...)
  double concurrency = 0.0;         // concurrent requests (closed loop) or NaN for open loop
  double request_rate = 0.0;        // requests/s offered (open loop) or achieved
  double throughput_per_gpu = 0.0;  // tok/s/GPU, input + output
  double output_throughput_per_gpu = 0.0;
  double interactivity = 0.0;  // tok/s/user
  Percentiles ttft_ms;
  Percentiles tpot_ms;
  Percentiles e2e_ms;
  double gpu_hour_usd = 0.0;                 // GPU price alone at the chosen tier
  double cost_per_gpu_hour_usd = 0.0;        // all-in, see header
  double power_kw_per_gpu = 0.0;             // all-in; NaN/0 when unknown
  std::string engram_tier;                   // hbm | dram | ssd | none
  double engram_stall_share = 0.0;           // exposed Engram stall / step time, 0..1
  std::vector<FootprintTerm> hbm_footprint;  // per GPU, in stacking order
  std::vector<double> ttft_samples_ms;       // for CDFs; may be a quantile summary (see downsample_quantiles)
  std::vector<double> tpot_samples_ms;
  nlohmann::json extra = nlohmann::json::object();
};

nlohmann::json to_json(const PointMetrics& m);
// The point's cost metrics at its all-in price (cost_per_gpu_hour_usd, else gpu_hour_usd).
CostMetrics cost_metrics_of(const PointMetrics& m);
PointMetrics metrics_from_json(const nlohmann::json& j);

// tokens per dollar = tok/s/GPU * 3600 / ($/GPU-hour); 0 when the price is not positive.
double tokens_per_dollar(double tokens_per_s_per_gpu, double usd_per_gpu_hour);
// $/M tokens = ($/GPU-hour) / (tok/s/GPU * 3600 / 1e6); +inf when throughput is not positive.
double usd_per_million_tokens(double tokens_per_s_per_gpu, double usd_per_gpu_hour);

// n evenly spaced quantiles (type 7, linear between order statistics) of `samples`, for storing a
// CDF compactly in a result line. Returns the samples sorted when there are n or fewer.
std::vector<double> downsample_quantiles(std::vector<double> samples, std::size_t n = 101);

}  // namespace engramsim::planner
