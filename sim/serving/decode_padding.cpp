#include "sim/serving/decode_padding.hpp"

#include <algorithm>
#include <stdexcept>

namespace engramsim::sim {

DecodePadding make_decode_padding(std::vector<std::int32_t> listed, std::int32_t max_num_seqs_per_rank,
                                  std::int32_t max_num_tokens_per_rank, std::int32_t draft_tokens, std::int32_t ranks) {
  if (ranks < 1) throw std::invalid_argument("make_decode_padding: ranks must be >= 1");
  DecodePadding out;
  out.ranks = ranks;
  if (listed.empty()) return out;
  const std::int32_t cap =
      std::min(max_num_seqs_per_rank, max_num_tokens_per_rank / (1 + std::max<std::int32_t>(0, draft_tokens)));
  if (cap < 1) return out;
  std::sort(listed.begin(), listed.end());
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
  bool dropped = false;
  for (const std::int32_t b : listed) {
    if (b < 1) throw std::invalid_argument("make_decode_padding: batch sizes must be positive");
    if (b <= cap)
      out.batch_sizes.push_back(b);
    else
      dropped = true;
  }
  if (dropped && (out.batch_sizes.empty() || out.batch_sizes.back() != cap)) out.batch_sizes.push_back(cap);
  return out;
}

std::int32_t padded_decode_rows(const DecodePadding& p, std::int32_t n) {
  if (!p.enabled() || n <= 0) return n;
  const std::int32_t per_rank = (n + p.ranks - 1) / p.ranks;
  const auto it = std::lower_bound(p.batch_sizes.begin(), p.batch_sizes.end(), per_rank);
  if (it == p.batch_sizes.end()) return n;
  return std::max(n, *it * p.ranks);
}

}  // namespace engramsim::sim
