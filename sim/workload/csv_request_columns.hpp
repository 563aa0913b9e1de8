// The columns every CSV request trace has (arrival time, input tokens, output tokens), found once by
// name and read the same way by each format's source.
#pragma once

#include "sim/workload/csv_reader.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

struct CsvRequestColumns {
  int time, input, output;

  // Requires the three columns in the header (a missing one is an error naming it).
  CsvRequestColumns(CsvReader& csv, const char* time_column, const char* input_column, const char* output_column)
      : time(csv.require_column(time_column)),
        input(csv.require_column(input_column)),
        output(csv.require_column(output_column)) {}

  // The current row's line and where its three values are, for error messages.
  void locate(const CsvReader& csv, TraceSource::Row& row) const {
    row.line = csv.line_number();
    row.time = csv.ref(time);
    row.input_at = csv.ref(input);
    row.output_at = csv.ref(output);
  }
  // The current row's token counts (integers, located errors).
  void read_tokens(const CsvReader& csv, TraceSource::Row& row) const {
    row.input = csv.integer(input);
    row.output = csv.integer(output);
  }
  // The arrival time written in seconds from the trace's start.
  std::int64_t seconds_ns(const CsvReader& csv) const { return seconds_to_ns(csv.number(time)); }
};

}  // namespace engramsim::sim
