// Reshapes the timing of another source: a time window, time/rate scaling and a request limit.
//
//   window   keep requests with window_start <= arrival < window_end (times of the inner source),
//            and shift them so window_start becomes t = 0;
//   scale    multiply every arrival (after the shift) by time_scale / rate_scale: time_scale 2
//            stretches the trace to twice its span, rate_scale 2 offers twice the request rate;
//   limit    stop after max_requests requests.
// Reading stops at the first request past the window end (the inner stream is sorted).
#pragma once

#include <cstdint>
#include <memory>

#include "core/units.hpp"
#include "sim/workload/request_source.hpp"

namespace engramsim::sim {

struct TransformParams {
  Time window_start = Time::zero();
  Time window_end = Time::max();
  double time_scale = 1.0;  // > 0
  double rate_scale = 1.0;  // > 0
  std::uint64_t max_requests = UINT64_MAX;
};

class TransformedSource final : public RequestSource {
 public:
  TransformedSource(std::unique_ptr<RequestSource> inner, const TransformParams& params);
  bool next(Request& out) override;
  std::string describe() const override;

 private:
  std::unique_ptr<RequestSource> inner_;
  TransformParams p_;
  double factor_;
  std::uint64_t delivered_ = 0;
  bool done_ = false;
};

}  // namespace engramsim::sim
