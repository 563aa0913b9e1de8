// The interface between the simulator and the step-time model.
//
// A scheduler step runs prefill chunks and decode sequences together. The simulator describes the
// batch as spans over buffers it reuses across steps (no allocation per step) and receives the
// step's duration and its parts. Implementations are pure: the same shape gives the same cost,
// and they hold no mutable state visible to callers (caches must be thread-safe or per-instance
// and never change results).
#pragma once

#include <cstdint>
#include <span>

#include "core/units.hpp"

namespace engramsim {

struct PrefillChunk {
  std::int32_t tokens = 0;  // prompt tokens computed in this step
  std::int32_t cached = 0;  // tokens of this sequence already in KV (prefix hits + earlier chunks)
};

struct DecodeSeq {
  std::int32_t context = 0;    // tokens in KV before this step
  std::int32_t positions = 1;  // positions verified this step (1, or 1 + draft tokens)
};

struct BatchShape {
  std::span<const PrefillChunk> prefill;
  std::span<const DecodeSeq> decode;
};

struct StepCost {
  Time total;          // wall time of the step on the replica, including exposed stalls
  Time compute;        // GPU compute + communication on the critical path
  Time engram_fetch;   // sum over Engram layers of fetch time (hidden or not)
  Time engram_stall;   // exposed part of the fetches: sum of max(0, fetch - window)
  Time host_overhead;  // scheduling + sampling on the host
};

class StepTimeModel {
 public:
  virtual ~StepTimeModel() = default;
  virtual StepCost step(const BatchShape& batch) const = 0;
};

}  // namespace engramsim
