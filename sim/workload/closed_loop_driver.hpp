// Closed-loop clients, as `vllm bench serve --max-concurrency N` and InferenceX run them: N clients
// each send a request, wait for it to leave the system (finished or rejected), then send the next
// at that instant, until `max_requests` requests were sent. The number of requests in the system
// is therefore never above N. Lengths (and sessions, prefix hashes) come from the source; its
// arrival times are ignored. All clients start at t = 0. The first `warmup_requests` requests sent
// are warm-up (Request::measured false), as a client's `--warmup-request-count` runs them.
#pragma once

#include <cstdint>
#include <deque>

#include "sim/engine/simulation.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/serving_observer.hpp"
#include "sim/workload/request_source.hpp"

namespace engramsim::sim {

class ClosedLoopDriver final : public EventHandler, public ServingObserver {
 public:
  ClosedLoopDriver(Simulation& sim, RequestSource& source, RequestSink& sink, std::int32_t concurrency,
                   std::uint64_t max_requests, std::uint64_t warmup_requests = 0);
  void start();
  void on_event(std::uint64_t tag) override;
  void on_request_done(const RequestRecord& record) override;
  std::uint64_t submitted() const { return submitted_; }
  std::int64_t in_flight() const { return in_flight_; }

 private:
  void issue();

  Simulation& sim_;
  RequestSource& source_;
  RequestSink& sink_;
  std::int32_t concurrency_;
  std::uint64_t max_requests_;
  std::uint64_t warmup_requests_;
  std::deque<Request> pending_;  // pulled, arrival event scheduled, in that order
  std::uint64_t pulled_ = 0;
  std::uint64_t submitted_ = 0;
  std::int64_t in_flight_ = 0;  // pulled and not yet done
  bool exhausted_ = false;
};

}  // namespace engramsim::sim
