// The summary metrics declared once (sim/metrics/summary_metrics.hpp): summary.json is written from
// the list, in its order, with the sections a run has; the goldens and the compare headline name
// their metrics from it; docs/simulator.md's table is the list's.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "scenario/build/scenario_golden.hpp"
#include "scenario/build/scenario_session.hpp"
#include "sim/metrics/result_writers.hpp"
#include "sim/metrics/summary_metrics.hpp"
#include "tests/support/docs_table.hpp"

namespace engramsim::sim {
namespace {

std::string summary_json(const Summary& s, const std::vector<SummaryMetric>& list = summary_metrics()) {
  std::ostringstream os;
  write_summary_json(s, {}, os, list);
  return os.str();
}

TEST(SummaryMetrics, KeysAreUnique) {
  std::set<std::string> seen;
  for (const SummaryMetric& m : summary_metrics()) EXPECT_TRUE(seen.insert(m.key).second) << m.key;
}

TEST(SummaryMetrics, SummaryJsonCarriesTheSectionsARunHas) {
  Summary s;
  s.completed = 7;
  s.kv_evictions = 3;
  s.kv_offload_written_gb = 1.5;
  EXPECT_NE(summary_json(s).find("\"completed\": 7"), std::string::npos);
  EXPECT_EQ(summary_json(s).find("\"kv_evictions\""), std::string::npos);
  s.windowed = true;
  EXPECT_NE(summary_json(s).find("\"kv_evictions\": 3"), std::string::npos);
  EXPECT_EQ(summary_json(s).find("kv_offload_written_gb"), std::string::npos);
  s.kv_offload = true;
  EXPECT_NE(summary_json(s).find("\"kv_offload_written_gb\": 1.500000"), std::string::npos);
}

// A metric declared in the list is written without touching the writer.
TEST(SummaryMetrics, AMetricAddedToTheListIsWritten) {
  std::vector<SummaryMetric> list = summary_metrics();
  list.push_back({"mean_decode_rows", "", "real decode rows per step", MetricSection::run, false,
                  [](const Summary& s, const SloParams&) { return s.mean_decode_rows; }});
  Summary s;
  s.mean_decode_rows = 12.25;
  EXPECT_EQ(summary_json(s).find("mean_decode_rows"), std::string::npos);
  EXPECT_NE(summary_json(s, list).find("\"mean_decode_rows\": 12.250000"), std::string::npos);
  EXPECT_NE(summary_metrics_markdown(list).find("| `mean_decode_rows` |"), std::string::npos);
}

TEST(SummaryMetrics, GoldenAndHeadlineNameListedMetrics) {
  Summary s;
  s.windowed = true;
  s.kv_offload = true;
  EXPECT_NO_THROW(scenario::golden_metrics(s));
  EXPECT_NO_THROW(scenario::headline_metrics(s));
  EXPECT_THROW(summary_metric_value(summary_metrics(), "no_such_metric", s), std::out_of_range);
}

TEST(SummaryMetrics, DocsTableIsTheList) {
  test::check_docs_table("docs/simulator.md", "### Summary metrics", summary_metrics_markdown(summary_metrics()));
}

}  // namespace
}  // namespace engramsim::sim
