// One model instance (TP x EP GPUs) serving requests: its step-time model, KV pool, scheduling
// policy and speculative-decoding acceptance.
//
// Event model: a replica is either idle or running exactly one step. Starting a step asks the
// policy for a plan, turns it into a BatchShape over buffers reused across steps, asks the
// StepTimeModel for the step's cost and schedules the step's completion at now + cost.total (at
// least 1 ns). Completion applies the plan: prefill progress, emitted tokens (a sampled first
// token when a prefill completes; 1..positions tokens per decode), finished requests; then the next
// step starts at once. A request arriving at an idle replica schedules a wake-up at the current
// instant (after all arrivals at that instant), so simultaneous arrivals share a step. No event
// exists per token.
//
// The per-step Engram stall (StepCost::engram_stall) is kept apart in the step records and totals.
//
// The step's cost comes from a step executor (step_executor.hpp): by formula, or, with an in-run
// Engram tier (ReplicaParams::engram_in_run set and a step model with Engram layers), from the
// fetch's flows on the node fabric (engram_in_run.hpp): the step's end is scheduled only once the
// fetch is done, end = start + compute + host overhead + the stall measured on the fabric (the
// formula's stall is dropped). The step record is emitted then, with the measured stall and what
// the fetch moved.
//
// Host KV-offload pool (ReplicaParams::kv.offload_blocks > 0; docs/agentic.md "KV offload tier"):
// the blocks a step's planning evicts from the GPU prefix cache are written to host DRAM on a copy
// stream, overlapped with the step (it ends no earlier than the copy); the blocks its admissions
// load from the pool are copied to the GPU before the step computes (its time grows by the load).
// Each copy takes latency + bytes / link bandwidth per GPU, the replica's GPUs moving their shares
// in parallel; one transfer per admitting sequence (loads) or per step (writes).
//
// Front end (ReplicaParams::frontend; docs/cost-model.md "Front end"): an accepted request first
// passes the engine's front end, W workers taking requests in arrival order, each for prompt_tokens x
// per_prompt_token, and joins the scheduler's queue when its worker is done. The request keeps its
// arrival time, so the front end's time and queue count in TTFT and E2E.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.hpp"
#include "models/step_model.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/serving/decode_padding.hpp"
#include "sim/serving/engram_in_run.hpp"
#include "sim/serving/replica/step_executor.hpp"
#include "sim/serving/replica_state.hpp"
#include "sim/serving/router/router.hpp"
#include "sim/serving/scheduler/scheduler.hpp"
#include "sim/serving/serving_observer.hpp"
#include "sim/serving/spec_decode.hpp"

namespace engramsim::sim {

// The host link a replica's KV-offload copies cross (kv_offload_pool.hpp).
struct KvOffloadLink {
  Bytes block_bytes_per_gpu;  // one KV block's bytes on each GPU of the replica (its share)
  Bandwidth bandwidth;        // host link per GPU, per direction
  Time latency;               // per transfer
};

// The replica's front end: prompt tokenisation before the scheduler (none when either is zero).
struct FrontendParams {
  Time per_prompt_token;  // per token of the whole prompt, cached prefix included
  std::int32_t workers = 1;
  bool active() const { return per_prompt_token > Time::zero() && workers > 0; }
};

class Replica;

// Where a replica gets the KV of requests prefilled elsewhere (disaggregated_deployment.hpp): told
// when blocks are reserved for `tokens` prompt tokens of the request in `slot`, it answers later
// with Replica::receive_kv(slot).
class KvSource {
 public:
  virtual void on_kv_reserved(Replica& replica, std::uint32_t slot, const Request& request, std::int64_t tokens) = 0;

