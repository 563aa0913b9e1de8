// What the disaggregated path of a run did (sim/serving/replica/disaggregated_deployment.hpp), for
// its summary (sim/metrics/summary.hpp).
#pragma once

#include <cstdint>

#include "core/units.hpp"

namespace engramsim::sim {

struct DisaggregationTotals {
  std::int64_t remote_prefills = 0;  // requests sent to the prefill pool
  std::int64_t local_prefills = 0;   // requests the decode pool prefilled itself
  std::int64_t transfers = 0;        // transfers with at least one byte
  Bytes transferred;                 // bytes over all flows
  Time transfer_time;                // summed over transfers, reservation to arrival
  Time prefill_busy;                 // prefill pool step time, summed over its replicas
  std::int32_t prefill_replicas = 0;
  std::int32_t prefill_gpus = 0;
  std::int32_t decode_gpus = 0;
  std::int64_t prefill_prompt_tokens = 0;  // prompts the prefill pool finished
  std::int64_t prefill_cached_tokens = 0;  // of them, prefix-cache hits on the prefill pool
  // Measured requests that went through the prefill pool, and the parts of their TTFT summed over
  // them: waiting for a prefill replica (its front end included), the prefill, the decode
  // replica's front end and wait for KV blocks, the transfer.
  std::int64_t measured_remote = 0;
  Time measured_prefill_queue;
  Time measured_prefill;
  Time measured_decode_queue;
  Time measured_transfer;
};

}  // namespace engramsim::sim
