// The scheduling-policy interface of a replica, and the parameters policies are built from.
//
// Once per step, when the replica is free, the policy looks at the replica's state (running list,
// waiting queue, KV pool), admits / preempts sequences and fills the step plan. It must keep the
// Sequence token invariant (sequence.hpp), hold KV blocks for every token it plans (computed +
// prefill tokens, or computed + decode positions), and place each sequence at most once per step.
// An empty plan means the replica idles until the next arrival.
//
// Implementations are chosen by name through a SchedulerRegistry (scheduler_registry.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "sim/serving/replica_state.hpp"
#include "sim/serving/step_plan.hpp"

namespace engramsim::sim {

// What a scenario's scheduler section says, whichever policy it names. Each policy takes its own
// typed parameters from it (VllmParams, SarathiParams, PrefillFirstParams, StaticBatchingParams
// beside the implementations), so no policy reads a field that is not its own.
struct SchedulerParams {
  std::string name = "vllm";
  std::int32_t max_num_batched_tokens = 8192;     // token budget per step (prefill tokens + decode positions)
  std::int32_t max_num_seqs = 256;                // running sequences at most
  bool enable_chunked_prefill = true;             // split prompts across steps (vllm, sarathi)
  std::int32_t long_prefill_token_threshold = 0;  // cap on one sequence's prefill chunk; 0 = none
  std::int32_t chunk_size = 512;                  // sarathi: the fixed token budget per step
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual const char* name() const = 0;
  // Plans the next step; `plan` arrives cleared and state.begin_step() has been called.
  virtual void schedule(ReplicaState& state, StepPlan& plan) = 0;
};

}  // namespace engramsim::sim
