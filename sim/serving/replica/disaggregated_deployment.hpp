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
// The prefill replica keeps the prompt's blocks after its one-token request finishes, until the
// decode side has them (the transfer's last flow landed): vLLM's NixlConnector delays their free
// until the decode side has read them, SGLang's prefill frees them when the send completes. A
// request the decode replica refuses frees them at once. Afterwards they stay in the prefill
// replica's prefix cache.
//
// With KvSend::per_chunk (SGLang's disaggregation) steps 2 and 3 swap and the transfer overlaps the
// prefill: the request joins the decode replica's queue on arrival; when it reaches the head the
// replica reserves its blocks, and only then (after the transfer setup, the bootstrap handshake)
// does the prefill replica get the prompt; after every prompt chunk it computes, the newly computed
// part the decode side lacks goes as flows; the request is admitted when its prefill has finished
// and the last flow has landed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/kv_send.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/fabric/cluster_fabric.hpp"
#include "sim/fabric/fabric.hpp"
#include "sim/fabric/shared_fabric.hpp"
#include "sim/memory/engram_tier_service.hpp"
#include "sim/serving/disaggregation_totals.hpp"
#include "sim/serving/kv/kv_transfer.hpp"
#include "sim/serving/replica/replica.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/router/router.hpp"
#include "sim/serving/router/router_registry.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"
#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

// One pool's nodes: replicas are packed onto nodes of this kind in order, each on
// ceil(gpus / node GPUs) whole nodes when it does not fit one. Two pools of the same node kind
// share nodes (the decode pool's GPUs follow the prefill pool's).
struct PoolPlacement {
  std::string node_name;  // the node kind
  fabric::NodeFabricParams node;
  int domain_gpus = 0;  // GPUs of one scale-up domain (NVLink across nodes, GB200 NVL72); 0: one node
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
  // Fixed cost of one transfer beside the flows (connector handshake and completion notice); with
  // per_chunk sends it is the bootstrap handshake between the reservation and the prefill.
  Time setup;
  KvSend send = KvSend::after_prefill;  // the engine's (models/kv_send.hpp)
  std::string backend = "native";       // fabric backend (fabric.hpp)
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
  // The prefill pool's in-run Engram tier (`replicas` taken from prefill_replicas); unset: the step
  // model's formula stall.
  std::optional<EngramTierParams> prefill_engram_tier;
};

// Where each replica's GPUs sit in the cluster: prefill replicas first, then decode replicas.
struct ClusterPlacement {
  std::vector<fabric::NodeFabricParams> nodes;
  std::vector<int> domains;                          // per node
  std::vector<std::vector<fabric::GpuRef>> prefill;  // [replica][rank]
  std::vector<std::vector<fabric::GpuRef>> decode;
};
// Throws std::invalid_argument for a replica without GPUs or a node kind without GPUs.
ClusterPlacement place_pools(const PoolPlacement& prefill, const std::vector<int>& prefill_gpus,
                             const PoolPlacement& decode, const std::vector<int>& decode_gpus);

// Both pools placed and the fabric of their nodes: the KV transfers cross it, and so does the
// in-run Engram tier of each pool that has one, on one shared fabric (fabric_events.hpp).
struct DisaggregatedCluster {
  ClusterPlacement placement;
  fabric::ClusterFabric fabric;
};
// `decode_gpus`: GPUs of each decode replica. Throws std::invalid_argument for a placement the
// fabric cannot build.
DisaggregatedCluster build_disaggregated_cluster(const DisaggregationParams& params,
                                                 const std::vector<int>& decode_gpus);

