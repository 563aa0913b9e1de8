// The metrics of a run's summary, declared once, as core/field_table.hpp declares inputs: each
// metric's key, unit, meaning, the section that decides when a run's summary.json carries it, how
// its value is read from a Summary, and which other outputs carry it. Every output is generated from
// this list:
//   summary.json      the metrics with `in_summary_json`, in list order (result_writers.hpp)
//   the `run` table   the metrics with a `row`, by the row's rank (run_table_metrics)
//   goldens           the metrics with a `golden` check, by its rank, with its tolerance
//                     (golden_values; scenario/build/scenario_golden.hpp stores and compares them)
//   sweep results     the metrics with `in_sweep`, under their key in a point's `extra`
//                     (sweep_values; study/scenario_evaluator.cpp)
//   the docs table    docs/simulator.md "Summary metrics" (summary_metrics_markdown)
// The compare headline names its metrics by key (summary_metric_value refuses a key the list does not
// hold). tests/sim/test_summary_metrics.cpp adds a metric to a copy of the list and finds it in all five.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "sim/metrics/summary.hpp"

namespace engramsim::sim {

// When summary.json carries a metric: every run (counts, latency, slo, run), a windowed run
// (agentic: the AgentX replay, a closed loop with warm-up), a run with a host KV-offload pool, a
// disaggregated deployment.
enum class MetricSection { counts, latency, slo, run, agentic, kv_offload, disaggregation };
// How the docs table words each section: several sections share their words, so nothing parses them.
inline constexpr EnumNames<MetricSection, 7> kMetricSectionNames{{{
    {MetricSection::counts, "every run"},
    {MetricSection::latency, "every run"},
    {MetricSection::slo, "every run"},
    {MetricSection::run, "every run"},
    {MetricSection::agentic, "windowed runs"},
    {MetricSection::kv_offload, "with a KV-offload pool"},
    {MetricSection::disaggregation, "disaggregated deployments"},
}}};
const char* to_string(MetricSection s);

// How a value is shown in the `run` table: as it is, as a percentage (x 100), in millions (/ 1e6).
enum class Shown { plain, percent, millions };

// A metric's row in the `run` table. Rows of the sections counts..run show for every run, agentic
// rows when a variant is windowed, kv_offload rows when one has a KV-offload pool.
struct TableRow {
  std::string label;  // "TTFT p50 ms"
  int digits = 1;     // decimals
  Shown shown = Shown::plain;
  bool ratio = false;  // a variant / baseline ratio column makes sense
  MetricSection group = MetricSection::run;
  int rank = 0;  // position among the table's rows (the table has its own order)
};

// How goldens keep a metric: its position in a golden file and how far a run may stray from it,
// |got - want| <= abs + rel x |want|.
struct GoldenCheck {
  int rank = 0;
  double rel = 0.01;
  double abs = 1e-3;
};

struct SummaryMetric {
  std::string key;      // the summary.json key, as `vllm bench serve` and InferenceX name it
  std::string unit;     // "ms", "tokens", "tokens/s", "" for a count or a fraction, ...
  std::string meaning;  // one line, for the docs table
  MetricSection section = MetricSection::counts;
  bool integer = false;  // written as an integer
  std::function<double(const Summary&, const SloParams&)> value;
  bool in_summary_json = true;  // false: a figure derived for another output only
  std::optional<TableRow> row;
  std::optional<GoldenCheck> golden;
  bool in_sweep = false;  // carried in a sweep point's `extra`
};

// One metric's value in a run, as the sweep results and goldens take it.
struct MetricValue {
  std::string key;
  double value = 0.0;
  bool integer = false;
};

// The built-in list, in summary.json's order.
const std::vector<SummaryMetric>& summary_metrics();

// Whether a run's summary.json carries the metrics of `section`.
bool section_written(MetricSection section, const Summary& s);

// The value of the metric `key` (NaN when undefined); std::out_of_range naming the key when `list`
// holds no such metric.
double summary_metric_value(const std::vector<SummaryMetric>& list, const std::string& key, const Summary& s,
                            const SloParams& slo = {});

// The `run` table's metrics, by rank: those of the sections counts..run always, the agentic ones
// when `windowed`, the kv_offload ones when `offload`, the disaggregation ones when `disaggregated`.
std::vector<const SummaryMetric*> run_table_metrics(const std::vector<SummaryMetric>& list, bool windowed, bool offload,
                                                    bool disaggregated = false);
// The value a row shows (percent, millions); NaN when undefined.
double shown_value(const SummaryMetric& m, const Summary& s, const SloParams& slo = {});

// The metrics a golden of run `s` keeps, by rank (the sections the run has).
std::vector<MetricValue> golden_values(const std::vector<SummaryMetric>& list, const Summary& s);
// The golden check of `key`; std::out_of_range naming the key when no listed metric has one.
GoldenCheck golden_check(const std::vector<SummaryMetric>& list, const std::string& key);
// A check in words, for the docs ("exact", "abs 0.005", "rel 1 % + 2").
std::string golden_check_words(const GoldenCheck& c);

// The metrics a sweep point's `extra` carries, in list order.
std::vector<MetricValue> sweep_values(const std::vector<SummaryMetric>& list, const Summary& s);

// The docs table of `list`: key, unit, the outputs that carry it, meaning.
std::string summary_metrics_markdown(const std::vector<SummaryMetric>& list);

}  // namespace engramsim::sim
