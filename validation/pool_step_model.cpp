#include "validation/pool_step_model.hpp"

namespace engramsim::validation {

StepCost DecodePoolStepModel::step(const BatchShape& batch) const {
  if (batch.decode.empty()) {
    StepCost handover;
    handover.total = Time::us(1.0);
    handover.compute = handover.total;
    return handover;
  }
  return inner_.step(BatchShape{{}, batch.decode});
}

}  // namespace engramsim::validation
