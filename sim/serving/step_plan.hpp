// What one scheduler step runs on a replica: prefill chunks and decode sequences, by sequence slot.
// The buffers keep their capacity across steps (clear() does not free), so planning a step does not
// allocate once the run is warm.
#pragma once

#include <cstdint>
#include <vector>

namespace engramsim::sim {

struct PlannedPrefill {
  std::uint32_t seq = 0;
  std::int32_t tokens = 0;         // prompt tokens computed by this step
  std::int32_t cached_before = 0;  // tokens of this sequence already in KV before the step
};

struct PlannedDecode {
  std::uint32_t seq = 0;
  std::int32_t positions = 1;  // 1, or 1 + draft tokens
};

struct StepPlan {
  std::vector<PlannedPrefill> prefills;
  std::vector<PlannedDecode> decodes;
  std::int64_t tokens = 0;  // sum of prefill tokens and decode positions

  void clear() {
    prefills.clear();
    decodes.clear();
    tokens = 0;
  }
  bool empty() const { return prefills.empty() && decodes.empty(); }
};

}  // namespace engramsim::sim
