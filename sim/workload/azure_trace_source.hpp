// Azure LLM inference traces (Azure/AzurePublicDataset): CSV with TIMESTAMP, ContextTokens,
// GeneratedTokens. TIMESTAMP is a wall-clock date-time; the 2023 files write
// "2023-11-16 18:15:46.6805900", the 2024 week-long files add a zone ("...0000000+00:00"). Both are
// parsed exactly to nanoseconds (timestamp.hpp).
#pragma once

#include "sim/workload/csv_reader.hpp"
#include "sim/workload/csv_request_columns.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

class AzureTraceSource final : public TraceSource {
 public:
  AzureTraceSource(const std::string& path, const TraceOptions& options);

 protected:
  bool read_row(Row& row, std::vector<std::uint64_t>& hashes) override;

 private:
  CsvReader csv_;
  CsvRequestColumns cols_;
};

}  // namespace engramsim::sim
