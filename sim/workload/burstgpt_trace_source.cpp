#include "sim/workload/burstgpt_trace_source.hpp"

namespace engramsim::sim {

BurstGptTraceSource::BurstGptTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "burstgpt", 0, options),
      csv_(path),
      c_time_(csv_.require_column("Timestamp")),
      c_in_(csv_.require_column("Request tokens")),
      c_out_(csv_.require_column("Response tokens")),
      c_total_(csv_.find_column("Total tokens")) {}

bool BurstGptTraceSource::read_row(Row& row, std::vector<std::uint64_t>&) {
  if (!csv_.next_row()) return false;
  row.line = csv_.line_number();
  row.time = csv_.ref(c_time_);
  row.input_at = csv_.ref(c_in_);
  row.output_at = csv_.ref(c_out_);
  row.t_ns = seconds_to_ns(csv_.number(c_time_));
  row.input = csv_.integer(c_in_);
  row.output = csv_.integer(c_out_);
  // The log's own sum: a row where it disagrees has shifted or damaged counts.
  if (c_total_ >= 0 && csv_.integer(c_total_) != row.input + row.output)
    csv_.fail_field(c_total_, "is not Request tokens + Response tokens (" + std::to_string(row.input) + " + " +
                                  std::to_string(row.output) + ")");
  return true;
}

}  // namespace engramsim::sim
