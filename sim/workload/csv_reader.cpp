#include "sim/workload/csv_reader.hpp"

#include <charconv>
#include <cmath>

namespace engramsim::sim {
namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

bool parse_int64(std::string_view s, std::int64_t& out) {
  s = trim(s);
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec == std::errc() && p == s.data() + s.size()) return true;
  double d = 0;
  if (!parse_double(s, d) || d != std::floor(d) || std::fabs(d) > 9.0e15) return false;
  out = static_cast<std::int64_t>(d);
  return true;
}

bool parse_double(std::string_view s, double& out) {
  s = trim(s);
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}

CsvReader::CsvReader(const std::string& path) : reader_(path) {
  std::string_view line;
  do {
    if (!reader_.next(line)) reader_.fail_at(1, "empty trace: no header line");
  } while (trim(line).empty());
  split(line);
  for (const auto f : fields_) header_.emplace_back(trim(f));
}

int CsvReader::find_column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

int CsvReader::require_column(std::string_view name) const {
  const int c = find_column(name);
  if (c < 0) {
    std::string have;
    for (const auto& h : header_) have += (have.empty() ? "" : ",") + h;
    reader_.fail_at(1, "missing column '" + std::string(name) + "' (header: " + have + ")");
  }
  return c;
}

bool CsvReader::next_row() {
  std::string_view line;
  for (;;) {
    if (!reader_.next(line)) return false;
    if (!trim(line).empty()) break;
  }
  split(line);
  return true;
}

void CsvReader::split(std::string_view line) {
  // Pieces first, views last: unquoted_ may reallocate while a row is being split.
  pieces_.clear();
  unquoted_.clear();
  std::size_t i = 0;
  const std::size_t n = line.size();
  for (;;) {
    std::size_t j = i;
    while (j < n && (line[j] == ' ' || line[j] == '\t')) ++j;
    const std::size_t start = j;
    if (j < n && line[j] == '"') {
      const std::size_t off = unquoted_.size();
      ++j;
      for (;;) {
        if (j >= n) {
          const std::size_t c = pieces_.size();
          reader_.fail_field(
              {c < header_.size() ? std::string_view(header_[c]) : std::string_view(""), static_cast<int>(start) + 1},
              "unterminated quoted field");
        }
        if (line[j] == '"') {
          if (j + 1 < n && line[j + 1] == '"') {
            unquoted_.push_back('"');
            j += 2;
            continue;
          }
          ++j;
          break;
        }
        unquoted_.push_back(line[j++]);
      }
      while (j < n && line[j] != ',') ++j;
      pieces_.push_back(Piece{off, unquoted_.size() - off, true, start});
    } else {
      while (j < n && line[j] != ',') ++j;
      pieces_.push_back(Piece{i, j - i, false, start});
    }
    i = j;
    if (i >= n) break;
    ++i;  // the comma
    if (i == n) {
      pieces_.push_back(Piece{n, 0, false, n});
      break;
    }
  }
  line_length_ = n;
  fields_.clear();
  const std::string_view uq(unquoted_);
  for (const Piece& p : pieces_) fields_.push_back(p.quoted ? uq.substr(p.off, p.len) : line.substr(p.off, p.len));
  // More fields than the header names: a shifted or merged row, whose values would be read from the
  // wrong columns. (Short rows fail when a missing column is read.)
  if (!header_.empty() && fields_.size() > header_.size())
    reader_.fail_field(
        {"", static_cast<int>(pieces_[header_.size()].start) + 1},
        "row has " + std::to_string(fields_.size()) + " fields, the header " + std::to_string(header_.size()));
}

FieldRef CsvReader::ref(int column) const {
  const auto c = static_cast<std::size_t>(column);
  const std::string_view name =
      column >= 0 && c < header_.size() ? std::string_view(header_[c]) : std::string_view("?");
  // A missing field is placed just past the end of the row.
  const std::size_t start = column >= 0 && c < pieces_.size() ? pieces_[c].start : line_length_;
  return {name, static_cast<int>(start) + 1};
}

std::string_view CsvReader::field(int column) const {
  if (column < 0 || static_cast<std::size_t>(column) >= fields_.size())
    reader_.fail_field(ref(column), "missing field (row has " + std::to_string(fields_.size()) + " fields, header " +
                                        std::to_string(header_.size()) + ")");
  return trim(fields_[static_cast<std::size_t>(column)]);
}

void CsvReader::fail_field(int column, const std::string& message) const { reader_.fail_field(ref(column), message); }

std::int64_t CsvReader::integer(int column) const {
  const std::string_view f = field(column);
  std::int64_t v = 0;
  if (!parse_int64(f, v)) fail_field(column, "not an integer: '" + std::string(f) + "'");
  return v;
}

double CsvReader::number(int column) const {
  const std::string_view f = field(column);
  double v = 0;
  if (!parse_double(f, v)) fail_field(column, "not a number: '" + std::string(f) + "'");
  return v;
}

}  // namespace engramsim::sim
