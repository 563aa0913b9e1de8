#include "sim/workload/burstgpt_trace_source.hpp"

namespace engramsim::sim {

BurstGptTraceSource::BurstGptTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "burstgpt", 0, options),
      csv_(path),
      cols_(csv_, "Timestamp", "Request tokens", "Response tokens"),
      c_total_(csv_.find_column("Total tokens")) {}

bool BurstGptTraceSource::read_row(Row& row, std::vector<std::uint64_t>&) {
  if (!csv_.next_row()) return false;
  cols_.locate(csv_, row);
  row.t_ns = cols_.seconds_ns(csv_);
  cols_.read_tokens(csv_, row);
  // The log's own sum: a row where it disagrees has shifted or damaged counts.
  if (c_total_ >= 0 && csv_.integer(c_total_) != row.input + row.output)
    csv_.fail_field(c_total_, "is not Request tokens + Response tokens (" + std::to_string(row.input) + " + " +
                                  std::to_string(row.output) + ")");
  return true;
}

}  // namespace engramsim::sim
