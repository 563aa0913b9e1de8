// Reads a text file line by line, plain or gzip-compressed (detected from the content, not the
// name), through zlib with a large buffer. Tracks 1-based line numbers for error messages.
// A pipe, FIFO or socket (trace_file_problem), a missing file, a read error or a corrupt / truncated gzip stream throws
// ConfigError with file:line. Lines lose their trailing "\n" / "\r\n"; a UTF-8 byte-order mark on line 1 is dropped. A
// line longer than the reader's bound is an error at that line (a file with no newline, such as /dev/zero or a damaged
// stream, would otherwise grow one line until memory runs out).
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

// Why `path` cannot be read as a trace, or empty when it can. A trace is read from its start once
// when it is loaded and again by every run (each variant, each sweep point), so a pipe or FIFO, which
// can be read once, and a socket are refused; stat() looks without opening (opening a FIFO waits for
// a writer), so the refusal never hangs. Devices such as /dev/zero read again from the start and are
// bounded by the line limit.
std::string trace_file_problem(const std::string& path);

class LineReader {
 public:
  // Longest line a row-per-line trace needs: a Mooncake or Bailian row with tens of thousands of
  // prefix hashes is under 1 MiB.
  static constexpr std::size_t kDefaultMaxLineBytes = std::size_t{16} << 20;  // 16 MiB

  explicit LineReader(std::string path, std::size_t max_line_bytes = kDefaultMaxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line (valid until the next call); false at end of file.
  bool next(std::string_view& line);
  int line_number() const { return line_no_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at(int line, const std::string& message) const;
  // file:line:column: field: message, on the current line.
  [[noreturn]] void fail_field(const FieldRef& field, const std::string& message) const;

 private:
  bool fill();
  [[noreturn]] void fail_long_line() const;

  std::string path_;
  void* gz_ = nullptr;  // gzFile
  std::vector<char> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::string carry_;
  std::size_t max_line_bytes_;
  int line_no_ = 0;
};

}  // namespace engramsim::sim
