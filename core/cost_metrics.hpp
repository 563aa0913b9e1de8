// Cost and energy per token from a throughput, a GPU-hour price and an all-in power per GPU.
//
// One pure function; every command that prices a run (run, sweep, plan, report) calls it, so a
// figure is defined once. Inputs are per GPU: tokens/s (total = input + output), USD per GPU-hour
// all-in at the chosen price tier, and all-in kW (server, network and cooling share). Definitions
// follow the InferenceX dashboard (docs/planning.md "Cost metrics"):
//   usd_per_m_*          $/GPU-hour / (tok/s/GPU x 3600 / 1e6), for total, input and output tokens
//   m_tokens_per_usd     tok/s/GPU x 3600 / ($/GPU-hour) / 1e6, millions of total tokens per dollar
//   m_output_tokens_per_usd  the same for output tokens
//   tokens_per_s_per_mw  total tok/s/GPU / (kW/GPU / 1000): throughput per all-in megawatt
//   joules_per_token     kW x 1000 / total tok/s/GPU
// A figure whose denominator is not positive (no throughput, no price, no power) or whose inputs are
// not finite is NaN, never infinity: it is written as null in JSON and as "n/a" in tables.
#pragma once

#include <string>

#include "core/units.hpp"

namespace engramsim {

struct CostInputs {
  double total_tokens_per_s_per_gpu = 0.0;
  double input_tokens_per_s_per_gpu = 0.0;
  double output_tokens_per_s_per_gpu = 0.0;
  MoneyRate usd_per_gpu_hour;     // all-in at the chosen tier
  double power_kw_per_gpu = 0.0;  // all-in
};

struct CostMetrics {
  double usd_per_m_total_tokens = 0.0;
  double usd_per_m_input_tokens = 0.0;
  double usd_per_m_output_tokens = 0.0;
  double m_tokens_per_usd = 0.0;
  double m_output_tokens_per_usd = 0.0;
  double tokens_per_s_per_mw = 0.0;
  double joules_per_token = 0.0;
};

CostMetrics cost_metrics(const CostInputs& in);

// GPUs paid for per GPU a replica uses, when whole nodes are bought and each node holds as many
// replicas as fit: 1 when the replica's GPU count divides the node's (TP1/2/4/8 on 8 GPUs); 8/5
// for TP5 on 8 (one replica, three idle GPUs); whole nodes for a replica spanning nodes. `sweep`,
// `run` and `plan` all price a GPU-hour at this share, so idle GPUs of a node are paid for
// everywhere (plan further rounds the fleet up to whole nodes at its target load).
double paid_gpus_per_used_gpu(int gpus_per_replica, int gpus_per_node);

// Human renderings for tables and prose, three significant digits in fixed point (never scientific): "$0.43 /M tok",
// "82.8 M tok/$", "12.3 M tok/s/MW", "0.52 J/tok"; "n/a" for NaN.
std::string format_usd_per_mtok(double usd_per_m_tokens);
std::string format_mtok_per_usd(double m_tokens_per_usd);
std::string format_tokens_per_mw(double tokens_per_s_per_mw);
std::string format_joules_per_token(double joules_per_token);

}  // namespace engramsim
