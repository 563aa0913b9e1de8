#include "sim/workload/azure_trace_source.hpp"

#include "sim/workload/timestamp.hpp"

namespace engramsim::sim {

AzureTraceSource::AzureTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "azure", 0, options),
      csv_(path),
      c_time_(csv_.require_column("TIMESTAMP")),
      c_in_(csv_.require_column("ContextTokens")),
      c_out_(csv_.require_column("GeneratedTokens")) {}

bool AzureTraceSource::read_row(Row& row, std::vector<std::uint64_t>&) {
  if (!csv_.next_row()) return false;
  row.line = csv_.line_number();
  row.time = csv_.ref(c_time_);
  row.input_at = csv_.ref(c_in_);
  row.output_at = csv_.ref(c_out_);
  const std::string_view ts = csv_.field(c_time_);
  if (!parse_timestamp_ns(ts, row.t_ns)) csv_.fail_field(c_time_, "not a timestamp: '" + std::string(ts) + "'");
  row.input = csv_.integer(c_in_);
  row.output = csv_.integer(c_out_);
  return true;
}

}  // namespace engramsim::sim
