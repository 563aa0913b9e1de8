#include "sim/workload/azure_trace_source.hpp"

#include "sim/workload/timestamp.hpp"

namespace engramsim::sim {

AzureTraceSource::AzureTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "azure", 0, options),
      csv_(path),
      cols_(csv_, "TIMESTAMP", "ContextTokens", "GeneratedTokens") {}

bool AzureTraceSource::read_row(Row& row, std::vector<std::uint64_t>&) {
  if (!csv_.next_row()) return false;
  cols_.locate(csv_, row);
  const std::string_view ts = csv_.field(cols_.time);
  if (!parse_timestamp_ns(ts, row.t_ns)) csv_.fail_field(cols_.time, "not a timestamp: '" + std::string(ts) + "'");
  cols_.read_tokens(csv_, row);
  return true;
}

}  // namespace engramsim::sim
