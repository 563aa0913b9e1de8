#include "sim/memory/word_tokenizer.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

#include "core/rng.hpp"

namespace engramsim {

WordTokenizer::WordTokenizer(std::int64_t vocab_size, std::int64_t first_id)
    : vocab_size_(vocab_size), first_id_(first_id) {
  if (first_id < 0 || vocab_size <= first_id)
    throw std::invalid_argument("WordTokenizer: vocab_size must exceed first_id");
}

std::vector<std::int64_t> WordTokenizer::encode(std::string_view text) const {
  std::vector<std::int64_t> ids;
  std::string piece;
  const auto flush = [&] {
    if (piece.empty()) return;
    const std::uint64_t span = static_cast<std::uint64_t>(vocab_size_ - first_id_);
    ids.push_back(first_id_ + static_cast<std::int64_t>(stable_hash(piece) % span));
    piece.clear();
  };
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c >= 0x80 || c == '\'') {
      piece.push_back(static_cast<char>(std::tolower(c)));
    } else {
      flush();
      if (!std::isspace(c)) {
        piece.push_back(static_cast<char>(c));
        flush();
      }
    }
  }
  flush();
  return ids;
}

}  // namespace engramsim
