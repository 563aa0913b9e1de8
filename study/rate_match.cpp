#include "study/rate_match.hpp"

#include <algorithm>
#include <cmath>
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

// Requests/s of one prefill replica.
double prefill_rate(const RateMatchInputs& in) {
  const double uncached = std::max(1.0, in.input_tokens * (1.0 - in.cached_fraction));
  const auto chunk = static_cast<std::int32_t>(std::min<double>(in.chunk_tokens, std::ceil(uncached)));
  const auto cached = static_cast<std::int32_t>(std::max(0.0, in.input_tokens - uncached));
  const PrefillChunk c{chunk, cached};
  const Time t = in.prefill.model->step(BatchShape{{&c, 1}, {}}).total;
  if (t <= Time::zero()) return 0.0;
  return static_cast<double>(chunk) / t.seconds() / uncached;
}

// Per-sequence tokens/s of a decode batch of `n` at the mean context.
double sequence_rate(const RateMatchInputs& in, int n, std::vector<DecodeSeq>& buf) {
  const auto context = static_cast<std::int32_t>(in.input_tokens + in.output_tokens / 2.0);
  buf.assign(static_cast<std::size_t>(n), DecodeSeq{context, in.positions});
  const Time t = in.decode.model->step(BatchShape{{}, buf}).total;
  return t > Time::zero() ? in.tokens_per_step / t.seconds() : 0.0;
}

}  // namespace

RateMatch rate_match(const RateMatchInputs& in) {
  check(in);
  RateMatch out;
  out.prefill_requests_per_s = prefill_rate(in) * in.prefill.replicas;
  // The largest batch that keeps the target: the rate per sequence falls as the batch grows.
  std::vector<DecodeSeq> buf;
  int lo = 0, hi = in.max_seqs;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (sequence_rate(in, mid, buf) >= in.interactivity)
      lo = mid;
    else
      hi = mid - 1;
  }
  out.decode_batch = lo;
  if (lo > 0) out.decode_requests_per_s = lo * sequence_rate(in, lo, buf) / in.output_tokens * in.decode.replicas;
  out.requests_per_s = std::min(out.prefill_requests_per_s, out.decode_requests_per_s);
  out.prefill_bound = out.prefill_requests_per_s < out.decode_requests_per_s;
  const int gpus = in.prefill.replicas * in.prefill.gpus_per_replica + in.decode.replicas * in.decode.gpus_per_replica;
  out.tokens_per_s_per_gpu = out.requests_per_s * (in.input_tokens + in.output_tokens) / gpus;
  return out;
}

}  // namespace engramsim::study
