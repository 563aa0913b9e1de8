#include "sim/workload/vidur_trace_source.hpp"

namespace engramsim::sim {

VidurTraceSource::VidurTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "vidur", 0, options),
      csv_(path),
      cols_(csv_, "arrived_at", "num_prefill_tokens", "num_decode_tokens") {}

bool VidurTraceSource::read_row(Row& row, std::vector<std::uint64_t>&) {
  if (!csv_.next_row()) return false;
  cols_.locate(csv_, row);
  row.t_ns = cols_.seconds_ns(csv_);
  cols_.read_tokens(csv_, row);
  return true;
}

}  // namespace engramsim::sim
