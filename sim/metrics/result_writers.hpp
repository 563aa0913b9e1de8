// Writers of a run's results. Output is deterministic byte for byte: fixed key and column order,
// numbers in fixed notation with 6 decimals through std::to_chars (locale-independent, exact
// shortest-digit rules), "\n" line ends. Undefined numbers (NaN) are JSON null / empty CSV fields.
//   summary.json    one flat object, the metrics of summary_metrics.hpp in their order (the sections
//                   a run has); keys follow `vllm bench serve` (mean_ttft_ms, p99_tpot_ms, ...) and
//                   InferenceX (tput_per_gpu, output_tput_per_gpu, intvty ...)
//   requests.csv    one row per request, by id, the columns of request_columns.hpp in their order
//   timeseries.csv  one row per time bin
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/number_text.hpp"
#include "sim/metrics/request_columns.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/metrics/summary_metrics.hpp"
#include "sim/metrics/time_series.hpp"
#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

// `metrics`: what to write (the built-in list unless a caller extends it).
void write_summary_json(const Summary& s, const SloParams& slo, std::ostream& os,
                        const std::vector<SummaryMetric>& metrics = summary_metrics());
// `columns`: the built-in list unless a caller extends it (request_columns.hpp).
void write_requests_csv(const std::vector<RequestRecord>& records, std::ostream& os,
                        const std::vector<RequestColumn>& columns = request_columns());
void write_timeseries_csv(const TimeSeries& series, std::ostream& os);

}  // namespace engramsim::sim
