#include "sim/workload/three_column_trace_source.hpp"

#include "sim/workload/timestamp.hpp"

namespace engramsim::sim {

ThreeColumnTraceSource::ThreeColumnTraceSource(const std::string& path, const ThreeColumnFormat& format,
                                               const TraceOptions& options)
    : TraceSource(path, format.name, 0, options),
      csv_(path),
      cols_(csv_, format.time, format.input, format.output),
      date_time_(format.date_time) {}

bool ThreeColumnTraceSource::read_row(Row& row, std::vector<std::uint64_t>&) {
  if (!csv_.next_row()) return false;
  cols_.locate(csv_, row);
  if (date_time_) {
    const std::string_view ts = csv_.field(cols_.time);
    if (!parse_timestamp_ns(ts, row.t_ns)) csv_.fail_field(cols_.time, "not a timestamp: '" + std::string(ts) + "'");
  } else {
    row.t_ns = cols_.seconds_ns(csv_);
  }
  cols_.read_tokens(csv_, row);
  return true;
}

}  // namespace engramsim::sim
