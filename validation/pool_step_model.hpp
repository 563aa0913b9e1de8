// The decode pool of a prefill-decode disaggregated deployment, seen through one replica.
//
// Published decode throughputs (DeepSeek's, RTP-LLM's, SGLang's and vLLM's wide-EP deployments)
// come from GPUs that only decode: each prompt's KV cache is computed by a separate prefill pool
// and transferred, overlapped with decoding. The simulator's replicas run prompts themselves, so a
// decode pool is emulated by a step model that charges a step only for its decode sequences: the
// scheduler still admits prompts and holds their KV blocks (the decode pool stores every token's KV),
// but their prefill costs nothing here. A step holding only prompts (KV handed over) takes 1 us.
// TTFT from such a run is meaningless; throughput, TPOT and KV occupancy are the decode pool's.
#pragma once

#include "models/step_model.hpp"

namespace engramsim::validation {

class DecodePoolStepModel final : public StepTimeModel {
 public:
  explicit DecodePoolStepModel(const StepTimeModel& inner) : inner_(inner) {}
  StepCost step(const BatchShape& batch) const override;

 private:
  const StepTimeModel& inner_;
};

}  // namespace engramsim::validation
