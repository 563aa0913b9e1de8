#include "sim/serving/kv/kv_transfer.hpp"

#include <algorithm>
#include <stdexcept>

namespace engramsim::sim {
namespace {

// Decode rank j's share [j/D, (j+1)/D) against prefill rank i's [i/P, (i+1)/P), as integers over
// P x D parts so that the shares add up exactly.
std::int64_t overlap_parts(int i, int p, int j, int d) {
  const std::int64_t lo = std::max<std::int64_t>(static_cast<std::int64_t>(i) * d, static_cast<std::int64_t>(j) * p);
  const std::int64_t hi =
      std::min<std::int64_t>(static_cast<std::int64_t>(i + 1) * d, static_cast<std::int64_t>(j + 1) * p);
  return std::max<std::int64_t>(0, hi - lo);
}

std::vector<KvRankFlow> sharded(Bytes total, int p, int d) {
  std::vector<KvRankFlow> out;
  const double parts = static_cast<double>(p) * static_cast<double>(d);
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < p; ++i)
      if (const std::int64_t n = overlap_parts(i, p, j, d); n > 0)
        out.push_back({i, j, total * (static_cast<double>(n) / parts)});
  return out;
}

std::vector<KvRankFlow> replicated(Bytes per_rank, int p, int d) {
  std::vector<KvRankFlow> out;
  for (int j = 0; j < d; ++j) out.push_back({j % p, j, per_rank});
  return out;
}

}  // namespace

std::vector<KvRankFlow> kv_transfer_flows(std::int64_t tokens, Bytes bytes_per_token, KvLayout layout, int prefill_tp,
                                          int decode_tp) {
  if (prefill_tp < 1 || decode_tp < 1) throw std::invalid_argument("KV transfer: tensor parallelism must be >= 1");
  if (tokens < 0 || bytes_per_token.value() < 0.0)
    throw std::invalid_argument("KV transfer: tokens and bytes per token must be >= 0");
  if (tokens == 0) return {};
  const Bytes bytes = bytes_per_token * static_cast<double>(tokens);
  return layout == KvLayout::sharded ? sharded(bytes, prefill_tp, decode_tp) : replicated(bytes, prefill_tp, decode_tp);
}

}  // namespace engramsim::sim
