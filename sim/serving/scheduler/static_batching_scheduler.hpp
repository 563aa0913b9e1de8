// Static batching (request-level batching, as in early serving stacks): when the replica holds no
// running sequence, up to max_num_seqs waiting requests form a batch, each reserving KV for its
// whole life up front (so nothing is ever preempted); one step prefills all their prompts, then
// every step decodes the batch until its last sequence finishes. Nothing joins a batch in flight.
// The token budget does not apply.
#pragma once

#include "sim/serving/scheduler/scheduler.hpp"

namespace engramsim::sim {

struct StaticBatchingParams {
  std::int32_t max_num_seqs = 256;  // the batch size
  static StaticBatchingParams from(const SchedulerParams& p) { return {p.max_num_seqs}; }
};

class StaticBatchingScheduler final : public Scheduler {
 public:
  explicit StaticBatchingScheduler(const StaticBatchingParams& params);
  const char* name() const override { return "static"; }
  void schedule(ReplicaState& state, StepPlan& plan) override;

 private:
  std::int32_t max_num_seqs_;
};

}  // namespace engramsim::sim
