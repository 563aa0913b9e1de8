#include "sim/workload/trace_source.hpp"

#include <cmath>

#include "core/error.hpp"

namespace engramsim::sim {

std::int64_t to_ns(double value, double ns_per_unit) {
  const double ns = value * ns_per_unit;
  if (!(ns > -9.2e18 && ns < 9.2e18)) return kTimestampOutOfRange;
  return static_cast<std::int64_t>(std::llround(ns));
}

TraceSource::TraceSource(std::string path, std::string format, std::int32_t hash_block_tokens,
                         const TraceOptions& options)
    : path_(std::move(path)),
      format_(std::move(format)),
      hash_block_tokens_(options.hash_block_tokens > 0 ? options.hash_block_tokens : hash_block_tokens),
      options_(options) {}

void TraceSource::fail_at(int line, const std::string& message) const {
  throw ConfigError({path_, line, 0}, "", message);
}

void TraceSource::fail_field(const Row& row, const FieldRef& field, const std::string& message) const {
  throw ConfigError({path_, row.line, field.column > 0 ? field.column : value_column(field.name)},
                    std::string(field.name), message);
}

std::string TraceSource::describe() const { return format_ + " trace " + path_; }

bool TraceSource::next(Request& out) {
  for (;;) {
    out.prefix_hashes.clear();
    Row row;
    if (!read_row(row, out.prefix_hashes)) {
      if (delivered_ == 0) fail_at(last_line_ > 0 ? last_line_ : 1, "empty trace: no requests");
      return false;
    }
    last_line_ = row.line;
    if (row.t_ns == kTimestampOutOfRange)
      fail_field(row, row.time, "timestamp out of range (beyond about 292 years in ns)");
    if (row.t_ns < 0) fail_field(row, row.time, "negative timestamp");
    if (started_ && row.t_ns < prev_ns_) {
      fail_field(row, row.time,
                 "timestamp decreases (" + std::to_string(static_cast<double>(row.t_ns - first_ns_) * 1e-9) +
                     " s after the first request, previous row " +
                     std::to_string(static_cast<double>(prev_ns_ - first_ns_) * 1e-9) + " s)");
    }
    if (row.input < 1) fail_field(row, row.input_at, "input tokens must be >= 1, got " + std::to_string(row.input));
    if (row.input > INT32_MAX) fail_field(row, row.input_at, "token count too large");
    if (row.output > INT32_MAX) fail_field(row, row.output_at, "token count too large");
    if (row.output < 1) {
      if (row.output == 0 && options_.skip_zero_output) {
        ++skipped_;
        if (!started_) {
          started_ = true;
          first_ns_ = row.t_ns;
        }
        prev_ns_ = row.t_ns;
        continue;
      }
      fail_field(row, row.output_at, "output tokens must be >= 1, got " + std::to_string(row.output));
    }
    if (!started_) {
      started_ = true;
      first_ns_ = row.t_ns;
    }
    prev_ns_ = row.t_ns;
    // Block hashes cover the prompt in blocks of hash_block_tokens_: one per full block, or one per
    // started block (Mooncake's trace hashes the last, partial block too).
    if (!out.prefix_hashes.empty() && hash_block_tokens_ > 0) {
      const std::int64_t full = row.input / hash_block_tokens_;
      const std::int64_t started = (row.input + hash_block_tokens_ - 1) / hash_block_tokens_;
      const auto n = static_cast<std::int64_t>(out.prefix_hashes.size());
      if (n != full && n != started)
        fail_field(
            row, row.hashes_at,
            std::to_string(n) + " block hashes for " + std::to_string(row.input) + " input tokens, where blocks of " +
                std::to_string(hash_block_tokens_) + " tokens give " +
                (full == started ? std::to_string(full) : std::to_string(full) + " or " + std::to_string(started)) +
                " (trace.hash_block_tokens sets another block size)");
    }
    const std::int64_t arrival_ns = options_.rebase ? row.t_ns - first_ns_ : row.t_ns;
    if (options_.max_requests > 0 && arrival_ns >= options_.bound_from_ns && ++bounded_ > options_.max_requests)
      fail_at(row.line, "more than " + std::to_string(options_.max_requests) +
                            " requests, the most one run may take from a trace (it keeps a record of each); replay "
                            "part of it with num_requests or window");
    out.id = delivered_++;
    out.arrival = Time::ns(arrival_ns);
    out.prompt_tokens = static_cast<std::int32_t>(row.input);
    out.output_tokens = static_cast<std::int32_t>(row.output);
    out.session = row.session;
    out.hash_block_tokens = out.prefix_hashes.empty() ? 0 : hash_block_tokens_;
    return true;
  }
}

}  // namespace engramsim::sim
