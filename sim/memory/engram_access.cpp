#include "sim/memory/engram_access.hpp"

#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/paths.hpp"
#include "core/rng.hpp"
#include "core/zipf_sampler.hpp"
#include "sim/memory/word_tokenizer.hpp"

namespace engramsim {
namespace {

// (a * k) mod m for a, k < m < 2^40 without overflow: k is split into 20-bit halves.
std::uint64_t mulmod(std::uint64_t a, std::uint64_t k, std::uint64_t m) {
  const std::uint64_t high = (a * (k >> 20)) % m;
  return ((high << 20) + a * (k & 0xFFFFFu)) % m;
}

// a^-1 mod m for gcd(a, m) = 1 (extended Euclid).
std::int64_t inverse_mod(std::int64_t a, std::int64_t m) {
  std::int64_t t = 0, new_t = 1, r = m, new_r = a % m;
  while (new_r != 0) {
    const std::int64_t q = r / new_r;
    t = std::exchange(new_t, t - q * new_t);
    r = std::exchange(new_r, r - q * new_r);
  }
  return t < 0 ? t + m : t;
}

void check_shape(const EngramTableShape& s) {
  if (s.table_rows.empty()) throw std::invalid_argument("engram access: no Engram layers");
  if (s.rows_per_token < 1 || s.subtables_per_rank < 1 || s.subtables_per_rank > s.rows_per_token)
    throw std::invalid_argument("engram access: bad sub-table counts");
  for (const auto r : s.table_rows)
    if (r < s.rows_per_token) throw std::invalid_argument("engram access: a table has fewer rows than sub-tables");
}

class ZipfAccess final : public EngramAccessModel {
 public:
  ZipfAccess(const EngramAccessParams& p, const EngramTableShape& s) {
    if (!(p.zipf_s >= 0.0) || p.zipf_s > 8.0)
      throw std::invalid_argument("engram access: zipf exponent outside [0, 8]");
    for (const auto rows : s.table_rows) {
      if (rows / s.rows_per_token >= (std::int64_t{1} << 40))
        throw std::invalid_argument("engram access: sub-tables of 2^40 rows or more");
      const std::int64_t r = rows / s.rows_per_token;
      Layer l{ZipfSampler(r, p.zipf_s), r, 0, 0};
      // A multiplier near the golden ratio of R, made coprime to R, scatters consecutive ranks.
      auto a = static_cast<std::int64_t>(static_cast<double>(r) * 0.6180339887498949) | 1;
      while (std::gcd(a, r) != 1) a += 2;
      l.a = a % r == 0 ? 1 : a % r;
      l.a_inverse = inverse_mod(l.a, r);
      l.b = static_cast<std::int64_t>(hash64(p.seed ^ static_cast<std::uint64_t>(layers_.size())) %
                                      static_cast<std::uint64_t>(r));
      layers_.push_back(l);
    }
  }
  const char* name() const override { return "zipf"; }
  std::int64_t popularity_rank(int layer, std::int64_t row) const override {
    const Layer& l = layers_[static_cast<std::size_t>(layer)];
    const auto rows = static_cast<std::uint64_t>(l.rows);
    const auto within = static_cast<std::uint64_t>(row % l.rows);
    const std::uint64_t shifted = (within + rows - static_cast<std::uint64_t>(l.b)) % rows;
    return static_cast<std::int64_t>(mulmod(static_cast<std::uint64_t>(l.a_inverse), shifted, rows)) + 1;
  }
  bool uses_positions() const override { return false; }
  std::int64_t subtable_rows(int layer) const override { return layers_[static_cast<std::size_t>(layer)].rows; }
  std::int64_t row(int layer, int subtable, std::uint64_t, std::int64_t, RngStream& rng) const override {
    const Layer& l = layers_[static_cast<std::size_t>(layer)];
    const auto k = static_cast<std::uint64_t>(l.zipf.sample(rng) - 1);
    const auto rows = static_cast<std::uint64_t>(l.rows);
    const auto scattered = static_cast<std::int64_t>(
        (mulmod(static_cast<std::uint64_t>(l.a), k, rows) + static_cast<std::uint64_t>(l.b)) % rows);
    return static_cast<std::int64_t>(subtable) * l.rows + scattered;
  }

