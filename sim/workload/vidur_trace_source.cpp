#include "sim/workload/vidur_trace_source.hpp"

namespace engramsim::sim {

VidurTraceSource::VidurTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "vidur", 0, options),
      csv_(path),
      c_time_(csv_.require_column("arrived_at")),
      c_in_(csv_.require_column("num_prefill_tokens")),
      c_out_(csv_.require_column("num_decode_tokens")) {}

bool VidurTraceSource::read_row(Row& row, std::vector<std::uint64_t>&) {
  if (!csv_.next_row()) return false;
  row.line = csv_.line_number();
  row.time = csv_.ref(c_time_);
  row.input_at = csv_.ref(c_in_);
  row.output_at = csv_.ref(c_out_);
  row.t_ns = seconds_to_ns(csv_.number(c_time_));
  row.input = csv_.integer(c_in_);
  row.output = csv_.integer(c_out_);
  return true;
}

}  // namespace engramsim::sim
