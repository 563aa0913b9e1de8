#include "calibration/rank_scatter.hpp"

#include <numeric>
#include <stdexcept>

namespace engramsim::calibration {

RankScatter::RankScatter(std::uint64_t n) : n_(n), mult_(1) {
  if (n == 0) throw std::invalid_argument("rank scatter over an empty range");
  // A large odd constant (the 64-bit golden ratio) reduced mod n, stepped until coprime with n.
  std::uint64_t m = 0x9e3779b97f4a7c15ULL % n;
  if (m == 0) m = 1;
  while (std::gcd(m, n) != 1) m = (m + 1) % n == 0 ? 1 : m + 1;
  mult_ = m;
}

std::uint64_t RankScatter::operator()(std::uint64_t rank) const {
  __extension__ using Wide = unsigned __int128;  // rank * mult_ needs 128 bits before the modulo
  return static_cast<std::uint64_t>((static_cast<Wide>(rank) * mult_) % n_);
}

}  // namespace engramsim::calibration
