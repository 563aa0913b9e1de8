// Priorities of serving-world events at equal times (lower first). Arrivals come before step
// completions so that a request arriving at the instant a step ends joins the next step; a replica
// woken from idle starts its step after every arrival and completion at that instant.
#pragma once

#include <cstdint>

namespace engramsim::sim::event_priority {
inline constexpr std::int32_t arrival = 0;
inline constexpr std::int32_t step_done = 10;
inline constexpr std::int32_t replica_wake = 20;
}  // namespace engramsim::sim::event_priority
