// Engram's multi-head N-gram hashing: token ids -> table rows, per Engram layer.
//
// For an Engram layer l, orders n = min_order..max_order and heads h = 0..H-1:
//   multipliers  m_l[k] = 2 r + 1 (odd), r uniform in [0, half_bound), k = 0..max_order-1,
//                half_bound = (INT64_MAX / compressed_vocab) / 2, drawn from a stream seeded with
//                seed + 10007 * l (the released demo seeds numpy's PCG64 the same way; we use our
//                own generator, so the multipliers differ from DeepSeek's while the scheme is the same);
//   mix_n(t)     = XOR_{k=0..n-1} (tok[t-k] * m_l[k])   (64-bit wrap-around; tok before the start = pad)
//   bucket       = mix_n(t) mod P_{l,n,h}  (floor modulo, non-negative)
//   row          = offset_{l,n,h} + bucket, offsets = prefix sums of P over (n, h) within the layer.
// The primes P are distinct: taken in order (layer, order, head), each the smallest prime greater
// than the previous one, starting above vocab_size_per_ngram - 1. All buckets of a layer form one
// flat table, so one lookup is a plain row gather.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace engramsim {

struct NgramHashParams {
  int num_layers = 1;  // Engram layers hashed (index l = 0..num_layers-1)
  int min_order = 2;
  int max_order = 3;
  int heads_per_order = 8;
  std::int64_t vocab_size_per_ngram = 0;  // prime search start
  std::int64_t compressed_vocab_size = 0;
  std::int64_t pad_token_id = 0;
  std::uint64_t seed = 0;
  // Per-layer multiplier seeds; empty = seed + 10007 * l.
  std::vector<std::uint64_t> layer_seeds;
};

class NgramHasher {
 public:
  explicit NgramHasher(const NgramHashParams& p);
  // Builds a hasher with explicit multipliers and primes (for tests and for reproducing a
  // reference); multipliers[l][k], primes[l][(n - min_order) * H + h].
  NgramHasher(const NgramHashParams& p, std::vector<std::vector<std::int64_t>> multipliers,
              std::vector<std::vector<std::int64_t>> primes);

  int rows_per_token_per_layer() const { return (p_.max_order - p_.min_order + 1) * p_.heads_per_order; }
  std::int64_t table_rows(int layer) const { return table_rows_[static_cast<std::size_t>(layer)]; }
  const std::vector<std::int64_t>& multipliers(int layer) const { return mult_[static_cast<std::size_t>(layer)]; }
  const std::vector<std::int64_t>& primes(int layer) const { return primes_[static_cast<std::size_t>(layer)]; }

  // Rows for position t of `tokens` in layer `layer`, appended to `out` (rows_per_token_per_layer()).
  void rows_at(std::span<const std::int64_t> tokens, std::size_t t, int layer, std::vector<std::int64_t>& out) const;

 private:
  void build_offsets();

  NgramHashParams p_;
  std::vector<std::vector<std::int64_t>> mult_;
  std::vector<std::vector<std::int64_t>> primes_;
  std::vector<std::vector<std::int64_t>> offsets_;
  std::vector<std::int64_t> table_rows_;
};

bool is_prime(std::uint64_t n);
std::uint64_t next_prime_above(std::uint64_t n);

}  // namespace engramsim
