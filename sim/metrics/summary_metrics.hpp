// The metrics of a run's summary, declared once, as core/field_table.hpp declares inputs: each
// metric's key, unit, meaning, the section that decides when a run's summary.json carries it, and how
// its value is read from a Summary. summary.json is written from this list, in its order
// (result_writers.hpp); the golden summaries and the compare headline name their metrics by key from
// it (summary_metric_value refuses a key it does not hold); docs/simulator.md's metric table is
// summary_metrics_markdown() (tests/sim/test_summary_metrics.cpp checks it).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "sim/metrics/summary.hpp"

namespace engramsim::sim {

// When summary.json carries a metric: every run (counts, latency, slo, run), a windowed run
// (agentic: the AgentX replay, a closed loop with warm-up), a run with a host KV-offload pool.
enum class MetricSection { counts, latency, slo, run, agentic, kv_offload };
// How the docs table words each section: several sections share their words, so nothing parses them.
inline constexpr EnumNames<MetricSection, 6> kMetricSectionNames{{{
    {MetricSection::counts, "every run"},
    {MetricSection::latency, "every run"},
    {MetricSection::slo, "every run"},
    {MetricSection::run, "every run"},
    {MetricSection::agentic, "windowed runs"},
    {MetricSection::kv_offload, "with a KV-offload pool"},
}}};
const char* to_string(MetricSection s);

struct SummaryMetric {
  std::string key;      // the summary.json key, as `vllm bench serve` and InferenceX name it
  std::string unit;     // "ms", "tokens", "tokens/s", "" for a count or a fraction, ...
  std::string meaning;  // one line, for the docs table
  MetricSection section = MetricSection::counts;
  bool integer = false;  // written as an integer
  std::function<double(const Summary&, const SloParams&)> value;
};

// The built-in list, in summary.json's order.
const std::vector<SummaryMetric>& summary_metrics();

// Whether a run's summary.json carries the metrics of `section`.
bool section_written(MetricSection section, const Summary& s);

// The value of the metric `key` (NaN when undefined); std::out_of_range naming the key when `list`
// holds no such metric.
double summary_metric_value(const std::vector<SummaryMetric>& list, const std::string& key, const Summary& s,
                            const SloParams& slo = {});

// The docs table of `list`: key, unit, when written, meaning.
std::string summary_metrics_markdown(const std::vector<SummaryMetric>& list);

}  // namespace engramsim::sim
