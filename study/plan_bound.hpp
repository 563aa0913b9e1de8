// The upper bound a plan prunes disaggregated candidates with (docs/disaggregation.md "Planning"):
// the rate-matching bound (rate_match.hpp) of a built deployment, before it is simulated and after.
//
//   before    from the requests the run will draw: the workload's own source at the run's seed,
//             its measured requests' mean prompt and output; prefix hits are known to be none when
//             no request carries prefix hashes, and otherwise left open (the prefill term dropped).
//             Agentic replays draw their requests as the run goes: no bound;
//   after     from the run's summary: its mean prompt and output, the prefill pool's prefix hit
//             rate, at the median interactivity it ran at.
// Both drop the prefill term under conditional disaggregation (the decode pool prefills too).
// Colocated deployments have no bound (nullopt). Pure but for the reads of the built scenario.
#pragma once

#include <optional>

#include "scenario/build/scenario_build.hpp"
#include "sim/metrics/summary.hpp"
#include "study/rate_match.hpp"

namespace engramsim::study {

// The pools, schedulers and speculative decoding of a disaggregated deployment; the request means,
// prefix hits and interactivity left for the caller. Throws std::invalid_argument for a colocated one.
RateMatchInputs rate_match_inputs(const scenario::BuiltScenario& b);

// The bound at `interactivity` before the run (above); nullopt for a colocated deployment or a
// workload whose requests are not drawn before the run.
std::optional<RateMatch> bound_before_run(const scenario::BuiltScenario& b, double interactivity);

// The bound of a run at the median interactivity it reached (above); nullopt for a colocated one.
std::optional<RateMatch> bound_of_run(const scenario::BuiltScenario& b, const sim::Summary& s);

}  // namespace engramsim::study
