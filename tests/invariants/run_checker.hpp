// The invariants of one run (docs/invariants.md), checked by a RunProbe while the run executes and
// on its result afterwards. Every violation is kept as one line of text; a run is sound when none
// were found.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/build/scenario_build.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/serving/replica/deployment.hpp"
#include "sim/serving/run_probe.hpp"

namespace engramsim::testing {

// Lower bounds on one step of a replica from its GPUs' datasheet (see docs/invariants.md): every
// step streams the per-rank share of the weights every token passes (attention q/o projections,
// dense FFN, shared experts) from HBM, and does at least 2 FLOPs per such weight per token position.
struct RooflineBound {
  Time min_step;                      // weight bytes per rank / HBM bandwidth
  double seconds_per_position = 0.0;  // 2 x weights per token / (tp x the GPU's highest dense peak)
};

class InvariantProbe final : public sim::RunProbe {
 public:
  InvariantProbe(const sim::RunConfig& config, RooflineBound bound);

  void on_dispatch(const sim::Event& event) override;
  void on_run_start(const sim::Simulation& sim, const sim::Deployment& deployment) override;
  void on_run_end(const sim::Simulation& sim, const sim::Deployment& deployment, const sim::RunStats& stats) override;
  void on_arrival(const sim::Request& request, std::uint32_t replica) override;
  void on_step(const sim::StepRecord& step) override;
  void on_sequence_done(std::uint32_t replica, const sim::Sequence& sequence) override;

  // Checks of the finished run against what the probe saw; appends to violations().
  void check_result(const sim::RunResult& result, bool generated, std::uint64_t num_requests, bool has_horizon);
  const std::vector<std::string>& violations() const { return violations_; }
  std::uint64_t steps() const { return steps_; }
  std::uint64_t preemptions() const { return preemptions_; }
  // KV tokens dropped by preemptions and computed again, over every sequence the probe saw.
  std::int64_t recomputed_tokens() const { return ledger_discarded_; }

 private:
  void fail(const std::string& what);
  void check_pool(std::uint32_t replica);
  void check_ledger(const sim::Sequence& s, bool finished);

  const sim::RunConfig& config_;
  RooflineBound bound_;
  const sim::Simulation* sim_ = nullptr;
  const sim::Deployment* deployment_ = nullptr;
  Time last_event_;
  std::vector<Time> last_step_end_;              // per replica: when its latest step ends
  std::vector<std::int64_t> last_step_prefill_;  // per replica: prefill tokens of its latest step
  std::int64_t in_flight_prefill_ = 0;           // of steps still running at the end
  std::uint64_t arrivals_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t preemptions_ = 0;
  std::int64_t step_prefill_tokens_ = 0;
  std::int64_t step_decode_positions_ = 0;
  // Over every sequence that left or is still on a replica.
  std::int64_t ledger_prefill_ = 0;
  std::int64_t ledger_decode_ = 0;
  std::int64_t ledger_generated_ = 0;
  std::int64_t ledger_preemptions_ = 0;
  std::int64_t ledger_discarded_ = 0;
  std::int64_t emitted_at_end_ = 0;
  std::int64_t prefill_at_end_ = 0;
  std::int64_t decode_positions_at_end_ = 0;
  bool ended_ = false;
  bool drained_ = false;
  Time end_clock_;
  std::vector<std::string> violations_;
};

RooflineBound roofline_bound(const scenario::BuiltScenario& built);

}  // namespace engramsim::testing
