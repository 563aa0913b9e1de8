// A step's wall time, put together in one place from its parts (docs/simulator.md "Step time"):
//   1. the step model's price of the batch: compute, host overhead and, by formula, the exposed
//      Engram stall (StepTimeModel::step's total); with the in-run tier, compute + host overhead +
//      the stall measured on the node fabric instead (EngramStepOutcome);
//   2. plus the host KV-offload pool's loads, which precede the step's compute;
//   3. at least the pool's writes, which run beside the step on a copy stream (the excess is
//      `offload_write_exposed`);
//   4. at least 1 ns, and never ending before `earliest_end` (an in-run step ends no earlier than
//      the fetch that gated it, whatever the rounding of its parts).
// A pure function: the replica hands it the parts and books the result.
#pragma once

#include "core/units.hpp"
#include "models/step_model.hpp"
#include "sim/memory/engram_tier_service.hpp"

namespace engramsim::sim {

struct StepCostParts {
  StepCost model;                             // the step model's price of the batch
  const EngramStepOutcome* in_run = nullptr;  // the in-run tier's measured stall; null: the formula's
  Time offload_load;                          // host KV-offload pool: loads before the compute
  Time offload_write;                         // and writes beside it
  Time start;
  Time earliest_end;
};

struct AssembledStepCost {
  StepCost cost;
  Time offload_write_exposed;  // the part of the writes that outlasted the step
};

AssembledStepCost assemble_step_cost(const StepCostParts& parts);

}  // namespace engramsim::sim
