// The `scheduler:`, `slo:` and `router:` sections of a scenario file -> validated parameters.
//   scheduler: {name: vllm, max_num_batched_tokens: 8192, max_num_seqs: 256,
//               enable_chunked_prefill: true, long_prefill_token_threshold: 0, chunk_size: 512}
//   slo: {ttft: 2s, tpot: 50ms, e2el: 60s}      # each optional
//   router: least_outstanding
// Scheduler and router names are checked against the registries given (ConfigError at the node).
#pragma once

#include <string>

#include "core/config_node.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/serving/router_registry.hpp"
#include "sim/serving/scheduler.hpp"
#include "sim/serving/scheduler_registry.hpp"

namespace engramsim::sim {

SchedulerParams parse_scheduler(const ConfigNode& node, const SchedulerRegistry& registry);
SloParams parse_slo(const ConfigNode& node);
std::string parse_router(const ConfigNode& scalar, const RouterRegistry& registry);

}  // namespace engramsim::sim
