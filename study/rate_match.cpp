#include "study/rate_match.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace engramsim::study {
namespace {

void check(const RateMatchInputs& in) {
  if (in.prefill.model == nullptr || in.decode.model == nullptr)
    throw std::invalid_argument("rate_match: a pool without a step model");
  if (in.prefill.replicas < 1 || in.decode.replicas < 1 || in.prefill.gpus_per_replica < 1 ||
      in.decode.gpus_per_replica < 1 || in.chunk_tokens < 1 || in.max_seqs < 1 || in.positions < 1 ||
      !(in.tokens_per_step > 0.0) || !(in.output_tokens > 0.0) || !(in.input_tokens >= 1.0))
    throw std::invalid_argument("rate_match: counts must be positive");
}

// Requests/s of one prefill replica: its chunk budget filled with prompts of the mean uncached
// length u over the mean cached prefix c, the whole ones first and the start of the next after them.
double prefill_rate(const RateMatchInputs& in) {
  const double uncached = std::max(1.0, in.input_tokens * (1.0 - in.cached_fraction));
  const auto prompt = static_cast<std::int32_t>(std::min<double>(in.chunk_tokens, std::ceil(uncached)));
  const auto cached = static_cast<std::int32_t>(std::max(0.0, in.input_tokens - uncached));
  std::vector<PrefillChunk> chunks(static_cast<std::size_t>(in.chunk_tokens / prompt), PrefillChunk{prompt, cached});
  if (const std::int32_t rest = in.chunk_tokens % prompt; rest > 0) chunks.push_back(PrefillChunk{rest, cached});
  const Time t = in.prefill.model->step(BatchShape{chunks, {}}).total;
  if (t <= Time::zero()) return std::numeric_limits<double>::infinity();
  return static_cast<double>(in.chunk_tokens) / t.seconds() / uncached;
}

// Step time of a decode batch of `n` at the mean context.
double decode_step_s(const RateMatchInputs& in, int n, std::vector<DecodeSeq>& buf) {
  const auto context = static_cast<std::int32_t>(in.input_tokens + in.output_tokens / 2.0);
  buf.assign(static_cast<std::size_t>(n), DecodeSeq{context, in.positions});
  return in.decode.model->step(BatchShape{{}, buf}).total.seconds();
}

// n*: the continuous batch whose per-sequence rate is the target (module comment).
double decode_batch(const RateMatchInputs& in) {
  std::vector<DecodeSeq> buf;
  const double step_at_target =
      in.interactivity > 0.0 ? in.tokens_per_step / in.interactivity : std::numeric_limits<double>::infinity();
  // The largest whole batch that keeps the target: the step time grows with the batch.
  int lo = 0, hi = in.max_seqs;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (decode_step_s(in, mid, buf) <= step_at_target)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == 0 || lo == in.max_seqs) return lo;
  const double t_lo = decode_step_s(in, lo, buf);
  const double t_hi = decode_step_s(in, lo + 1, buf);
  return t_hi > t_lo ? lo + std::min(1.0, (step_at_target - t_lo) / (t_hi - t_lo)) : lo;
}

}  // namespace

RateMatch rate_match(const RateMatchInputs& in) {
  check(in);
  RateMatch out;
  out.prefill_requests_per_s =
      in.bound_prefill ? prefill_rate(in) * in.prefill.replicas : std::numeric_limits<double>::infinity();
  out.decode_batch = decode_batch(in);
  if (out.decode_batch > 0.0) {
    // n* sequences at the target rate; a batch capped at max_seqs may run faster than the target.
    std::vector<DecodeSeq> buf;
    const double per_sequence =
        out.decode_batch >= in.max_seqs ? in.tokens_per_step / decode_step_s(in, in.max_seqs, buf) : in.interactivity;
    out.decode_requests_per_s = out.decode_batch * per_sequence / in.output_tokens * in.decode.replicas;
  }
  out.requests_per_s = std::min(out.prefill_requests_per_s, out.decode_requests_per_s);
  out.prefill_bound = out.prefill_requests_per_s < out.decode_requests_per_s;
  const int gpus = in.prefill.replicas * in.prefill.gpus_per_replica + in.decode.replicas * in.decode.gpus_per_replica;
  out.tokens_per_s_per_gpu = out.requests_per_s * (in.input_tokens + in.output_tokens) / gpus;
  return out;
}

}  // namespace engramsim::study
