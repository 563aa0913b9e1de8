#include "sim/workload/closed_loop_driver.hpp"

#include "core/error.hpp"
#include "sim/serving/event_priorities.hpp"

namespace engramsim::sim {

ClosedLoopDriver::ClosedLoopDriver(Simulation& sim, RequestSource& source, RequestSink& sink, std::int32_t concurrency,
                                   std::uint64_t max_requests, std::uint64_t warmup_requests)
    : sim_(sim),
      source_(source),
      sink_(sink),
      concurrency_(concurrency),
      max_requests_(max_requests),
      warmup_requests_(warmup_requests) {
  if (concurrency <= 0) throw ConfigError({}, "workload.concurrency", "must be positive");
}

void ClosedLoopDriver::start() {
  for (std::int32_t i = 0; i < concurrency_; ++i) issue();
}

// Pulls the next request and schedules its arrival now; arrival events fire in scheduling order
// (same time and priority), which is the order of `pending_`.
void ClosedLoopDriver::issue() {
  if (exhausted_ || pulled_ >= max_requests_) return;
  Request r;
  if (!source_.next(r)) {
    exhausted_ = true;
    return;
  }
  ++pulled_;
  ++in_flight_;
  pending_.push_back(std::move(r));
  sim_.schedule_at(sim_.now(), event_priority::arrival, *this, 0);
}

void ClosedLoopDriver::on_event(std::uint64_t) {
  Request r = std::move(pending_.front());
  pending_.pop_front();
  r.id = submitted_++;
  r.arrival = sim_.now();
  r.measured = r.id >= warmup_requests_;
  sink_.submit(std::move(r));
}

void ClosedLoopDriver::on_request_done(const RequestRecord&) {
  --in_flight_;
  issue();
}

}  // namespace engramsim::sim
