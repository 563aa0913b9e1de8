// Every event priority of the serving world, in one place: at equal times the lower runs first.
//
//   arrival       a request reaches the deployment (workload drivers: open loop, closed loop,
//                 agentic replay), so a request arriving at the instant a step ends joins the
//                 next step;
//   fabric        the in-run Engram tier advances its node fabric (engram_in_run.hpp), so a step
//                 never starts while a fetch that finished at that instant is still unreported;
//   step_done     a replica's step ends;
//   replica_wake  a replica woken from idle starts its step, after every arrival and completion
//                 at that instant.
// The engine itself fixes no priorities (sim/engine/event_queue.hpp orders by time, priority, seq).
#pragma once

#include <cstdint>

namespace engramsim::sim::event_priority {
inline constexpr std::int32_t arrival = 0;
inline constexpr std::int32_t fabric = 5;
inline constexpr std::int32_t step_done = 10;
inline constexpr std::int32_t replica_wake = 20;
}  // namespace engramsim::sim::event_priority
