#include "sim/workload/arrival_process.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"

namespace engramsim::sim {

PoissonArrivals::PoissonArrivals(double rate) : rate_(rate) {
  if (!(rate > 0.0) || !std::isfinite(rate)) throw ConfigError({}, "workload.rate", "must be positive");
}

Time PoissonArrivals::next_gap(RngStream& rng) { return Time::from_seconds(rng.exponential(rate_)); }

std::string PoissonArrivals::describe() const {
  std::ostringstream os;
  os << "Poisson arrivals at " << rate_ << " req/s";
  return os.str();
}

GammaArrivals::GammaArrivals(double rate, double cv) : rate_(rate), cv_(cv) {
  if (!(rate > 0.0) || !std::isfinite(rate)) throw ConfigError({}, "workload.rate", "must be positive");
  if (!(cv > 0.0) || !std::isfinite(cv)) throw ConfigError({}, "workload.cv", "must be positive");
  shape_ = 1.0 / (cv * cv);
  scale_ = 1.0 / (rate * shape_);
}

Time GammaArrivals::next_gap(RngStream& rng) { return Time::from_seconds(rng.gamma(shape_, scale_)); }

std::string GammaArrivals::describe() const {
  std::ostringstream os;
  os << "gamma arrivals at " << rate_ << " req/s, cv " << cv_;
  return os.str();
}

Time ImmediateArrivals::next_gap(RngStream&) { return Time::zero(); }
std::string ImmediateArrivals::describe() const { return "closed loop"; }

}  // namespace engramsim::sim
