// How a replica prices the batch it planned. Two implementations:
//   FormulaStepExecutor  the step model's cost as it is, Engram stall by formula (at once);
//   InRunStepExecutor    the in-run Engram tier (engram_in_run.hpp): the step's Engram layers go to
//                        the node fabric as flows, and the price is complete only once they finish,
//                        with the stall measured there (EngramStepOutcome).
// An executor belongs to one replica. It hands the model's price, and the in-run outcome when there
// is one, to the replica's StepCostSink, from begin() itself or from a later simulation event; the
// replica puts the step's time together (step_cost.hpp) and runs one step at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "models/step_model.hpp"
#include "sim/serving/engram_in_run.hpp"
#include "sim/serving/replica_state.hpp"
#include "sim/serving/step_plan.hpp"

namespace engramsim::sim {

// A planned step as the replica hands it over.
struct StepStart {
  Time now;
  BatchShape shape;  // the plan's sequences in order (prefills, then decodes), then padding rows
  const StepPlan* plan = nullptr;
  const ReplicaState* state = nullptr;
  std::int64_t preempted = 0;  // sequences preempted while planning (at the front of the waiting queue)
};

class StepCostSink {
 public:
  // The step that began at `start` is priced `model` by the step model; `in_run` is what the in-run
  // tier measured and moved (null: none, the formula's stall stands).
  virtual void on_step_priced(const StepCost& model, Time start, const EngramStepOutcome* in_run) = 0;

 protected:
  ~StepCostSink() = default;
};

class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  virtual void begin(const StepStart& step, StepCostSink& sink) = 0;
};

class FormulaStepExecutor final : public StepExecutor {
 public:
  explicit FormulaStepExecutor(const StepTimeModel& model) : model_(model) {}
  void begin(const StepStart& step, StepCostSink& sink) override;

 private:
  const StepTimeModel& model_;
};

class InRunStepExecutor final : public StepExecutor, public EngramStepListener {
 public:
  // `model` must describe at least one Engram layer (engram_layer_count() > 0).
  InRunStepExecutor(const StepTimeModel& model, EngramInRun& engram, std::uint32_t replica);
  void begin(const StepStart& step, StepCostSink& sink) override;
  void on_engram_ready(const EngramStepOutcome& outcome) override;

 private:
  // KV offload on the fabric: tokens written out by the sequences preempted while planning, and
  // read back by the planned prefills of sequences written out earlier.
  double swap_out(const StepStart& step);
  double swap_in(const StepStart& step);
  void fill_spans(const StepStart& step);

  const StepTimeModel& model_;
  EngramInRun& engram_;
  std::uint32_t replica_;
  std::vector<EngramLayerStep> layers_;
  std::vector<EngramSeqSpan> spans_;
  std::vector<std::pair<std::uint64_t, std::int64_t>> swapped_out_;  // request, tokens
  StepCostSink* sink_ = nullptr;
  StepCost pending_cost_;
  Time pending_start_;
};

// The executor a replica with these parts uses: in-run when a tier is attached and the model has
// Engram layers, by formula otherwise.
std::unique_ptr<StepExecutor> make_step_executor(const StepTimeModel& model, EngramInRun* engram,
                                                 std::uint32_t replica);

}  // namespace engramsim::sim
