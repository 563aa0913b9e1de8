// Plain data exchanged between a replica's step and the in-run Engram tier (engram_tier_service.hpp):
// which token positions the step runs (for access models that follow real text) and what the tier
// measured for the step (kept in the step records and the time series).
#pragma once

#include <cstdint>

namespace engramsim {

// One sequence's positions in a step.
struct EngramSeqSpan {
  std::uint64_t request = 0;
  std::int64_t first = 0;  // position (token index in the sequence) of the first token run
  std::int32_t count = 0;  // positions run (prefill chunk tokens, or 1 + draft tokens)
  bool prompt = false;     // prompt tokens (a prefill chunk) rather than decode positions
};

// What one replica step's Engram fetch moved, whole replica (all ranks), counts scaled from the
// sampled rows to the step (docs/memory-tiers.md, "Sampling"). All zero for a step the in-run tier
// did not see.
struct EngramStepStats {
  double lookups = 0.0;          // row lookups issued
  double hbm_hit_lookups = 0.0;  // lookups served by the HBM hot-row cache
  double host_rows = 0.0;        // distinct rows copied over the host links
  double host_bytes = 0.0;       // their payload bytes
  double wire_bytes = 0.0;       // bytes the flows moved (payload / transfer efficiency)
  double ssd_pages = 0.0;        // pages read from NVMe
  double cache_lookups = 0.0;    // DRAM page-cache lookups (ssd tier)
  double cache_hits = 0.0;
  double kv_swap_bytes = 0.0;  // KV offload traffic started by the step (both directions)
};

}  // namespace engramsim
