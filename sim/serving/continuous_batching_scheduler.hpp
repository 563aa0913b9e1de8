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
//  3. if nothing was preempted this step, new or preempted sequences from the head of the waiting
//     queue (FCFS, prefix-cache hits first), each with a first chunk; the first one that does not
//     fit ends admission (head-of-line order is kept, as vLLM does).
// With chunked prefill off, a prefill must fit in the remaining budget whole, except that a prompt
// longer than the whole budget may run alone in an otherwise empty step.
//
// Admission is either optimistic (vLLM: blocks for the first chunk only, growth later, preemption
// by recompute when the pool runs short) or guaranteed (TensorRT-LLM's GUARANTEED_NO_EVICT capacity
// policy: a request is admitted only when the pool can hold its whole life, prompt + output + draft
// lookahead, and those blocks are held from admission on, so a running sequence is never evicted).
#pragma once

#include "sim/serving/scheduler.hpp"

namespace engramsim::sim {

class ContinuousBatchingScheduler final : public Scheduler {
 public:
  ContinuousBatchingScheduler(const char* name, std::int32_t budget, std::int32_t max_num_seqs, bool chunked_prefill,
                              std::int32_t max_chunk, bool guaranteed_admission = false);
  const char* name() const override { return name_; }
  void schedule(ReplicaState& state, StepPlan& plan) override;

 private:
  const char* name_;
  std::int32_t budget_;
  std::int32_t max_num_seqs_;
  bool chunked_;
  std::int32_t max_chunk_;
  bool guaranteed_;
};

}  // namespace engramsim::sim