 private:
  struct Layer {
    ZipfSampler zipf;
    std::int64_t rows;
    std::int64_t a;
    std::int64_t b;
    std::int64_t a_inverse = 1;
  };
  std::vector<Layer> layers_;
};

class TextAccess final : public EngramAccessModel {
 public:
  TextAccess(const EngramAccessParams& p, const EngramTableShape& s) : seed_(p.seed), k_(s.subtables_per_rank) {
    const std::string path = p.text_path.empty() ? default_engram_text_path() : p.text_path;
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::invalid_argument("engram access: cannot read text " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    NgramHashParams hp = p.hash;
    hp.num_layers = static_cast<int>(s.table_rows.size());
    if (hp.compressed_vocab_size <= 3)
      throw std::invalid_argument("engram access: text needs the card's compressed vocabulary");
    const NgramHasher hasher(hp);
    if (hasher.rows_per_token_per_layer() != s.rows_per_token)
      throw std::invalid_argument("engram access: hashing parameters disagree with the table's sub-tables");
    const std::vector<std::int64_t> text = WordTokenizer(hp.compressed_vocab_size).encode(ss.str());
    if (text.size() < static_cast<std::size_t>(hp.max_order))
      throw std::invalid_argument("engram access: text " + path + " is too short");
    tokens_ = text.size();
    // The ring twice, so the N-grams of the first tokens wrap around to the end of the text.
    std::vector<std::int64_t> ring(text);
    ring.insert(ring.end(), text.begin(), text.end());
    std::vector<std::int64_t> out;
    for (int l = 0; l < hp.num_layers; ++l) {
      std::vector<std::int64_t> rows;
      rows.reserve(tokens_ * static_cast<std::size_t>(k_));
      for (std::size_t i = 0; i < tokens_; ++i) {
        out.clear();
        hasher.rows_at(ring, tokens_ + i, l, out);
        rows.insert(rows.end(), out.begin(), out.begin() + k_);
      }
      rows_.push_back(std::move(rows));
      sub_rows_.push_back(s.table_rows[static_cast<std::size_t>(l)] / s.rows_per_token);
    }
  }
  const char* name() const override { return "text"; }
  bool uses_positions() const override { return true; }
  std::int64_t subtable_rows(int layer) const override { return sub_rows_[static_cast<std::size_t>(layer)]; }
  std::int64_t row(int layer, int subtable, std::uint64_t request, std::int64_t position, RngStream&) const override {
    const std::uint64_t offset = hash64(request ^ hash64(seed_)) % tokens_;
    const std::uint64_t i = (offset + static_cast<std::uint64_t>(position)) % tokens_;
    return rows_[static_cast<std::size_t>(layer)]
                [i * static_cast<std::size_t>(k_) + static_cast<std::size_t>(subtable)];
  }
  std::size_t tokens() const { return tokens_; }

 private:
  std::uint64_t seed_;
  int k_;
  std::size_t tokens_ = 0;
  std::vector<std::vector<std::int64_t>> rows_;  // [layer][token * k + subtable]
  std::vector<std::int64_t> sub_rows_;
};

}  // namespace

const char* to_string(AccessModel model) { return kAccessModelNames.name(model); }

std::string default_engram_text_path() {
  return (std::filesystem::path(data_root()) / "sim" / "memory" / "data" / "gettysburg-and-declaration.txt").string();
}

std::unique_ptr<EngramAccessModel> make_engram_access(const EngramAccessParams& params, const EngramTableShape& shape) {
  check_shape(shape);
  if (params.model == AccessModel::zipf) return std::make_unique<ZipfAccess>(params, shape);
  return std::make_unique<TextAccess>(params, shape);
}

}  // namespace engramsim
