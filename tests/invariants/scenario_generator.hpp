// Random valid scenarios for the run-invariant property tests (docs/invariants.md).
//
// generate_case(seed, dir) draws, from one seeded RNG, a small scenario file in the public schema:
// a model card and node preset, TP, replicas, the Engram tier where the card has one, a scheduler
// policy and its limits, a router, and a workload (closed loop, open loop with Poisson or Gamma
// arrivals, a shipped trace, or a generated canonical trace with shared prefixes and sessions),
// sometimes a horizon; plus a KV-pool cap that the test applies to the built run (a pool this small
// forces preemption and rejection). A share of the cases is tight on KV (GeneratedCase::tight): long
// requests, several at once, a pool sized from the longest one, so that most of them preempt. Files the case needs (the
// scenario, a generated trace) are written into `dir`. The same seed gives the same case.
#pragma once

#include <cstdint>
#include <string>

namespace engramsim::testing {

struct GeneratedCase {
  std::uint64_t seed = 0;
  std::string scenario_path;  // the scenario file written into the case's folder
  std::string yaml;           // its text (printed when a property fails)
  // > 0: cap on each replica's KV blocks, applied after the build (as a lower memory target would).
  std::int64_t kv_block_cap = 0;
  bool generated_requests = false;  // closed/open loop: the workload submits exactly num_requests
  std::uint64_t num_requests = 0;   // requested (generated) or cap (trace); 0 = the whole trace
  bool has_horizon = false;
  // Tight on KV (kTightShare of the cases): several long requests at once against a pool of one to
  // three times the longest one's blocks, under a policy that preempts; no horizon.
  bool tight = false;
  // A disaggregated deployment (kDisaggregatedShare of the cases that are not tight, on nodes with
  // NICs): the drawn deployment keys as both pools, vLLM or SGLang (both KV send modes).
  bool disaggregated = false;
};

inline constexpr double kTightShare = 0.4;
inline constexpr double kDisaggregatedShare = 0.25;

GeneratedCase generate_case(std::uint64_t seed, const std::string& dir);

// Property-test case count: ENGRAMSIM_PROPERTY_CASES when set to a positive integer, else `fallback`.
int property_cases(int fallback);

}  // namespace engramsim::testing
