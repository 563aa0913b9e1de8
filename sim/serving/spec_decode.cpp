#include "sim/serving/spec_decode.hpp"

#include "core/error.hpp"

namespace engramsim::sim {

double AcceptanceSampler::expected_length(double alpha, std::int32_t k) {
  double sum = 1.0, term = 1.0;
  for (std::int32_t i = 0; i < k; ++i) {
    term *= alpha;
    sum += term;
  }
  return sum;
}

AcceptanceSampler::AcceptanceSampler(const SpecDecodeParams& params) : k_(params.num_speculative_tokens), alpha_(0.0) {
  if (k_ < 0) throw ConfigError({}, "spec_decode.num_speculative_tokens", "must be >= 0");
  const double l = params.acceptance_length;
  if (k_ == 0) {
    if (l != 1.0) throw ConfigError({}, "spec_decode.acceptance_length", "must be 1 without draft tokens");
    return;
  }
  if (!(l >= 1.0 && l <= 1.0 + k_)) {
    throw ConfigError({}, "spec_decode.acceptance_length",
                      "must lie in [1, 1 + num_speculative_tokens] = [1, " + std::to_string(1 + k_) + "]");
  }
  double lo = 0.0, hi = 1.0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (expected_length(mid, k_) < l)
      lo = mid;
    else
      hi = mid;
  }
  alpha_ = 0.5 * (lo + hi);
}

std::int32_t AcceptanceSampler::sample(std::int32_t positions, RngStream& rng) const {
  std::int32_t emitted = 1;
  if (alpha_ <= 0.0) return emitted;
  while (emitted < positions && rng.uniform01() < alpha_) ++emitted;
  return emitted;
}

}  // namespace engramsim::sim
