#include "sim/serving/replica/step_cost.hpp"

namespace engramsim::sim {

namespace {

// 1. The model's cost, or its compute and host overhead with the stall the in-run tier measured.
StepCost priced_batch(const StepCostParts& p) {
  StepCost cost = p.model;
  if (p.in_run == nullptr) return cost;
  cost.engram_stall = p.in_run->stall;
  cost.engram_fetch = p.in_run->fetch;
  cost.total = cost.compute + cost.host_overhead + p.in_run->stall;
  return cost;
}

}  // namespace

AssembledStepCost assemble_step_cost(const StepCostParts& p) {
  AssembledStepCost out{priced_batch(p), Time::zero()};
  Time& total = out.cost.total;
  // 2-3. Host KV-offload copies: loads first, writes beside the step.
  if (p.offload_load > Time::zero() || p.offload_write > Time::zero()) {
    total = total + p.offload_load;
    if (p.offload_write > total) {
      out.offload_write_exposed = p.offload_write - total;
      total = p.offload_write;
    }
  }
  // 4. Floors.
  if (total < Time::ns(1)) total = Time::ns(1);
  if (p.start + total < p.earliest_end) total = p.earliest_end - p.start;
  return out;
}

}  // namespace engramsim::sim
