#include "sim/memory/ngram_hash.hpp"

#include <limits>
#include <stdexcept>

#include "core/rng.hpp"

namespace engramsim {
namespace {
__extension__ typedef unsigned __int128 uint128;
std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return static_cast<std::uint64_t>((static_cast<uint128>(a) * b) % m);
}
std::uint64_t powmod(std::uint64_t a, std::uint64_t e, std::uint64_t m) {
  std::uint64_t r = 1;
  a %= m;
  while (e) {
    if (e & 1) r = mulmod(r, a, m);
    a = mulmod(a, a, m);
    e >>= 1;
  }
  return r;
}
std::int64_t floor_mod(std::int64_t a, std::int64_t m) {
  const std::int64_t r = a % m;
  return r < 0 ? r + m : r;
}
}  // namespace

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t p : {2ULL, 3ULL, 5ULL, 7ULL, 11ULL, 13ULL, 17ULL, 19ULL, 23ULL, 29ULL, 31ULL, 37ULL}) {
    if (n % p == 0) return n == p;
  }
  std::uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  // Deterministic Miller-Rabin for all 64-bit n with these bases.
  for (std::uint64_t a : {2ULL, 3ULL, 5ULL, 7ULL, 11ULL, 13ULL, 17ULL, 19ULL, 23ULL, 29ULL, 31ULL, 37ULL}) {
    std::uint64_t x = powmod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int r = 1; r < s; ++r) {
      x = mulmod(x, x, n);
      if (x == n - 1) {
        composite = false;
        break;
      }
    }
    if (composite) return false;
  }
  return true;
}

std::uint64_t next_prime_above(std::uint64_t n) {
  std::uint64_t c = n + 1;
  while (!is_prime(c)) ++c;
  return c;
}

NgramHasher::NgramHasher(const NgramHashParams& p) : p_(p) {
  if (p.min_order < 1 || p.max_order < p.min_order || p.heads_per_order < 1 || p.num_layers < 1 ||
      p.compressed_vocab_size < 1 || p.vocab_size_per_ngram < 2) {
    throw std::invalid_argument("NgramHasher: invalid parameters");
  }
  const std::int64_t half_bound = (std::numeric_limits<std::int64_t>::max() / p.compressed_vocab_size) / 2;
  std::uint64_t last_prime = static_cast<std::uint64_t>(p.vocab_size_per_ngram - 1);
  for (int l = 0; l < p.num_layers; ++l) {
    const std::uint64_t layer_seed = p.layer_seeds.empty() ? p.seed + 10007ULL * static_cast<std::uint64_t>(l)
                                                           : p.layer_seeds.at(static_cast<std::size_t>(l));
    RngStream rng(layer_seed, "engram-ngram-multipliers");
    std::vector<std::int64_t> m;
    for (int k = 0; k < p.max_order; ++k) m.push_back(2 * rng.uniform_int(0, half_bound - 1) + 1);
    mult_.push_back(std::move(m));
    std::vector<std::int64_t> pr;
    for (int n = p.min_order; n <= p.max_order; ++n) {
      for (int h = 0; h < p.heads_per_order; ++h) {
        last_prime = next_prime_above(last_prime);
        pr.push_back(static_cast<std::int64_t>(last_prime));
      }
    }
    primes_.push_back(std::move(pr));
  }
  build_offsets();
}

NgramHasher::NgramHasher(const NgramHashParams& p, std::vector<std::vector<std::int64_t>> multipliers,
                         std::vector<std::vector<std::int64_t>> primes)
    : p_(p), mult_(std::move(multipliers)), primes_(std::move(primes)) {
  const std::size_t per_layer = static_cast<std::size_t>(rows_per_token_per_layer());
  if (mult_.size() != static_cast<std::size_t>(p.num_layers) || primes_.size() != mult_.size()) {
    throw std::invalid_argument("NgramHasher: one multiplier and prime list per layer required");
  }
  for (std::size_t l = 0; l < mult_.size(); ++l) {
    if (mult_[l].size() < static_cast<std::size_t>(p.max_order) || primes_[l].size() != per_layer) {
      throw std::invalid_argument("NgramHasher: wrong multiplier or prime count");
    }
  }
  build_offsets();
}

void NgramHasher::build_offsets() {
  for (const auto& pr : primes_) {
    std::vector<std::int64_t> off;
    std::int64_t acc = 0;
    for (std::int64_t prime : pr) {
      off.push_back(acc);
      acc += prime;
    }
    offsets_.push_back(std::move(off));
    table_rows_.push_back(acc);
  }
}

void NgramHasher::rows_at(std::span<const std::int64_t> tokens, std::size_t t, int layer,
                          std::vector<std::int64_t>& out) const {
  const auto& m = mult_[static_cast<std::size_t>(layer)];
  const auto& pr = primes_[static_cast<std::size_t>(layer)];
  const auto& off = offsets_[static_cast<std::size_t>(layer)];
  std::uint64_t mix = 0;
  std::size_t slot = 0;
  for (int k = 0; k < p_.max_order; ++k) {
    const std::int64_t tok =
        (t >= static_cast<std::size_t>(k)) ? tokens[t - static_cast<std::size_t>(k)] : p_.pad_token_id;
    mix ^= static_cast<std::uint64_t>(tok) * static_cast<std::uint64_t>(m[static_cast<std::size_t>(k)]);
    const int order = k + 1;
    if (order < p_.min_order) continue;
    const std::int64_t signed_mix = static_cast<std::int64_t>(mix);
    for (int h = 0; h < p_.heads_per_order; ++h, ++slot) {
      out.push_back(off[slot] + floor_mod(signed_mix, pr[slot]));
    }
  }
}

}  // namespace engramsim
