#include "sim/serving/scheduler_registry.hpp"

#include "core/error.hpp"
#include "sim/serving/continuous_batching_scheduler.hpp"
#include "sim/serving/prefill_first_scheduler.hpp"
#include "sim/serving/static_batching_scheduler.hpp"

namespace engramsim::sim {

void SchedulerRegistry::add(const std::string& name, Factory factory) { factories_[name] = std::move(factory); }

std::unique_ptr<Scheduler> SchedulerRegistry::create(const SchedulerParams& p) const {
  const auto it = factories_.find(p.name);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& [n, f] : factories_) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError({}, "scheduler.name", "unknown scheduler '" + p.name + "' (known: " + known + ")");
  }
  if (p.max_num_batched_tokens <= 0) throw ConfigError({}, "scheduler.max_num_batched_tokens", "must be positive");
  if (p.max_num_seqs <= 0) throw ConfigError({}, "scheduler.max_num_seqs", "must be positive");
  if (p.long_prefill_token_threshold < 0) {
    throw ConfigError({}, "scheduler.long_prefill_token_threshold", "must be >= 0");
  }
  if (p.chunk_size <= 0) throw ConfigError({}, "scheduler.chunk_size", "must be positive");
  return it->second(p);
}

std::vector<std::string> SchedulerRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, f] : factories_) out.push_back(n);
  return out;
}

std::int32_t step_token_budget(const SchedulerParams& p) {
  return p.name == "sarathi" ? p.chunk_size : p.max_num_batched_tokens;
}

void register_builtin_schedulers(SchedulerRegistry& r) {
  r.add("vllm", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<ContinuousBatchingScheduler>("vllm", p.max_num_batched_tokens, p.max_num_seqs,
                                                         p.enable_chunked_prefill, p.long_prefill_token_threshold);
  });
  // TensorRT-LLM in-flight batching: the same step shape, admission under GUARANTEED_NO_EVICT.
  r.add("trtllm", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<ContinuousBatchingScheduler>("trtllm", p.max_num_batched_tokens, p.max_num_seqs,
                                                         p.enable_chunked_prefill, p.long_prefill_token_threshold,
                                                         guaranteed_no_evict_kv_policy());
  });
  r.add("sarathi", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<ContinuousBatchingScheduler>("sarathi", p.chunk_size, p.max_num_seqs, true, p.chunk_size,
                                                         sarathi_kv_policy());
  });
  r.add("prefill_first", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<PrefillFirstScheduler>(p.max_num_batched_tokens, p.max_num_seqs);
  });
  r.add("static", [](const SchedulerParams& p) -> std::unique_ptr<Scheduler> {
    return std::make_unique<StaticBatchingScheduler>(p.max_num_seqs);
  });
}

}  // namespace engramsim::sim
