// The rate-matching bound of a disaggregated deployment: the request rate each pool sustains alone,
// priced by its step model, and the lower of the two. It is what pool-sizing tools compute, made an
// upper bound on what the simulation of the same deployment can reach, so that a plan may skip
// simulating a deployment whose bound cannot beat one already simulated (docs/disaggregation.md
// "Planning"). Every term is the pool at its best, never worse than a run can do:
//
//   prefill   one replica fills its whole chunk budget every step with prompts of the mean
//             uncached length over the mean cached prefix (whole prompts and the start of the
//             next), back to back: tokens/s over the uncached prompt per request. No front end, no
//             queue, no sequence limit. Dropped (unbounded) when the caller cannot say how much of
//             the prompt hits the prefix cache, or when the decode pool prefills some prompts
//             itself (bound_prefill false);
//   decode    one replica keeps a batch of n* sequences, n* continuous (a mix of the two whole
//             batches around it), the largest whose per-sequence rate, accepted tokens per step /
//             step time at the mean context, is the target interactivity, capped at max_seqs:
//             requests/s = n* x that rate / output tokens. The step time of a fractional batch is
//             the line between its two whole neighbours, which is what a replica alternating between
//             them averages. No KV limit, no token budget, no padding, no admission step, no KV
//             transfer; none when even one sequence is slower than the target.
//
// Why the decode term bounds a run: a decode replica whose batch moves (n_k sequences in a step of
// t_k) produces sum n_k / sum t_k sequence-steps per second, while its sequences see a mean step of
// sum n_k t_k / sum n_k, no shorter than the steps' mean because larger batches take longer. With a
// step time that grows with the batch at a rate that does not fall (flat while memory-bound, then
// compute), the steps' mean is at least the step of the mean batch, so a run whose sequences keep
// the target has a mean batch of at most n* and produces at most n* x the target per replica. What
// the argument leaves open (the median request against the mean one, rounding in the step model) is
// held by a test with no tolerance: every disaggregated point of the shipped scenarios stays at or
// under its bound (tests/planner_cli/test_rate_match_bound.cpp).
// Pure: the step models are only asked for costs.
#pragma once

#include "models/step_model.hpp"

namespace engramsim::study {

struct PoolShape {
  const StepTimeModel* model = nullptr;
  int replicas = 1;
  int gpus_per_replica = 1;
};

struct RateMatchInputs {
  PoolShape prefill;
  PoolShape decode;
  int chunk_tokens = 8192;       // the prefill pool's tokens per step
  int max_seqs = 256;            // the decode pool's sequences per step
  int positions = 1;             // positions a decode sequence verifies per step (1 + drafts)
  double tokens_per_step = 1.0;  // tokens it keeps per step (the acceptance length)
  double input_tokens = 0.0;     // mean prompt
  double cached_fraction = 0.0;  // of the prompt, prefix-cache hits
  bool bound_prefill = true;     // false: the prefill pool's term is left out (see above)
  double output_tokens = 1.0;    // mean output
  double interactivity = 0.0;    // tok/s/user the decode pool must keep
};

struct RateMatch {
  double prefill_requests_per_s = 0.0;  // the whole prefill pool; +inf when not bounded
  double decode_requests_per_s = 0.0;   // the whole decode pool at the target
  double decode_batch = 0.0;            // n*, the batch per decode replica it takes
  double requests_per_s = 0.0;          // the lower of the two
  double tokens_per_s_per_gpu = 0.0;    // input + output tokens of those requests over both pools' GPUs
  bool prefill_bound = false;           // the prefill pool is the lower one
};

// Throws std::invalid_argument for a missing step model or non-positive counts.
RateMatch rate_match(const RateMatchInputs& in);

}  // namespace engramsim::study
