#include "sim/workload/line_reader.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <cstring>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace engramsim::sim {
namespace {
constexpr std::size_t kBufSize = 1 << 18;
gzFile as_gz(void* p) { return static_cast<gzFile>(p); }
}  // namespace

std::string trace_file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";  // opening it says why
  if (S_ISDIR(st.st_mode)) return "is a folder, not a file";
  if (S_ISFIFO(st.st_mode))
    return "is a pipe or FIFO, which can be read only once; a trace is read again by every run (each variant and "
           "sweep point), so save it to a file first";
  if (S_ISSOCK(st.st_mode)) return "is a socket, not a file; save the trace to a file first";
  return "";
}

LineReader::LineReader(std::string path, std::size_t max_line_bytes)
    : path_(std::move(path)), buf_(kBufSize), max_line_bytes_(max_line_bytes) {
  if (const std::string why = trace_file_problem(path_); !why.empty()) throw ConfigError({path_, 0, 0}, "", why);
  gz_ = gzopen(path_.c_str(), "rb");
  if (gz_ == nullptr) throw ConfigError({path_, 0, 0}, "", std::string("cannot open trace: ") + std::strerror(errno));
  gzbuffer(as_gz(gz_), kBufSize);
}

LineReader::~LineReader() {
  if (gz_ != nullptr) gzclose(as_gz(gz_));
}

void LineReader::fail(const std::string& message) const { fail_at(line_no_, message); }

void LineReader::fail_at(int line, const std::string& message) const {
  throw ConfigError({path_, line, 0}, "", message);
}

void LineReader::fail_field(const FieldRef& field, const std::string& message) const {
  throw ConfigError({path_, line_no_, field.column}, std::string(field.name), message);
}

void LineReader::fail_long_line() const {
  const bool mib = max_line_bytes_ % (std::size_t{1} << 20) == 0;
  const std::string limit =
      mib ? std::to_string(max_line_bytes_ >> 20) + " MiB" : std::to_string(max_line_bytes_) + " bytes";
  fail_at(line_no_ + 1, "line longer than " + limit + ", the limit for one line of this format (no newline?)");
}

bool LineReader::fill() {
  if (eof_) return false;
  const int n = gzread(as_gz(gz_), buf_.data(), static_cast<unsigned>(buf_.size()));
  int err = Z_OK;
  const char* msg = gzerror(as_gz(gz_), &err);
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
    // Z_BUF_ERROR at the end means the compressed stream stopped early.
    const std::string what = err == Z_BUF_ERROR ? "gzip stream truncated" : std::string("read error: ") + msg;
    fail_at(line_no_ + 1, what);
  }
  begin_ = 0;
  end_ = static_cast<std::size_t>(n);
  if (n == 0) eof_ = true;
  return n > 0;
}

bool LineReader::next(std::string_view& line) {
  // Line numbers are ints in every message; a trace past them would wrap.
  if (line_no_ == std::numeric_limits<int>::max())
    fail_at(line_no_, "more than " + std::to_string(line_no_) + " lines, the most a trace may hold");
  carry_.clear();
  bool have_carry = false;
  for (;;) {
    if (begin_ == end_ && !fill()) {
      if (!have_carry) return false;
      break;  // last line without a newline
    }
    const char* start = buf_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl != nullptr) {
      const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
      if (!have_carry) {
        if (len > max_line_bytes_) fail_long_line();
        line = std::string_view(start, len);
        begin_ += len + 1;
        ++line_no_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line_no_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
        return true;
      }
      if (carry_.size() + len > max_line_bytes_) fail_long_line();
      carry_.append(start, len);
      begin_ += len + 1;
      break;
    }
    if (carry_.size() + (end_ - begin_) > max_line_bytes_) fail_long_line();
    carry_.append(start, end_ - begin_);
    have_carry = true;
    begin_ = end_;
  }
  ++line_no_;
  line = carry_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line_no_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  return true;
}

}  // namespace engramsim::sim
