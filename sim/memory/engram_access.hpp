// Which Engram rows a token position reads: the access models of the in-run tier, chosen by name.
//
// A layer's table is `rows_per_token` sub-tables (one per N-gram order and head); a position reads
// one row in each. Tensor parallelism shards sub-tables over ranks; rank 0 reads sub-tables
// 0..subtables_per_rank-1, and the simulation follows that rank (ranks are symmetric).
//
//   "zipf"  Independent draws (the independent reference model): in every sub-table the row of
//           popularity rank k is read with probability proportional to k^-s (s = 0: uniform).
//           N-gram hashing scatters popular N-grams over the table, so ranks map to rows through a
//           fixed bijection row = (a * (k - 1) + b) mod R of the sub-table's R rows: hot rows share
//           a 4 KiB page only by chance. Request and position do not matter.
//   "text"  Real text: the shipped public-domain text (sim/memory/data) is tokenized by
//           WordTokenizer and hashed by NgramHasher with the card's Engram parameters. Request r
//           reads the text as a ring starting at a deterministic offset (a hash of r and the seed):
//           position p is token (offset + p) mod M, its N-grams wrap around the ring. Rows are the
//           hasher's rows, so popularity, reuse within a request and page sharing all come from the
//           text. The text is short (about 1.2 k tokens), so its distinct rows form a small working
//           set that caches learn quickly: it shows realistic skew and reuse, not realistic cold
//           misses (docs/memory-tiers.md).
// Row ids are 0-based within the layer's flat table (sub-table j's rows follow sub-table j - 1's).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/rng.hpp"
#include "sim/memory/ngram_hash.hpp"

namespace engramsim {

struct EngramTableShape {
  std::vector<std::int64_t> table_rows;  // per Engram layer, whole table
  int rows_per_token = 1;                // sub-tables per layer (orders x heads)
  int subtables_per_rank = 1;            // rows_per_token / tp, rounded up
};

enum class AccessModel { zipf, text };
inline constexpr EnumNames<AccessModel, 2> kAccessModelNames{{{
    {AccessModel::zipf, "zipf"},
    {AccessModel::text, "text"},
}}};
const char* to_string(AccessModel model);

struct EngramAccessParams {
  AccessModel model = AccessModel::zipf;
  double zipf_s = 1.0;
  NgramHashParams hash;   // text: the card's Engram hashing parameters
  std::string text_path;  // text: empty = the shipped text under the data root
  std::uint64_t seed = 0;
};

class EngramAccessModel {
 public:
  virtual ~EngramAccessModel() = default;
  virtual const char* name() const = 0;
  // Whether rows depend on (request, position) rather than on the RNG alone.
  virtual bool uses_positions() const = 0;
  // The row read by rank 0's sub-table `subtable` (0..subtables_per_rank-1) of Engram layer `layer`
  // at position `position` of request `request`.
  virtual std::int64_t row(int layer, int subtable, std::uint64_t request, std::int64_t position,
                           RngStream& rng) const = 0;
  // Rows per sub-table of `layer` (R above).
  virtual std::int64_t subtable_rows(int layer) const = 0;
  // The 1-based popularity rank of `row` within its sub-table when the model knows it (zipf), else 0.
  virtual std::int64_t popularity_rank(int /*layer*/, std::int64_t /*row*/) const { return 0; }
};

// Throws std::invalid_argument for a bad shape or an unreadable text file.
std::unique_ptr<EngramAccessModel> make_engram_access(const EngramAccessParams& params, const EngramTableShape& shape);

// The shipped text (sim/memory/data/gettysburg-and-declaration.txt under the data root).
std::string default_engram_text_path();

}  // namespace engramsim
