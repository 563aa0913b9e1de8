#include "study/plan_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "sim/run/run_simulation.hpp"

namespace engramsim::study {
namespace {

// Mean prompt and output of the requests a run measures, and whether any carries prefix hashes
// (which the prefix cache could hit).
struct DrawnRequests {
  double input_tokens = 0.0;
  double output_tokens = 0.0;
  bool prefix_hashes = false;
};

// The requests the run will draw: its source at its seed, up to its cap, less a closed loop's
// warm-up; nullopt when the run draws none this way (an agentic replay) or measures none.
std::optional<DrawnRequests> draw_requests(const sim::RunConfig& run) {
  const sim::WorkloadSpec& w = run.workload;
  if (w.agentic || !w.source) return std::nullopt;
  const std::unique_ptr<sim::RequestSource> source = w.source(run.seed);
  if (!source) return std::nullopt;
  const std::uint64_t skip = w.concurrency > 0 ? w.warmup_requests : 0;
  DrawnRequests d;
  std::uint64_t drawn = 0, measured = 0;
  sim::Request r;
  while (drawn < w.max_requests && source->next(r)) {
    if (drawn++ < skip) continue;
    ++measured;
    d.input_tokens += r.prompt_tokens;
    d.output_tokens += r.output_tokens;
    d.prefix_hashes = d.prefix_hashes || !r.prefix_hashes.empty();
  }
  if (measured == 0) return std::nullopt;
  d.input_tokens /= static_cast<double>(measured);
  d.output_tokens /= static_cast<double>(measured);
  return d;
}

bool local_prefill(const scenario::BuiltScenario& b) {
  return b.run.disaggregation && b.run.disaggregation->local_prefill_threshold > 0;
}

}  // namespace

RateMatchInputs rate_match_inputs(const scenario::BuiltScenario& b) {
  if (!b.prefill_pool) throw std::invalid_argument("rate_match_inputs: a colocated deployment has no pools");
  RateMatchInputs in;
  in.prefill = {b.prefill_pool->step_memo.get(), b.prefill_pool->replicas, b.prefill_pool->gpus_per_replica};
  in.decode = {b.step_memo.get(), b.replicas, b.gpus_per_replica};
  in.chunk_tokens = b.prefill_pool->run.scheduler.max_num_batched_tokens;
  in.max_seqs = b.run.scheduler.max_num_seqs;
  const sim::SpecDecodeParams& spec = b.run.replicas.front().spec;
  in.positions = 1 + spec.num_speculative_tokens;
  in.tokens_per_step = spec.num_speculative_tokens > 0 ? spec.acceptance_length : 1.0;
  in.bound_prefill = !local_prefill(b);
  return in;
}

std::optional<RateMatch> bound_before_run(const scenario::BuiltScenario& b, double interactivity) {
  if (!b.prefill_pool) return std::nullopt;
  const std::optional<DrawnRequests> d = draw_requests(b.run);
  if (!d) return std::nullopt;
  RateMatchInputs in = rate_match_inputs(b);
  in.input_tokens = std::max(1.0, d->input_tokens);
  in.output_tokens = std::max(1.0, d->output_tokens);
  in.cached_fraction = 0.0;
  in.bound_prefill = in.bound_prefill && !d->prefix_hashes;
  in.interactivity = interactivity;
  return rate_match(in);
}

std::optional<RateMatch> bound_of_run(const scenario::BuiltScenario& b, const sim::Summary& s) {
  if (!b.prefill_pool) return std::nullopt;
  const auto requests = static_cast<double>(std::max<std::int64_t>(1, s.num_requests));
  RateMatchInputs in = rate_match_inputs(b);
  in.input_tokens = std::max(1.0, static_cast<double>(s.total_input_tokens) / requests);
  in.cached_fraction = std::isfinite(s.prefill_prefix_hit_rate) ? s.prefill_prefix_hit_rate : 0.0;
  in.output_tokens = std::max(1.0, static_cast<double>(s.total_output_tokens) / requests);
  in.interactivity = std::isfinite(s.median_intvty) ? s.median_intvty : 0.0;
  return rate_match(in);
}

}  // namespace engramsim::study
