// The interface between the simulator and the step-time model.
//
// A scheduler step runs prefill chunks and decode sequences together. The simulator describes the
// batch as spans over buffers it reuses across steps (no allocation per step) and receives the
// step's duration and its parts. Implementations are pure: the same shape gives the same cost,
// and they hold no mutable state visible to callers (caches must be thread-safe or per-instance
// and never change results).
#pragma once

#include <cstddef>
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

// One Engram layer of a step as the model sees it, for a caller that moves the rows itself (the
// in-run tier service, sim/memory/engram_tier_service.hpp) instead of taking the formula's stall.
// Row counts are per GPU rank and come from the model's analytic fetch (engram_fetch.hpp).
struct EngramLayerStep {
  int layer = 0;               // backbone layer index
  bool sees_prompt = true;     // prompt tokens pass this layer (false: decode positions only)
  double positions = 0.0;      // token positions through the layer, whole replica
  Time window;                 // compute from forward entry until the GPU reaches the layer
  double lookups = 0.0;        // row lookups of one rank
  double distinct_rows = 0.0;  // expected after within-step dedup; 0 = not known
  double host_rows = 0.0;      // rows crossing the host link (after the analytic caches)
  double ssd_pages = 0.0;      // pages read from NVMe (ssd tier)
};

class StepTimeModel {
 public:
  virtual ~StepTimeModel() = default;
  virtual StepCost step(const BatchShape& batch) const = 0;
  // Engram layers step_engram() describes; 0 (the default) for a model without them.
  virtual std::size_t engram_layer_count() const { return 0; }
  // step() and, in `layers` (size >= engram_layer_count()), each Engram layer's window and rows.
  // The returned cost is step()'s, formula stall included.
  virtual StepCost step_engram(const BatchShape& batch, std::span<EngramLayerStep> /*layers*/) const {
    return step(batch);
  }
};

}  // namespace engramsim
