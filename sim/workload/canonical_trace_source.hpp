// The canonical engramsim trace: CSV with arrival_s (seconds), input_tokens, output_tokens and
// optionally session (integer, 0 = none) and hash_ids (prefix block hashes, chained as in
// Mooncake: integers separated by spaces, ';' or '|', optionally in [brackets]; quote the field if
// it uses commas). Hash blocks are TraceOptions::hash_block_tokens tokens (default 512).
#pragma once

#include "sim/workload/csv_reader.hpp"
#include "sim/workload/csv_request_columns.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

class CanonicalTraceSource final : public TraceSource {
 public:
  CanonicalTraceSource(const std::string& path, const TraceOptions& options);

 protected:
  bool read_row(Row& row, std::vector<std::uint64_t>& hashes) override;

 private:
  CsvReader csv_;
  CsvRequestColumns cols_;
  int c_session_, c_hashes_;
};

}  // namespace engramsim::sim