// The prefill pool of a disaggregated deployment and the KV transfers out of it. The deployment
// (deployment.hpp) owns it, routes each request through prefill() and gives its decode replicas
// this object as their KvSource.
class DisaggregatedPrefill final : public ServingObserver,
                                   public KvSource,
                                   public EventHandler,
                                   public fabric::FlowOwner {
 public:
  // Hands a request to decode replica `target` of the deployment (its arrival already announced);
  // false when the replica refused it (it can never fit there).
  using Deliver = std::function<bool(std::size_t target, Request&& request)>;
  // Tells the deployment's observers of a request the prefill pool refused.
  using Reject = std::function<void(const RequestRecord& record)>;

  // `cluster` and `fabric` (built on cluster.fabric's topology) outlive this object. Throws
  // ConfigError for an empty prefill pool.
  DisaggregatedPrefill(Simulation& sim, const DisaggregationParams& params, const SchedulerRegistry& schedulers,
                       std::unique_ptr<Router> router, const DisaggregatedCluster& cluster,
                       fabric::SharedFabric& fabric);
  DisaggregatedPrefill(const DisaggregatedPrefill&) = delete;
  DisaggregatedPrefill& operator=(const DisaggregatedPrefill&) = delete;

  void connect(Deliver deliver, Reject reject);
  // Whether decode replica `decode` computes the request itself (conditional disaggregation);
  // counted in the totals when it does.
  bool prefill_locally(const Replica& decode, const Request& request);
  // Sends a request to the prefill pool; its KV goes to decode replica `target` afterwards.
  void prefill(const Request& request, std::size_t target);

  void on_request_done(const RequestRecord& record) override;  // prefill replicas
  void on_prompt_progress(std::uint32_t replica, const Sequence& sequence) override;
  void on_kv_reserved(Replica& replica, std::uint32_t slot, const Request& request, std::int64_t tokens) override;
  void on_event(std::uint64_t tag) override;
  // A KV flow landed: handled in an event at this instant, not inside whoever advanced the fabric.
  void on_flow_done(const fabric::FlowCompletion& c) override;

  const std::vector<std::unique_ptr<Replica>>& replicas() const { return replicas_; }
  DisaggregationTotals totals() const;
  // Finalize: requests still in the prefill pool, as the requests the deployment received.
  void collect_unfinished(std::vector<RequestRecord>& out) const;

 private:
  static constexpr std::uint64_t kNoTransfer = UINT64_MAX;
  struct Pending {
    Request request;  // as the deployment received it
    std::size_t target = 0;
    std::size_t prefill_replica = 0;
    Time delivered = Time::max();  // when it joined the decode queue
    // per_chunk, once the decode side has reserved: its transfer, the prompt positions it lacks
    // ([send_from, prompt)) and those already on their way ([send_from, sent)).
    std::uint64_t transfer = kNoTransfer;
    std::int64_t send_from = 0;
    std::int64_t sent = 0;
    Time submitted = Time::max();  // when the prefill replica got it
  };
  struct Transfer {
    Replica* replica = nullptr;
    std::uint32_t slot = 0;
    int flows_left = 0;
    Time start;  // what the transfer time counts from: the reservation, or the prefill's end (per_chunk)
    bool measured = false;
    bool prefilling = false;  // per_chunk: the prefill still computes chunks to send
    bool counted = false;     // in totals_.transfers (once it moved bytes)
    std::size_t prefill_replica = 0;
    std::uint64_t request = 0;  // its id: the prefill replica holds its blocks until the transfer ends
  };
  void reserved_after_prefill(Replica& replica, std::uint32_t slot, Pending& p, std::int64_t tokens);
  void reserved_before_prefill(Replica& replica, std::uint32_t slot, Pending& p, std::int64_t tokens);
  void submit_due();
  void prefill_done_after_reservation(const RequestRecord& record, Pending& p);
  // Sends the KV of `tokens` prompt tokens of `p` to its decode replica as flows from `start` on.
  void start_flows(const Pending& p, std::size_t decode_replica, std::int64_t tokens, std::uint64_t transfer,
                   Time start);
  void finish_when_landed(std::uint64_t transfer);
  void finish_transfer(std::uint64_t transfer);
  void land_flows();

  Simulation& sim_;
  KvTransferParams transfer_;
  std::int32_t local_threshold_;
  std::vector<ServingObserver*> observers_;  // this object: what the prefill replicas tell
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::unique_ptr<Router> router_;
  std::vector<ReplicaLoad> loads_;
  const ClusterPlacement& placement_;
  const fabric::ClusterFabric& cluster_;
  fabric::SharedFabric& fabric_;
  Deliver deliver_;
  Reject reject_;
  std::map<std::uint64_t, Pending> pending_;  // by request id: in the prefill pool, then until reserved
  std::map<std::uint64_t, Transfer> transfers_;
  std::map<fabric::FlowId, std::uint64_t> flow_transfer_;
  std::vector<std::uint64_t> instant_;              // transfers of no bytes, done at the next event
  std::vector<fabric::FlowId> landed_;              // flows landed, handled at the next event
  std::multimap<Time, std::uint64_t> submissions_;  // per_chunk: prefills due after their bootstrap
  std::uint64_t next_transfer_ = 0;
  DisaggregationTotals totals_;
};

}  // namespace engramsim::sim
