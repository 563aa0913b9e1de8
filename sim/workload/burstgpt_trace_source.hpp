// BurstGPT traces (HPMLL/BurstGPT): CSV with Timestamp (seconds from the start), Model,
// Request tokens, Response tokens, Total tokens, Log Type. The time and the two token counts are
// used; Total tokens, when present, must be their sum. Failed calls appear with 0 response tokens: set
// TraceOptions::skip_zero_output to drop them (otherwise they are an error, as in every format).
#pragma once

#include "sim/workload/csv_reader.hpp"
#include "sim/workload/csv_request_columns.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

class BurstGptTraceSource final : public TraceSource {
 public:
  BurstGptTraceSource(const std::string& path, const TraceOptions& options);

 protected:
  bool read_row(Row& row, std::vector<std::uint64_t>& hashes) override;

 private:
  CsvReader csv_;
  CsvRequestColumns cols_;
  int c_total_;
};

}  // namespace engramsim::sim
