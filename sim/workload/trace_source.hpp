// Common behaviour of every trace reader: the checks and the time base.
//
// A format reader only turns its rows into (timestamp ns, input tokens, output tokens, session,
// prefix hashes), and says where each value sits (field name and column). This base then
// enforces, naming file:line:column and the field on failure (ConfigError):
//   - timestamps are >= 0 and never decrease (traces are replayed as a stream, never sorted);
//   - input tokens >= 1, output tokens >= 1 (rows with 0 output may be skipped instead when
//     TraceOptions::skip_zero_output is set: BurstGPT logs failed calls that way);
//   - the file holds at least one request;
//   - no more than TraceOptions::max_requests requests (from bound_from_ns on) reach the run.
// Arrivals are rebased so the first request arrives at t = 0 unless TraceOptions::rebase is off.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/workload/line_reader.hpp"
#include "sim/workload/request_source.hpp"

namespace engramsim::sim {

struct TraceOptions {
  std::int32_t hash_block_tokens = 0;  // tokens per prefix hash; 0 = the format's default
  bool skip_zero_output = false;
  bool rebase = true;
  // The most requests a run may take from the trace (a run keeps a record of every request), counted
  // from the first one arriving at or after `bound_from` (delivered time, before any window shift);
  // the row past the bound is a ConfigError at its file:line. 0: no bound.
  std::uint64_t max_requests = 0;
  std::int64_t bound_from_ns = 0;
};

class TraceSource : public RequestSource {
 public:
  bool next(Request& out) final;
  std::string describe() const override;
  std::uint64_t rows_skipped() const { return skipped_; }

  // One row as a format reader delivers it.
  struct Row {
    std::int64_t t_ns = 0;  // in the trace's own clock
    std::int64_t input = 0;
    std::int64_t output = 0;
    std::uint64_t session = 0;
    int line = 0;
    FieldRef time, input_at, output_at, hashes_at;  // where the values are (for error messages)
  };

 protected:
  TraceSource(std::string path, std::string format, std::int32_t hash_block_tokens, const TraceOptions& options);
  // Reads the next row (filling `hashes`, cleared by the caller); false at end of file.
  virtual bool read_row(Row& row, std::vector<std::uint64_t>& hashes) = 0;
  [[noreturn]] void fail_at(int line, const std::string& message) const;
  // file:line:column: field: message. A field whose column is 0 is located by value_column().
  [[noreturn]] void fail_field(const Row& row, const FieldRef& field, const std::string& message) const;
  // Where `field`'s value starts in the row last read, for readers that locate values only when one
  // fails (JSON lines); 0 = unknown.
  virtual int value_column(std::string_view /*field*/) const { return 0; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string format_;
  std::int32_t hash_block_tokens_;
  TraceOptions options_;
  bool started_ = false;
  std::int64_t first_ns_ = 0;
  std::int64_t prev_ns_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t bounded_ = 0;  // requests delivered at or after options_.bound_from_ns
  int last_line_ = 0;
};

// A timestamp beyond the nanosecond clock (about 292 years) or not a number; TraceSource reports it.
inline constexpr std::int64_t kTimestampOutOfRange = std::numeric_limits<std::int64_t>::min();

// A trace's time value in units of `ns_per_unit` nanoseconds (1e9 for seconds, 1e6 for
// milliseconds) to integer nanoseconds, rounded to nearest; kTimestampOutOfRange when it does not fit.
std::int64_t to_ns(double value, double ns_per_unit);

// Where the value of top-level key `key` starts in a one-line JSON object (1-based; the last of a
// repeated key), or 0 when absent or written with escapes (jsonl_trace_sources.cpp).
int json_value_column(std::string_view line, std::string_view key);
inline std::int64_t seconds_to_ns(double seconds) { return to_ns(seconds, 1e9); }

}  // namespace engramsim::sim
