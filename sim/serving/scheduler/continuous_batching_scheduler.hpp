// Continuous batching with chunked prefill under a per-step token budget (vLLM v1 style; Sarathi-
// Serve's stall-free batching is the same mechanism with the budget set to its fixed chunk size).
//
// Each step, in this order, within `budget` tokens and `max_num_seqs` running sequences:
//  1. decodes of running sequences, oldest admission first (decode-first: a long prompt never
//     delays the next token of a sequence already generating). Each needs KV for 1 + draft
//     positions; when the pool is short the latest-admitted sequence not yet placed in this step is
//     preempted by recompute (possibly the one asking), until it fits;
//  2. unfinished prefills of running sequences, oldest first, each chunk at most the remaining
//     budget and the per-sequence cap; a chunk shrinks to the KV that is free, and when nothing is
//     free a later-admitted unplaced sequence is preempted;
//  3. if nothing was preempted this step (or the policy admits after preemption), new or preempted sequences from the
//  head of the waiting
//     queue (FCFS, prefix-cache hits first), each with a first chunk; the first one that does not
//     fit ends admission (head-of-line order is kept, as vLLM does).
// With chunked prefill off, a prefill must fit in the remaining budget whole, except that a prompt
// longer than the whole budget may run alone in an otherwise empty step.
//
// How KV is committed and reclaimed is a KvPolicy (docs/simulator.md, "Preemption"):
//  - vLLM v1 (`vllm`): blocks for the first chunk only at admission, growth later, the latest-
//    admitted sequence evicted by recompute when the pool runs short, no admission in a step that
//    evicted, no watermark;
//  - Sarathi-Serve as Vidur models it (`sarathi`): the whole remaining prefill reserved at
//    admission with 1 % of the pool's blocks kept free, the latest-arrived sequence evicted,
//    admission continuing after an eviction (the watermark gates it);
//  - TensorRT-LLM GUARANTEED_NO_EVICT (`trtllm`): admitted only when the pool can hold the whole
//    life, prompt + output + draft lookahead, held from admission on, so nothing is evicted.
// Evicted sequences go back to the front of the waiting queue and recompute their KV.
#pragma once

#include "sim/serving/replica_state.hpp"
#include "sim/serving/scheduler/scheduler.hpp"

namespace engramsim::sim {

struct KvPolicy {
  AdmissionReserve reserve = AdmissionReserve::first_chunk;
  double watermark_fraction = 0.0;  // share of the pool's blocks that admission leaves free
  VictimOrder victim = VictimOrder::latest_admitted;
  bool admit_after_preemption = false;
};

// The policies of the engines above.
KvPolicy vllm_v1_kv_policy();
KvPolicy sarathi_kv_policy();
KvPolicy guaranteed_no_evict_kv_policy();

// `vllm` and `trtllm`: the budget is max_num_batched_tokens; prompts chunked or whole.
struct VllmParams {
  std::int32_t max_num_batched_tokens = 8192;
  std::int32_t max_num_seqs = 256;
  bool enable_chunked_prefill = true;
  std::int32_t long_prefill_token_threshold = 0;  // cap on one sequence's prefill chunk; 0 = none
  static VllmParams from(const SchedulerParams& p);
};

// `sarathi`: chunk_size is both the step budget and the largest chunk; prompts always chunked.
struct SarathiParams {
  std::int32_t chunk_size = 512;
  std::int32_t max_num_seqs = 256;
  static SarathiParams from(const SchedulerParams& p);
};

class ContinuousBatchingScheduler final : public Scheduler {
 public:
  ContinuousBatchingScheduler(const char* name, const VllmParams& params, KvPolicy policy = vllm_v1_kv_policy());
  // Named "sarathi", under sarathi_kv_policy().
  explicit ContinuousBatchingScheduler(const SarathiParams& params);
  const char* name() const override { return name_; }
  void schedule(ReplicaState& state, StepPlan& plan) override;

 private:
  ContinuousBatchingScheduler(const char* name, std::int32_t budget, std::int32_t max_num_seqs, bool chunked_prefill,
                              std::int32_t max_chunk, KvPolicy policy);

  const char* name_;
  std::int32_t budget_;
  std::int32_t max_num_seqs_;
  bool chunked_;
  std::int32_t max_chunk_;
  KvPolicy policy_;
};

}  // namespace engramsim::sim
