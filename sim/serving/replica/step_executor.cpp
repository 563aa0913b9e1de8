#include "sim/serving/replica/step_executor.hpp"

namespace engramsim::sim {

void FormulaStepExecutor::begin(const StepStart& step, StepCostSink& sink) {
  sink.on_step_priced(model_.step(step.shape), step.now, nullptr);
}

InRunStepExecutor::InRunStepExecutor(const StepTimeModel& model, EngramInRun& engram, std::uint32_t replica)
    : model_(model), engram_(engram), replica_(replica), layers_(model.engram_layer_count()) {}

double InRunStepExecutor::swap_out(const StepStart& step) {
  double tokens = 0.0;
  const ReplicaState& state = *step.state;
  const auto preempted = static_cast<std::size_t>(step.preempted);
  for (std::size_t i = 0; i < preempted && i < state.waiting().size(); ++i) {
    const Sequence& s = state.seq(state.waiting()[i]);
    swapped_out_.emplace_back(s.request.id, s.prefill_target);
    tokens += static_cast<double>(s.prefill_target);
  }
  return tokens;
}

double InRunStepExecutor::swap_in(const StepStart& step) {
  double tokens = 0.0;
  for (const PlannedPrefill& p : step.plan->prefills) {
    const std::uint64_t id = step.state->seq(p.seq).request.id;
    for (std::size_t i = 0; i < swapped_out_.size(); ++i)
      if (swapped_out_[i].first == id) {
        tokens += static_cast<double>(swapped_out_[i].second);
        swapped_out_[i] = swapped_out_.back();
        swapped_out_.pop_back();
        break;
      }
  }
  return tokens;
}

void InRunStepExecutor::fill_spans(const StepStart& step) {
  spans_.clear();
  const StepPlan& plan = *step.plan;
  for (const PlannedPrefill& p : plan.prefills)
    spans_.push_back(EngramSeqSpan{step.state->seq(p.seq).request.id, p.cached_before, p.tokens, true});
  for (std::size_t i = 0; i < plan.decodes.size(); ++i)
    spans_.push_back(EngramSeqSpan{step.state->seq(plan.decodes[i].seq).request.id, step.shape.decode[i].context,
                                   step.shape.decode[i].positions, false});
}

void InRunStepExecutor::begin(const StepStart& step, StepCostSink& sink) {
  EngramStepInput in;
  if (engram_.swaps_preempted_kv()) {
    // KV swap: sequences preempted while planning write their KV to host memory; it comes back
    // when they are admitted again.
    in.kv_swap_out_tokens = swap_out(step);
    in.kv_swap_in_tokens = swap_in(step);
  }
  pending_cost_ = model_.step_engram(step.shape, layers_);
  pending_start_ = step.now;
  sink_ = &sink;
  fill_spans(step);
  in.replica = replica_;
  in.start = step.now;
  in.layers = layers_;
  in.seqs = spans_;
  EngramStepOutcome out;
  if (!engram_.begin_step(in, *this, out)) on_engram_ready(out);
}

void InRunStepExecutor::on_engram_ready(const EngramStepOutcome& o) {
  sink_->on_step_priced(pending_cost_, pending_start_, &o);
}

std::unique_ptr<StepExecutor> make_step_executor(const StepTimeModel& model, EngramInRun* engram,
                                                 std::uint32_t replica) {
  if (engram != nullptr && model.engram_layer_count() > 0)
    return std::make_unique<InRunStepExecutor>(model, *engram, replica);
  return std::make_unique<FormulaStepExecutor>(model);
}

}  // namespace engramsim::sim
