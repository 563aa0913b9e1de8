// Deterministic random-number streams.
//
// An RngStream is seeded from (scenario seed, stream name), so adding a new consumer of randomness
// never shifts the numbers another consumer draws. The generator (xoshiro256**) and every
// distribution are implemented here, not taken from <random>, so results are identical across
// standard libraries and platforms.
#pragma once

#include <cstdint>
#include <string_view>

namespace engramsim {

// SplitMix64's output mix: a bijection of 64-bit words whose every output bit depends on every input
// bit (hashes of block ids, row ids and seeds).
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// SplitMix64 of one word: the golden-ratio step, then the mix.
inline std::uint64_t hash64(std::uint64_t x) { return mix64(x + 0x9e3779b97f4a7c15ULL); }

class RngStream {
 public:
  RngStream(std::uint64_t seed, std::string_view stream_name);
  explicit RngStream(std::uint64_t seed);

  std::uint64_t next_u64();
  double uniform01();                                          // [0, 1)
  double uniform(double lo, double hi);                        // [lo, hi)
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);  // [lo, hi] inclusive, unbiased
  double exponential(double rate);                             // mean 1/rate
  double normal(double mean, double stddev);
  double gamma(double shape, double scale);  // mean shape*scale

 private:
  std::uint64_t s_[4];
};

// Stable 64-bit hash of a string (FNV-1a), for seeding and naming.
std::uint64_t stable_hash(std::string_view s);

}  // namespace engramsim
