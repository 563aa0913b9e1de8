// Scheduling policies by name. A registry is an ordinary object (no global instance): the caller
// fills it with register_builtin_schedulers() and may add its own policies.
//
// Built-in names:
//   vllm           continuous batching, chunked prefill, decode-first, budget max_num_batched_tokens
//   sarathi        the same mechanism with the budget fixed to chunk_size (Sarathi-Serve)
//   prefill_first  whole prefills before decodes (vLLM v0 without chunked prefill)
//   static         request-level batches, KV reserved up front
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/serving/scheduler.hpp"

namespace engramsim::sim {

class SchedulerRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Scheduler>(const SchedulerParams&)>;
  void add(const std::string& name, Factory factory);
  // Validates the parameters common to all policies; unknown names and bad values throw ConfigError.
  std::unique_ptr<Scheduler> create(const SchedulerParams& params) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Factory> factories_;
};

void register_builtin_schedulers(SchedulerRegistry& registry);

}  // namespace engramsim::sim
