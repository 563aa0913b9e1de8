// Speculative decoding as the serving world sees it: each decode step verifies 1 + k positions per
// sequence (k drafted tokens) and emits between 1 and 1 + k tokens.
//
// Acceptance model: each drafted token is accepted independently with probability alpha, and the
// step emits the accepted run plus the one token the verifier samples itself, so
//   E[emitted] = 1 + alpha + alpha^2 + ... + alpha^k.
// alpha is solved once (bisection) so that E[emitted] equals the configured mean acceptance length
// L in [1, 1 + k]. Draws come from a caller-owned RngStream, so runs are deterministic.
#pragma once

#include <cstdint>

#include "core/rng.hpp"

namespace engramsim::sim {

struct SpecDecodeParams {
  std::int32_t num_speculative_tokens = 0;  // k; 0 = plain decoding
  double acceptance_length = 1.0;           // mean tokens emitted per verify step, in [1, 1 + k]
};

class AcceptanceSampler {
 public:
  explicit AcceptanceSampler(const SpecDecodeParams& params);
  std::int32_t draft_tokens() const { return k_; }
  double alpha() const { return alpha_; }
  // Tokens emitted by one verify step of `positions` (<= 1 + k) positions: in [1, positions].
  std::int32_t sample(std::int32_t positions, RngStream& rng) const;
  // E[emitted] for a given alpha and k (the closed form the solver inverts).
  static double expected_length(double alpha, std::int32_t k);

 private:
  std::int32_t k_;
  double alpha_;
};

}  // namespace engramsim::sim