 protected:
  ~KvSource() = default;
};

struct ReplicaParams {
  std::string name;                           // for reports; defaults to "replica<i>"
  const StepTimeModel* step_model = nullptr;  // not owned; must outlive the run
  KvPoolParams kv;
  std::int32_t gpus = 1;  // GPUs this replica occupies (TP x EP), for per-GPU metrics and cost
  SpecDecodeParams spec;
  // In-run Engram tier of this run (not owned); null: the step model's formula stall.
  EngramInRun* engram_in_run = nullptr;
  // CUDA-graph padding of decode-only steps (decode_padding.hpp); empty: none.
  DecodePadding decode_padding;
  // > 0: a request whose prompt plus output exceeds it is rejected on arrival, as an OpenAI-compatible
  // server refuses a prompt + max_tokens beyond the engine's max_model_len; 0: no limit.
  std::int64_t max_model_len = 0;
  // Prices the KV-offload copies when kv.offload_blocks > 0.
  KvOffloadLink offload_link;
  FrontendParams frontend;
  // Requests prefilled elsewhere get their KV from here (not owned); null: none may arrive.
  KvSource* kv_source = nullptr;
  // A finished request keeps its blocks until release_kv(its id): a prefill replica of a
  // disaggregated deployment, whose KV the decode side has yet to read.
  bool hold_finished_kv = false;
};

struct ReplicaTotals {
  std::uint64_t steps = 0;
  Time busy;
  Time engram_stall;
  Time engram_fetch;
  std::int64_t prefill_tokens = 0;
  std::int64_t decode_positions = 0;
  std::int64_t emitted_tokens = 0;
  std::int64_t preemptions = 0;
  std::int64_t padding_rows = 0;  // dummy decode positions added by CUDA-graph padding
  std::int64_t kv_evictions = 0;  // cached prefix blocks evicted from the KV pool
  // Host KV-offload pool (zero without one).
  std::int64_t offload_written_blocks = 0;
  std::int64_t offload_loaded_blocks = 0;
  std::int64_t offload_evictions = 0;  // blocks the full pool dropped
  Bytes offload_written_bytes;         // whole replica
  Bytes offload_loaded_bytes;
  Time offload_load_time;      // added to steps by loads
  Time offload_write_time;     // copy-stream time of the writes (overlapped)
  Time offload_write_exposed;  // part of it that outlasted the step
};

class Replica final : public EventHandler, public StepCostSink {
 public:
  Replica(Simulation& sim, std::uint32_t index, const ReplicaParams& params, std::unique_ptr<Scheduler> scheduler,
          const std::vector<ServingObserver*>& observers);

  std::uint32_t index() const { return index_; }
  const std::string& name() const { return name_; }
  std::int32_t gpus() const { return gpus_; }
  const ReplicaState& state() const { return state_; }
  ReplicaTotals totals() const;
  ReplicaLoad load() const;

  // Whether submit() would take the request: it fits max_model_len and, alone, the KV pool.
  bool accepts(const Request& request) const;
  // Accepts a request at the current simulation time (or rejects it when it can never fit).
  void submit(Request&& request);
  void on_event(std::uint64_t tag) override;
  void on_step_priced(const StepCost& model, Time start, const EngramStepOutcome* in_run) override;
  // The KV of the receiving sequence in `slot` has arrived (called by the KvSource).
  void receive_kv(std::uint32_t slot);
  // Frees the blocks a finished request kept (ReplicaParams::hold_finished_kv).
  void release_kv(std::uint64_t request_id);
  // Finalize: records of requests still waiting or running, in slot order.
  void collect_unfinished(std::vector<RequestRecord>& out) const;

 private:
  // Hands an accepted request to the scheduler's queue and wakes the replica if it is idle.
  void enqueue(Request&& request);
  void start_step();
  // The plan as the step model's batch: prefill chunks, decodes, CUDA-graph padding rows.
  void fill_batch(Time now);
  void complete_step();
  // Tells the KV source of the reservations the step's planning made.
  void request_remote_kv();
  // Prices the offload traffic the step's planning caused (counters since `before`).
  void price_offload(const KvOffloadCounters& before);
  void emit(std::uint32_t slot, std::int32_t tokens);
  RequestRecord make_record(const Sequence& s, RequestStatus status) const;

  Simulation& sim_;
  std::uint32_t index_;
  std::string name_;
  const StepTimeModel* model_;
  std::int32_t gpus_;
  std::int64_t max_model_len_;
  std::unique_ptr<Scheduler> scheduler_;
  const std::vector<ServingObserver*>& observers_;
  ReplicaState state_;
  AcceptanceSampler acceptance_;
  RngStream* spec_rng_;
  StepPlan plan_;
  std::vector<PrefillChunk> prefill_buf_;
  std::vector<DecodeSeq> decode_buf_;
  ReplicaTotals totals_;
  bool busy_ = false;
  bool wake_pending_ = false;
  std::unique_ptr<StepExecutor> executor_;
  DecodePadding padding_;
  // Host KV-offload pool.
  KvOffloadLink offload_link_;
  Time step_load_;   // H2D time of the step being planned
  Time step_write_;  // D2H time of the step being planned
  // Front end: requests being tokenised, in order of completion (ties in order of entry, as their
  // events fire); each worker is busy until its entry of frontend_free_.
  FrontendParams frontend_params_;
  KvSource* kv_source_;
  bool hold_finished_kv_;
  std::map<std::uint64_t, std::uint32_t> held_slots_;           // by request id
  std::map<std::pair<Time, std::uint64_t>, Request> frontend_;  // keyed (done, order of entry)
  std::vector<Time> frontend_free_;
  std::uint64_t frontend_entries_ = 0;
};

}  // namespace engramsim::sim
