// Header-addressed CSV rows over a LineReader (plain or gzip). Columns are found by name in the
// header (extra columns are ignored, order is free); a missing required column is an error at
// line 1. Fields may be double-quoted (with "" for a quote); quoted fields cannot span lines.
// Blank lines are skipped. Every accessor throws ConfigError "file:line: column 'x': ..." for a
// missing or malformed field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/workload/line_reader.hpp"

namespace engramsim::sim {

class CsvReader {
 public:
  // Reads the header; an empty file is an error.
  explicit CsvReader(const std::string& path);

  const std::vector<std::string>& header() const { return header_; }
  // Index of a column, or -1. `require_column` throws when absent.
  int find_column(std::string_view name) const;
  int require_column(std::string_view name) const;

  // Advances to the next non-blank row; false at end of file.
  bool next_row();
  int line_number() const { return reader_.line_number(); }

  std::string_view field(int column) const;
  // The column's header name and where its value starts in the current row.
  FieldRef ref(int column) const;
  std::int64_t integer(int column) const;  // accepts "12" and "12.0"
  double number(int column) const;         // finite
  [[noreturn]] void fail(const std::string& message) const { reader_.fail(message); }
  [[noreturn]] void fail_field(int column, const std::string& message) const;
  const std::string& path() const { return reader_.path(); }

 private:
  void split(std::string_view line);

  LineReader reader_;
  std::vector<std::string> header_;
  std::vector<std::string_view> fields_;
  struct Piece {
    std::size_t off = 0;
    std::size_t len = 0;
    bool quoted = false;    // offset into unquoted_ rather than into the line
    std::size_t start = 0;  // where the field's text begins in the line (0-based)
  };
  std::size_t line_length_ = 0;
  std::vector<Piece> pieces_;
  std::string unquoted_;  // quoted fields with "" turned into "
};

// Parses a decimal integer / finite number occupying the whole string (surrounding spaces allowed).
bool parse_int64(std::string_view s, std::int64_t& out);
bool parse_double(std::string_view s, double& out);

}  // namespace engramsim::sim
