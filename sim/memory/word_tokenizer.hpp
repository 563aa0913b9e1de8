// A small offline tokenizer for driving Engram hashing with real text.
//
// It applies the spirit of Engram's vocabulary compression (lower-casing and whitespace collapsing
// so that surface variants share an id) and splits text into words, numbers and single punctuation
// marks. Each piece maps to an id in [first_id, vocab_size) by a stable hash. It is NOT DeepSeek's
// BPE tokenizer: real BPE splits rare words into several sub-word tokens (about 1.3 tokens per
// English word) and gives frequent words a single token, so N-gram reuse measured with this
// tokenizer is close in shape but not identical (docs/memory-tiers.md).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace engramsim {

class WordTokenizer {
 public:
  WordTokenizer(std::int64_t vocab_size, std::int64_t first_id = 3);
  std::vector<std::int64_t> encode(std::string_view text) const;

 private:
  std::int64_t vocab_size_;
  std::int64_t first_id_;
};

}  // namespace engramsim
