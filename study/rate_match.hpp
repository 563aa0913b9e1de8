// The rate-matching bound of a disaggregated deployment: the request rate each pool sustains alone,
// priced by its step model, and the lower of the two. It is the analytical estimate pool-sizing
// tools work with (each pool at its best batch, no queues, no transfer); the simulation of the same
// deployment adds what it leaves out (queueing between the pools, the KV transfer, batches that
// never fill), and a sweep states the gap between the two for every disaggregated point
// (docs/disaggregation.md "Planning").
//
//   prefill   one replica prefills a chunk of min(chunk budget, the uncached prompt) tokens per
//             step over the cached part of the prompt: tokens/s over the uncached prompt per request;
//   decode    one replica runs the largest batch (<= max_seqs) whose per-sequence rate, accepted
//             tokens per step / step time at the mean context, is at least the target
//             interactivity: requests/s = batch x that rate / output tokens; none when even one
//             sequence is slower than the target.
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
  double output_tokens = 1.0;    // mean output
  double interactivity = 0.0;    // tok/s/user the decode pool must keep
};

struct RateMatch {
  double prefill_requests_per_s = 0.0;  // the whole prefill pool
  double decode_requests_per_s = 0.0;   // the whole decode pool at the target
  int decode_batch = 0;                 // the batch per decode replica it takes
  double requests_per_s = 0.0;          // the lower of the two
  double tokens_per_s_per_gpu = 0.0;    // input + output tokens of those requests over both pools' GPUs
  bool prefill_bound = false;           // the prefill pool is the lower one
};

// Throws std::invalid_argument for a missing step model or non-positive counts.
RateMatch rate_match(const RateMatchInputs& in);

}  // namespace engramsim::study
