// Prefill/decode disaggregation: a prefill pool and a decode pool of replicas, and the KV cache of
// each request moving between them over the cluster fabric (sim/fabric/cluster_fabric.hpp).
//
// A request's path (as vLLM's disaggregated prefill with a NIXL connector runs it, and Dynamo's and
// llm-d's routers put it; docs/disaggregation.md):
//   1. the decode router picks the decode replica (sticky sessions keep a session's prefix there);
//      when that replica's prefix cache leaves at most `local_prefill_threshold` prompt tokens to
//      compute, the request is prefilled there and never visits the prefill pool (conditional
//      disaggregation); otherwise
//   2. the prefill router picks a prefill replica, which runs the prompt with one output token;
//   3. the request joins the decode replica's waiting queue; when it reaches the head, the
//      replica reserves blocks for its whole prompt (its local prefix hits included) or waits, as
//      for any admission, and the blocks its prefix cache lacks are copied from the prefill
//      replica's GPUs as flows on the fabric (kv_transfer.hpp decides which ranks send what);
//   4. when the last flow lands, the blocks join the decode replica's prefix cache and the request
//      is admitted ahead of new work with its last prompt token to compute, then decodes to the
//      end. TTFT (from the original arrival) includes the prefill queue, the prefill, the wait for
//      blocks, the transfer and the decode admission.
// The prefill replica keeps the prompt in its own prefix cache; its blocks are freed when its
// one-token request finishes (vLLM holds them until the decode side has read them: that wait is not
// modelled, docs/disaggregation.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/fabric/cluster_fabric.hpp"
#include "sim/fabric/fabric.hpp"
#include "sim/serving/kv/kv_transfer.hpp"
#include "sim/serving/replica/replica.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/router/router.hpp"
#include "sim/serving/router/router_registry.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"
#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

// One pool's nodes: replicas are packed onto nodes of this kind in order, each on
// ceil(gpus / node GPUs) whole nodes when it does not fit one.
struct PoolPlacement {
  fabric::NodeFabricParams node;
  // Attention ranks that hold a request's KV: the replica's TP size, or 1 under data-parallel
  // attention (the request lives on one rank; kv_ranks_per_request below).
  int kv_ranks = 1;
  // Ranks of the replica whose GPUs hold the KV (kv_ranks of them, the replica's first GPUs).
  KvLayout layout = KvLayout::replicated;
};

struct KvTransferParams {
  // One token's KV over all layers: for the whole replica (sharded) or for one rank (replicated).
  // Both pools run the same model with the same KV format.
  Bytes bytes_per_token;
  PoolPlacement prefill;
  PoolPlacement decode;
  // Fixed cost of one transfer beside the flows (connector handshake and completion notice).
  Time setup;
  std::string backend = "native";  // fabric backend (fabric.hpp)
  fabric::FabricOptions fabric_options;
};

struct DisaggregationParams {
  std::vector<ReplicaParams> prefill_replicas;
  SchedulerParams prefill_scheduler;
  std::string prefill_router = "least_outstanding";
  KvTransferParams transfer;
  // A request whose prompt its decode replica would compute at most this many tokens of is
  // prefilled there (0: every request goes through the prefill pool).
  std::int32_t local_prefill_threshold = 0;
};

// Totals of the disaggregated path, for the run's summary.
struct DisaggregationTotals {
  std::int64_t remote_prefills = 0;  // requests prefilled on the prefill pool
  std::int64_t local_prefills = 0;   // requests the decode pool prefilled itself
  std::int64_t transfers = 0;        // transfers with at least one byte
  Bytes transferred;                 // bytes over all flows
  Time transfer_time;                // sum over transfers, first flow start to last flow end
  Time prefill_busy;                 // prefill pool step time, summed over its replicas
  std::int32_t prefill_gpus = 0;
  std::int32_t decode_gpus = 0;
};

}  // namespace engramsim::sim
