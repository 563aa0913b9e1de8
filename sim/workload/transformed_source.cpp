#include "sim/workload/transformed_source.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"

namespace engramsim::sim {

TransformedSource::TransformedSource(std::unique_ptr<RequestSource> inner, const TransformParams& params)
    : inner_(std::move(inner)), p_(params), factor_(params.time_scale / params.rate_scale) {
  if (!(params.time_scale > 0.0) || !std::isfinite(params.time_scale)) {
    throw ConfigError({}, "workload.time_scale", "must be positive");
  }
  if (!(params.rate_scale > 0.0) || !std::isfinite(params.rate_scale)) {
    throw ConfigError({}, "workload.rate_scale", "must be positive");
  }
  if (params.window_end <= params.window_start) throw ConfigError({}, "workload.window", "end must be after start");
}

bool TransformedSource::next(Request& out) {
  while (!done_ && delivered_ < p_.max_requests) {
    if (!inner_->next(out)) break;
    if (out.arrival < p_.window_start) continue;
    if (out.arrival >= p_.window_end) break;
    const double shifted = static_cast<double>((out.arrival - p_.window_start).count_ns());
    out.arrival = Time::ns(static_cast<std::int64_t>(std::llround(shifted * factor_)));
    out.id = delivered_++;
    return true;
  }
  done_ = true;
  return false;
}

std::string TransformedSource::describe() const {
  std::ostringstream os;
  os << inner_->describe();
  if (p_.window_start > Time::zero() || p_.window_end < Time::max()) {
    os << ", window [" << p_.window_start.seconds() << " s, "
       << (p_.window_end == Time::max() ? std::string("end") : std::to_string(p_.window_end.seconds()) + " s") << ")";
  }
  if (factor_ != 1.0) os << ", times x" << factor_;
  if (p_.max_requests != UINT64_MAX) os << ", first " << p_.max_requests << " requests";
  return os.str();
}

}  // namespace engramsim::sim
