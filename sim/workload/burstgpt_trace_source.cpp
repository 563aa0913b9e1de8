#include "sim/workload/burstgpt_trace_source.hpp"

namespace engramsim::sim {

BurstGptTraceSource::BurstGptTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "burstgpt", 0, options),
      csv_(path),
      c_time_(csv_.require_column("Timestamp")),
      c_in_(csv_.require_column("Request tokens")),
      c_out_(csv_.require_column("Response tokens")) {}

bool BurstGptTraceSource::read_row(Row& row, std::vector<std::uint64_t>&) {
  if (!csv_.next_row()) return false;
  row.line = csv_.line_number();
  row.t_ns = seconds_to_ns(csv_.number(c_time_));
  row.input = csv_.integer(c_in_);
  row.output = csv_.integer(c_out_);
  return true;
}

}  // namespace engramsim::sim
