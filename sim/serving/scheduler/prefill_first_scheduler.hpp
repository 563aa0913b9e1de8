// Prefill-first batching (vLLM v0 without chunked prefill): whenever waiting requests can be
// admitted, a step runs only their whole prefills (FCFS, within the token budget and max_num_seqs;
// a prompt longer than the budget runs alone); otherwise the step decodes every running sequence,
// preempting the latest-admitted unplaced sequence by recompute when KV runs out. New prompts thus
// get short TTFT at the price of stalling all decodes while they prefill.
#pragma once

#include "sim/serving/scheduler/scheduler.hpp"

namespace engramsim::sim {

struct PrefillFirstParams {
  std::int32_t max_num_batched_tokens = 8192;  // the step budget
  std::int32_t max_num_seqs = 256;
  static PrefillFirstParams from(const SchedulerParams& p) { return {p.max_num_batched_tokens, p.max_num_seqs}; }
};

class PrefillFirstScheduler final : public Scheduler {
 public:
  explicit PrefillFirstScheduler(const PrefillFirstParams& params);
  const char* name() const override { return "prefill_first"; }
  void schedule(ReplicaState& state, StepPlan& plan) override;

 private:
  std::int32_t budget_;
  std::int32_t max_num_seqs_;
};

}  // namespace engramsim::sim
