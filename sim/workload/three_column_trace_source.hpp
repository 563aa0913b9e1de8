// CSV traces with only the three request columns (arrival time, input tokens, output tokens):
//   - Azure LLM inference traces (Azure/AzurePublicDataset): TIMESTAMP, ContextTokens,
//     GeneratedTokens. TIMESTAMP is a wall-clock date-time; the 2023 files write
//     "2023-11-16 18:15:46.6805900", the 2024 week-long files add a zone ("...0000000+00:00"). Both
//     are parsed exactly to nanoseconds (timestamp.hpp).
//   - Vidur / Splitwise processed traces (microsoft/vidur data/processed_traces): arrived_at
//     (seconds from the start), num_prefill_tokens, num_decode_tokens.
#pragma once

#include "sim/workload/csv_reader.hpp"
#include "sim/workload/csv_request_columns.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

// One such format: its name and its three columns.
struct ThreeColumnFormat {
  const char* name;  // as open_trace knows it
  const char* time;
  const char* input;
  const char* output;
  bool date_time;  // the time column is a wall-clock date-time, else seconds from the start
};

inline constexpr ThreeColumnFormat kAzureFormat{"azure", "TIMESTAMP", "ContextTokens", "GeneratedTokens", true};
inline constexpr ThreeColumnFormat kVidurFormat{"vidur", "arrived_at", "num_prefill_tokens", "num_decode_tokens",
                                                false};

class ThreeColumnTraceSource final : public TraceSource {
 public:
  ThreeColumnTraceSource(const std::string& path, const ThreeColumnFormat& format, const TraceOptions& options);

 protected:
  bool read_row(Row& row, std::vector<std::uint64_t>& hashes) override;

 private:
  CsvReader csv_;
  CsvRequestColumns cols_;
  bool date_time_;
};

}  // namespace engramsim::sim
