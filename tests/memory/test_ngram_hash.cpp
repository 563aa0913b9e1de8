#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "sim/memory/ngram_hash.hpp"
#include "sim/memory/word_tokenizer.hpp"
#include "tests/support/test_paths.hpp"

using namespace engramsim;

TEST(NgramHash, Primes) {
  EXPECT_TRUE(is_prime(2));
  EXPECT_FALSE(is_prime(1));
  EXPECT_TRUE(is_prime(1000003));
  EXPECT_FALSE(is_prime(1000001));  // 101 * 9901
  EXPECT_EQ(next_prime_above(10), 11u);
  EXPECT_EQ(next_prime_above(11), 13u);
  EXPECT_EQ(next_prime_above(15999999), 16000057u);
}

// Reference computed by hand. Parameters: orders 2..3, 2 heads per order, pad id 0, one layer,
// multipliers m = [3, 5, 7], primes [11, 13] for order 2 and [17, 19] for order 3, so the row
// offsets are 0, 11, 24, 41 and the table has 60 rows. Tokens [4, 9, 2].
//   t = 0: order-2 mix = 4*3 ^ 0*5 = 12;        order-3 mix = 12 ^ 0*7 = 12
//          rows: 12 mod 11 = 1 -> 0+1 = 1;  12 mod 13 = 12 -> 11+12 = 23;
//                12 mod 17 = 12 -> 24+12 = 36;  12 mod 19 = 12 -> 41+12 = 53
//   t = 1: order-2 mix = 9*3 ^ 4*5 = 27 ^ 20 = 15;  order-3 mix = 15 ^ 0*7 = 15
//          rows: 15 mod 11 = 4 -> 4;  15 mod 13 = 2 -> 13;  15 mod 17 = 15 -> 39;  15 mod 19 = 15 -> 56
//   t = 2: order-2 mix = 2*3 ^ 9*5 = 6 ^ 45 = 43;  order-3 mix = 43 ^ 4*7 = 43 ^ 28 = 55
//          rows: 43 mod 11 = 10 -> 10;  43 mod 13 = 4 -> 15;  55 mod 17 = 4 -> 28;  55 mod 19 = 17 -> 58
TEST(NgramHash, MatchesHandComputedReference) {
  NgramHashParams p;
  p.num_layers = 1;
  p.min_order = 2;
  p.max_order = 3;
  p.heads_per_order = 2;
  p.vocab_size_per_ngram = 11;
  p.compressed_vocab_size = 10;
  p.pad_token_id = 0;
  NgramHasher h(p, {{3, 5, 7}}, {{11, 13, 17, 19}});
  EXPECT_EQ(h.table_rows(0), 60);
  const std::vector<std::int64_t> tokens{4, 9, 2};
  const std::vector<std::vector<std::int64_t>> expected{{1, 23, 36, 53}, {4, 13, 39, 56}, {10, 15, 28, 58}};
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    std::vector<std::int64_t> rows;
    h.rows_at(tokens, t, 0, rows);
    EXPECT_EQ(rows, expected[t]) << "t=" << t;
  }
}

TEST(NgramHash, NegativeMixUsesFloorModulo) {
  NgramHashParams p;
  p.min_order = 1;
  p.max_order = 1;
  p.heads_per_order = 1;
  p.vocab_size_per_ngram = 7;
  p.compressed_vocab_size = 10;
  // token 1 * multiplier -3 = -3 -> floor mod 7 = 4.
  NgramHasher h(p, {{-3}}, {{7}});
  std::vector<std::int64_t> rows;
  const std::vector<std::int64_t> tokens{1};
  h.rows_at(tokens, 0, 0, rows);
  EXPECT_EQ(rows, std::vector<std::int64_t>{4});
}

TEST(NgramHash, GeneratedParametersFollowTheScheme) {
  NgramHashParams p;
  p.num_layers = 2;
  p.min_order = 2;
  p.max_order = 4;
  p.heads_per_order = 8;
  p.vocab_size_per_ngram = 1000;
  p.compressed_vocab_size = 99092;
  p.seed = 0;
  NgramHasher h(p);
  std::set<std::int64_t> all;
  std::int64_t last = 999;
  for (int l = 0; l < 2; ++l) {
    for (auto m : h.multipliers(l)) EXPECT_EQ(m % 2, 1);  // odd
    for (auto prime : h.primes(l)) {
      EXPECT_GT(prime, last);  // strictly increasing across layers, orders, heads: all distinct
      EXPECT_TRUE(is_prime(static_cast<std::uint64_t>(prime)));
      last = prime;
      all.insert(prime);
    }
  }
  EXPECT_EQ(all.size(), 48u);
  EXPECT_EQ(h.rows_per_token_per_layer(), 24);
}

TEST(NgramHash, RealTextHasReuse) {
  std::ifstream in(engramsim::test::source_root() + "/sim/memory/data/gettysburg-and-declaration.txt");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  WordTokenizer tok(99092);
  const auto ids = tok.encode(ss.str());
  ASSERT_GT(ids.size(), 1000u);
  NgramHashParams p;
  p.min_order = 2;
  p.max_order = 4;
  p.heads_per_order = 8;
  p.vocab_size_per_ngram = 16000000;
  p.compressed_vocab_size = 99092;
  p.pad_token_id = 2;
  NgramHasher h(p);
  std::set<std::int64_t> distinct;
  std::vector<std::int64_t> rows;
  for (std::size_t t = 0; t < ids.size(); ++t) h.rows_at(ids, t, 0, rows);
  for (auto r : rows) {
    ASSERT_GE(r, 0);
    ASSERT_LT(r, h.table_rows(0));
    distinct.insert(r);
  }
  // Repeated phrases ("that nation", "of the people") make some rows recur; most N-grams are new.
  EXPECT_LT(distinct.size(), rows.size());
  EXPECT_GT(distinct.size(), rows.size() / 2);
}

TEST(WordTokenizer, NormalisesCaseAndSplitsPunctuation) {
  WordTokenizer tok(1000);
  const auto a = tok.encode("The Nation, the nation.");
  ASSERT_EQ(a.size(), 6u);  // the nation , the nation .
  EXPECT_EQ(a[0], a[3]);
  EXPECT_EQ(a[1], a[4]);
  EXPECT_NE(a[2], a[5]);
  for (auto id : a) {
    EXPECT_GE(id, 3);
    EXPECT_LT(id, 1000);
  }
}
