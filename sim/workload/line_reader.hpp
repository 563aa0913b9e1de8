// Reads a text file line by line, plain or gzip-compressed (detected from the content, not the
// name), through zlib with a large buffer. Tracks 1-based line numbers for error messages.
// A missing file, a read error or a corrupt / truncated gzip stream throws ConfigError with
// file:line; so does a line over the optional length limit. Lines lose their trailing "\n" / "\r\n"; a UTF-8 byte-order mark on line 1 is dropped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engramsim::sim {

// Where one value of a row sits: its field (column or key) name and the 1-based character column of
// the value in the line (0 when not known). Names point at a reader's header or at literals.
struct FieldRef {
  std::string_view name;
  int column = 0;
};

class LineReader {
 public:
  explicit LineReader(std::string path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line (valid until the next call); false at end of file.
  bool next(std::string_view& line);
  int line_number() const { return line_no_; }
  // Lines longer than this many bytes (without the newline) throw ConfigError naming the line;
  // 0 = no limit (the default).
  void set_max_line_bytes(std::size_t max_bytes) { max_line_ = max_bytes; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at(int line, const std::string& message) const;
  // file:line:column: field: message, on the current line.
  [[noreturn]] void fail_field(const FieldRef& field, const std::string& message) const;

 private:
  bool fill();
  void check_length(std::size_t bytes) const;

  std::string path_;
  void* gz_ = nullptr;  // gzFile
  std::vector<char> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::string carry_;
  int line_no_ = 0;
  std::size_t max_line_ = 0;
};

}  // namespace engramsim::sim
