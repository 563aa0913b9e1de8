// Scheduling policies by name. A registry is an ordinary object (no global instance): the caller
// fills it with register_builtin_schedulers() and may add its own policies.
//
// Built-in names:
//   vllm           continuous batching, chunked prefill, decode-first, budget max_num_batched_tokens
//   sarathi        the same mechanism with the budget fixed to chunk_size, under Sarathi-Serve's
//                  KV policy (whole-prompt reservation, watermark, latest-arrival victim)
//   prefill_first  whole prefills before decodes (vLLM v0 without chunked prefill)
//   static         request-level batches, KV reserved up front
#pragma once

#include <functional>
#include <memory>

#include "core/registry.hpp"
#include "sim/serving/scheduler/scheduler.hpp"

namespace engramsim::sim {

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(const SchedulerParams&)>;

// add() of a name already there throws std::logic_error (core/registry.hpp).
class SchedulerRegistry : public Registry<SchedulerFactory> {
 public:
  using Factory = SchedulerFactory;
  SchedulerRegistry() : Registry("scheduler", "scheduler.name") {}
  // Validates the parameters common to all policies; unknown names and bad values throw ConfigError.
  std::unique_ptr<Scheduler> create(const SchedulerParams& params) const;
};

void register_builtin_schedulers(SchedulerRegistry& registry);

// The most tokens one step of the policy can hold: chunk_size for sarathi (its budget, which
// Sarathi-Serve also sizes its activation memory by), max_num_batched_tokens otherwise.
std::int32_t step_token_budget(const SchedulerParams& params);

}  // namespace engramsim::sim
