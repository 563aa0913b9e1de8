#include "sim/serving/scheduler/scheduler_registry.hpp"

#include "core/error.hpp"
#include "sim/serving/scheduler/continuous_batching_scheduler.hpp"
#include "sim/serving/scheduler/prefill_first_scheduler.hpp"
#include "sim/serving/scheduler/static_batching_scheduler.hpp"

namespace engramsim::sim {

std::unique_ptr<Scheduler> SchedulerRegistry::create(const SchedulerParams& p) const {
  const Factory& factory = at(p.name);
  if (p.max_num_batched_tokens <= 0) throw ConfigError({}, "scheduler.max_num_batched_tokens", "must be positive");
  if (p.max_num_seqs <= 0) throw ConfigError({}, "scheduler.max_num_seqs", "must be positive");
  if (p.long_prefill_token_threshold < 0) {
    throw ConfigError({}, "scheduler.long_prefill_token_threshold", "must be >= 0");
  }
  if (p.chunk_size <= 0) throw ConfigError({}, "scheduler.chunk_size", "must be positive");
  return factory(p);
}

std::int32_t step_token_budget(const SchedulerParams& p) {
  return p.name == "sarathi" ? p.chunk_size : p.max_num_batched_tokens;
}

void register_builtin_schedulers(SchedulerRegistry& r) {
  // Each policy reads only its own parameters from the scenario's section.
  r.add("vllm", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<ContinuousBatchingScheduler>("vllm", VllmParams::from(p));
  });
  // TensorRT-LLM in-flight batching: the same step shape, admission under GUARANTEED_NO_EVICT.
  r.add("trtllm", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<ContinuousBatchingScheduler>("trtllm", VllmParams::from(p),
                                                         guaranteed_no_evict_kv_policy());
  });
  r.add("sarathi", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<ContinuousBatchingScheduler>(SarathiParams::from(p));
  });
  r.add("prefill_first", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<PrefillFirstScheduler>(PrefillFirstParams::from(p));
  });
  r.add("static", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<StaticBatchingScheduler>(StaticBatchingParams::from(p));
  });
}

}  // namespace engramsim::sim
