// Vidur / Splitwise processed traces (microsoft/vidur data/processed_traces): CSV with arrived_at
// (seconds from the start), num_prefill_tokens, num_decode_tokens.
#pragma once

#include "sim/workload/csv_reader.hpp"
#include "sim/workload/csv_request_columns.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

class VidurTraceSource final : public TraceSource {
 public:
  VidurTraceSource(const std::string& path, const TraceOptions& options);

 protected:
  bool read_row(Row& row, std::vector<std::uint64_t>& hashes) override;

 private:
  CsvReader csv_;
  CsvRequestColumns cols_;
  ;
};

}  // namespace engramsim::sim
