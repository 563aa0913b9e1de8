// The summary metrics declared once (sim/metrics/summary_metrics.hpp): summary.json is written from
// the list, in its order, with the sections a run has; the goldens and the compare headline name
// their metrics from it; docs/simulator.md's table is the list's.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "scenario/build/scenario_golden.hpp"
#include "scenario/build/scenario_session.hpp"
#include "sim/metrics/request_columns.hpp"
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

bool has_key(const std::vector<MetricValue>& values, const std::string& key, double value) {
  for (const MetricValue& v : values)
    if (v.key == key) return v.value == value;
  return false;
}

bool in_run_table(const std::vector<SummaryMetric>& list, const std::string& key) {
  for (const SummaryMetric* m : run_table_metrics(list, true, true))
    if (m->key == key) return true;
  return false;
}

// A metric declared once in the list reaches all five outputs without touching their writers:
// summary.json, the run table, sweep results, goldens and the docs table.
TEST(SummaryMetrics, AMetricAddedToTheListReachesEveryOutput) {
  std::vector<SummaryMetric> list = summary_metrics();
  SummaryMetric m{"mean_decode_rows", "",    "real decode rows per step",
                  MetricSection::run, false, [](const Summary& s, const SloParams&) { return s.mean_decode_rows; }};
  m.row = TableRow{"decode rows per step", 2, Shown::plain, true, MetricSection::run, 115};
  m.golden = GoldenCheck{40, 0.02, 0.0};
  m.in_sweep = true;
  list.push_back(m);
  Summary s;
  s.mean_decode_rows = 12.25;

  EXPECT_EQ(summary_json(s).find("mean_decode_rows"), std::string::npos);
  EXPECT_NE(summary_json(s, list).find("\"mean_decode_rows\": 12.250000"), std::string::npos);
  EXPECT_FALSE(in_run_table(summary_metrics(), "mean_decode_rows"));
  ASSERT_TRUE(in_run_table(list, "mean_decode_rows"));
  EXPECT_TRUE(has_key(sweep_values(list, s), "mean_decode_rows", 12.25));
  EXPECT_FALSE(has_key(sweep_values(summary_metrics(), s), "mean_decode_rows", 12.25));
  EXPECT_TRUE(has_key(golden_values(list, s), "mean_decode_rows", 12.25));
  EXPECT_EQ(golden_check_words(golden_check(list, "mean_decode_rows")), "rel 2 % + 0");
  EXPECT_NE(
      summary_metrics_markdown(list).find("| `mean_decode_rows` |  | every run | run table \"decode rows per step\"; "
                                          "goldens (rel 2 % + 0); sweep results |"),
      std::string::npos);
}

// The run table keeps its own order (by rank) and shows its groups only when a run has them.
TEST(SummaryMetrics, RunTableRowsFollowRankAndGroup) {
  const auto keys = [](bool windowed, bool offload) {
    std::vector<std::string> out;
    for (const SummaryMetric* m : run_table_metrics(summary_metrics(), windowed, offload)) out.push_back(m->key);
    return out;
  };
  const auto plain = keys(false, false);
  ASSERT_GE(plain.size(), 3u);
  EXPECT_EQ(plain.front(), "tput_per_gpu");
  EXPECT_EQ(plain.back(), "duration");
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "p90_e2e_norm_intvty"), 0);
  const auto windowed = keys(true, false);
  EXPECT_EQ(std::count(windowed.begin(), windowed.end(), "p90_e2e_norm_intvty"), 1);
  EXPECT_EQ(std::count(windowed.begin(), windowed.end(), "kv_offload_load_s"), 0);
  const auto all = keys(true, true);
  EXPECT_EQ(all.back(), "kv_offload_load_s");
}

// A table-only metric is shown but not written to summary.json; percentages are scaled for the table.
TEST(SummaryMetrics, TableOnlyAndShownValues) {
  Summary s;
  s.cost_usd = 2.0;
  s.uncached_input_tokens = 4'000'000;
  s.mean_kv_usage = 0.25;
  EXPECT_EQ(summary_json(s).find("usd_per_m_uncached_input_tokens"), std::string::npos);
  for (const SummaryMetric* m : run_table_metrics(summary_metrics(), false, false)) {
    if (m->key == "usd_per_m_uncached_input_tokens") {
      EXPECT_DOUBLE_EQ(shown_value(*m, s), 0.5);
    }
    if (m->key == "mean_kv_usage") {
      EXPECT_DOUBLE_EQ(shown_value(*m, s), 25.0);
    }
  }
}

// Goldens keep the tolerance each metric declares; a key without one is refused.
TEST(SummaryMetrics, GoldenChecksAreDeclaredWithTheMetric) {
  EXPECT_EQ(golden_check_words(golden_check(summary_metrics(), "completed")), "exact");
  EXPECT_EQ(golden_check_words(golden_check(summary_metrics(), "mean_kv_usage")), "abs 0.005");
  EXPECT_EQ(golden_check_words(golden_check(summary_metrics(), "steps")), "rel 1 % + 2");
  EXPECT_THROW(golden_check(summary_metrics(), "std_ttft_ms"), std::out_of_range);
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

// requests.csv is written from its column list: header and rows, a column added to the list included.
TEST(RequestColumns, TheCsvIsTheList) {
  RequestRecord r;
  r.id = 4;
  r.prompt_tokens = 100;
  r.arrival = Time::ms(1500);
  r.first_token = Time::ms(1750);
  std::vector<RequestColumn> list = request_columns();
  list.push_back({"recomputed_tokens", "tokens", "KV tokens computed again after preemptions",
                  [](const RequestRecord& x) { return std::to_string(x.recomputed_tokens); }});
  std::ostringstream os;
  write_requests_csv({r}, os, list);
  const std::string csv = os.str();
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "request_id,replica,status,session,arrival_s,input_tokens,output_tokens,generated_tokens,cached_tokens,"
            "preemptions,queue_ms,ttft_ms,tpot_ms,e2el_ms,recomputed_tokens");
  EXPECT_EQ(csv.substr(csv.find('\n') + 1), "4,0,finished,0,1.500000,100,0,0,0,0,,250.000000,,,0\n");
  EXPECT_NE(request_columns_markdown(list).find("| `recomputed_tokens` | tokens |"), std::string::npos);
}

TEST(RequestColumns, DocsTableIsTheList) {
  test::check_docs_table("docs/simulator.md", "### requests.csv columns", request_columns_markdown(request_columns()));
}

}  // namespace
}  // namespace engramsim::sim
