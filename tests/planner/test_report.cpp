#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "planner/report_data.hpp"
#include "planner_test_util.hpp"
#include "report/report_writer.hpp"
#include "report_fixture.hpp"

using namespace engramsim;
using namespace engramsim::planner;
using namespace engramsim::report;
using namespace engramsim::planner::testing;
namespace fs = std::filesystem;

namespace {
std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

ResultLine ok_line(std::size_t index, const std::string& tier, double conc, double inter, double tput, double price) {
  ResultLine l;
  l.index = index;
  l.id = "id" + std::to_string(index);
  l.assignments = {{"deployment.engram_tier", tier}, {"workload.concurrency", conc}};
  PointMetrics m;
  m.interactivity = inter;
  m.throughput_per_gpu = tput;
  m.gpu_hour_usd = price;
  m.cost_per_gpu_hour_usd = NAN;  // falls back to the GPU price
  m.ttft_ms = {10, 20, 30};
  m.tpot_ms = {NAN, NAN, NAN};
  l.result = to_json(m);
  return l;
}
}  // namespace

TEST(ReportData, ConfigLabelsLeaveOutTheCurveAxis) {
  const nlohmann::json a = {{"deployment.tp", 2}, {"deployment.engram_tier", "dram"}, {"workload.concurrency", 8}};
  EXPECT_EQ(
      config_label(a, {"deployment.tp", "deployment.engram_tier", "workload.concurrency"}, "workload.concurrency"),
      "tp=2 engram_tier=dram");
  // Two axes ending in the same name keep their full keys.
  const nlohmann::json b = {{"a.tp", 1}, {"b.tp", 2}};
  EXPECT_EQ(config_label(b, {"a.tp", "b.tp"}, "workload.concurrency"), "a.tp=1 b.tp=2");
  EXPECT_EQ(config_label({{"workload.concurrency", 1}}, {"workload.concurrency"}, "workload.concurrency"), "base");
}

TEST(ReportData, ComparisonAndRecommendationOnHandMadeCurves) {
  // dram doubles hbm's throughput at every interactivity, at the same price.
  std::vector<ResultLine> lines = {ok_line(0, "hbm", 1, 100, 1000, 2.0), ok_line(1, "hbm", 8, 50, 2000, 2.0),
                                   ok_line(2, "dram", 1, 100, 2000, 2.0), ok_line(3, "dram", 8, 50, 4000, 2.0)};
  ResultLine inf;
  inf.index = 4;
  inf.id = "id4";
  inf.status = PointStatus::infeasible;
  inf.reason = "does not fit";
  inf.assignments = {{"deployment.engram_tier", "ssd"}, {"workload.concurrency", 1}};
  lines.push_back(inf);
  ReportContext ctx;
  ctx.target_interactivity = 75.0;
  const auto d = make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"}, 6);
  ASSERT_EQ(d.points.size(), 5u);
  EXPECT_EQ(d.total_points, 6u);
  EXPECT_EQ(d.points[2].config, "engram_tier=dram");
  EXPECT_DOUBLE_EQ(d.points[2].concurrency, 1.0);
  EXPECT_DOUBLE_EQ(d.points[2].tokens_per_dollar, 2000 * 3600 / 2.0);
  EXPECT_TRUE(std::isnan(d.points[4].tokens_per_dollar));
  const auto cmp = compare_at(d, 75.0);
  ASSERT_EQ(cmp.size(), 2u);
  EXPECT_EQ(cmp[0].config, "engram_tier=dram");
  EXPECT_DOUBLE_EQ(*cmp[0].throughput_per_gpu, 3000.0);  // two points: linear
  EXPECT_DOUBLE_EQ(*cmp[1].throughput_per_gpu, 1500.0);
  EXPECT_DOUBLE_EQ(*cmp[1].ratio_to_best, 0.5);
  const auto rec = recommend(d);
  EXPECT_TRUE(rec.found);
  EXPECT_EQ(rec.config, "engram_tier=dram");
  EXPECT_NE(rec.text.find("2.000x the next best"), std::string::npos) << rec.text;
  // The infeasible ssd configuration is named, not dropped.
  ASSERT_EQ(rec.out_of_range.size(), 1u);
  EXPECT_EQ(rec.out_of_range[0].config, "engram_tier=ssd");
  EXPECT_NE(rec.text.find("engram_tier=ssd (no point ran (does not fit))"), std::string::npos) << rec.text;
  // Without a target: the best point meeting the SLO.
  ReportContext ctx2;
  ctx2.slo.min_interactivity = 60.0;
  const auto d2 = make_report_data(ctx2, lines);
  const auto rec2 = recommend(d2);
  ASSERT_TRUE(rec2.point_index.has_value());
  EXPECT_EQ(*rec2.point_index, 2u);
  ctx2.slo.max_tpot_p99_ms = 1.0;  // NaN TPOT never meets a bound
  EXPECT_FALSE(recommend(make_report_data(ctx2, lines)).found);
}

// A margin inside the validation error of the configurations compared is a tie, stated as such; a
// configuration whose points sit below the target is named with its range.
TEST(ReportData, TiesInsideTheValidationErrorAndConfigurationsOutOfRange) {
  auto with_gpu = [](ResultLine l, const char* gpu) {
    l.result["extra"] = {{"gpu", gpu}, {"engine", "vllm"}};
    return l;
  };
  std::vector<ResultLine> lines = {
      with_gpu(ok_line(0, "hbm", 1, 100, 1000, 2.0), "b300"),  with_gpu(ok_line(1, "hbm", 8, 50, 2000, 2.0), "b300"),
      with_gpu(ok_line(2, "dram", 1, 100, 1030, 2.0), "b300"), with_gpu(ok_line(3, "dram", 8, 50, 2060, 2.0), "b300"),
      with_gpu(ok_line(4, "ssd", 1, 40, 500, 2.0), "b300"),    with_gpu(ok_line(5, "ssd", 8, 20, 900, 2.0), "b300")};
  ReportContext ctx;
  ctx.target_interactivity = 75.0;
  ctx.validation.by_engine["vllm"] = 0.05;
  const auto d = make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"});
  EXPECT_DOUBLE_EQ(*config_error(d, "engram_tier=dram"), 0.05);
  const auto rec = recommend(d);
  ASSERT_TRUE(rec.found);
  EXPECT_EQ(rec.config, "engram_tier=dram");
  ASSERT_EQ(rec.tied.size(), 1u);
  EXPECT_EQ(rec.tied[0], "engram_tier=hbm");
  EXPECT_NEAR(*rec.margin, 0.03, 1e-9);
  EXPECT_NE(rec.text.find("a tie with engram_tier=hbm"), std::string::npos) << rec.text;
  ASSERT_EQ(rec.out_of_range.size(), 1u);
  EXPECT_EQ(rec.out_of_range[0].config, "engram_tier=ssd");
  EXPECT_NE(rec.out_of_range[0].why.find("20.0..40.0 tok/s/user, all below the target"), std::string::npos);
  // A GPU's own MAPE wins over the engine's when larger; with neither, the set's serving MAPE.
  ctx.validation.by_gpu["b300"] = 0.01;  // intervals 1.03 x (1 - 0.01) > 1.00 x (1 + 0.01): no overlap
  ctx.validation.by_engine.clear();
  EXPECT_TRUE(recommend(make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"})).tied.empty());
  ctx.validation.by_gpu.clear();
  ctx.validation.serving_throughput = 0.36;
  EXPECT_DOUBLE_EQ(*config_error(make_report_data(ctx, lines), "engram_tier=hbm"), 0.36);
  // The context round-trips its validation errors.
  const ReportContext back = ReportContext::from_json(ctx.to_json());
  EXPECT_DOUBLE_EQ(*back.validation.serving_throughput, 0.36);
}

// One row per configuration from its results' host memory, at the point nearest the target.
TEST(ReportData, HostMemoryTablePerConfiguration) {
  auto with_host = [](ResultLine l, double page_cache) {
    l.result["extra"] = {{"host_memory_per_node_gib", {{"capacity", 1862.6}, {"page_cache_used", page_cache}}}};
    return l;
  };
  const std::vector<ResultLine> lines = {with_host(ok_line(0, "ssd", 1, 100, 1000, 2.0), 10.0),
                                         with_host(ok_line(1, "ssd", 8, 50, 2000, 2.0), 188.8),
                                         ok_line(2, "hbm", 1, 100, 1000, 2.0)};
  ReportContext ctx;
  ctx.target_interactivity = 60.0;
  const Table t = host_memory_table(make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"}));
  EXPECT_EQ(t.name, "host_memory");
  ASSERT_EQ(t.rows.size(), 1u);  // the hbm results carry no host figures
  EXPECT_EQ(t.rows[0][0], "engram_tier=ssd");
  EXPECT_EQ(t.rows[0][1], "1862.6");
  EXPECT_EQ(t.rows[0][6], "188.8");  // the point at interactivity 50 is nearer 60
  EXPECT_EQ(t.rows[0][2], "");
}

TEST(Report, WritesEveryFileAndRebuildsIdentically) {
  TempDir t;
  const std::size_t n = make_analytic_results(t.path());
  const auto d = load_results(t.path());
  EXPECT_EQ(d.total_points, n);
  EXPECT_EQ(d.points.size(), n);
  EXPECT_EQ(d.context.title, analytic_context().title);
  const auto files = engramsim::report::write_report(d, t.path());
  for (const auto* name :
       {"report.html", "report.md", "charts/pareto.svg", "charts/tokens_per_dollar.svg", "charts/hbm_footprint.svg",
        "charts/ttft_cdf.svg", "charts/tpot_cdf.svg", "charts/engram_stall.svg", "tables/points.csv",
        "tables/points.json", "tables/frontier_throughput.csv", "tables/comparison.csv", "tables/footprint.csv",
        "tables/assumptions.json", "tables/fleet.csv"}) {
    EXPECT_TRUE(fs::exists(t / name)) << name;
    EXPECT_GT(fs::file_size(t / name), 0u) << name;
  }
  const std::string html = read_file(t / "report.html");
  // Every chart is inline with data marks; the two interactivity charts also in a log-x version.
  EXPECT_EQ(count(html, "<svg "), 8u);
  EXPECT_GT(count(html, "class=\"series-line\""), 10u);
  EXPECT_GT(count(html, "class=\"bar\""), 3u);
  // Self-contained: one inline script (the axis toggle and layout self-check), no external references.
  EXPECT_EQ(count(html, "<script"), 1u);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  // The verdict comes first, the target is marked, points carry tooltips, tables a CSV download.
  EXPECT_LT(html.find("id=\"verdict\""), html.find("id=\"question\""));
  EXPECT_NE(html.find("class=\"target-marker\""), std::string::npos);
  EXPECT_GT(count(html, "class=\"marker\""), 10u);
  EXPECT_NE(html.find("download=\"points.csv\" href=\"data:text/csv"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  for (const auto* section :
       {"id=\"question\"", "id=\"recommendation\"", "id=\"pareto\"", "id=\"tokens-per-dollar\"", "id=\"footprint\"",
        "id=\"latency\"", "id=\"engram-stall\"", "id=\"points\"", "id=\"assumptions\""})
    EXPECT_NE(html.find(section), std::string::npos) << section;
  EXPECT_NE(html.find("class=\"kind-measured\""), std::string::npos);
  EXPECT_NE(html.find("Fleet plans"), std::string::npos);
  // The recommendation on this synthetic model: TP2 with Engram in DRAM, by its human name.
  EXPECT_NE(html.find("TP2 \u00b7 Engram in DRAM serves the most tokens per dollar"), std::string::npos);
  // The points table has every point, infeasible ones with their reason.
  const std::string csv = read_file(t / "tables/points.csv");
  EXPECT_EQ(count_lines(csv), n + 1);
  EXPECT_NE(csv.find("infeasible"), std::string::npos);
  const auto pj = nlohmann::json::parse(read_file(t / "tables/points.json"));
  ASSERT_EQ(pj.size(), n);
  EXPECT_TRUE(pj[0]["index"].is_number());
  // Rebuilding from the folder gives the same bytes.
  engramsim::report::write_report(load_results(t.path()), t.path());
  EXPECT_EQ(read_file(t / "report.html"), html);
  const std::string md = read_file(t / "report.md");
  EXPECT_NE(md.find("![Throughput per GPU vs interactivity](charts/pareto.svg)"), std::string::npos);
  EXPECT_NE(md.find("## Assumptions"), std::string::npos);
}

TEST(Report, MissingResultsIsAClearError) {
  TempDir t;
  try {
    load_results(t.path());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("results.jsonl does not exist"), std::string::npos);
  }
}

TEST(Report, CsvQuotesAndJsonNumbers) {
  Table tb{"t", "T", {"a", "b"}, {{"x,y", "1.5"}, {"say \"hi\"", ""}}};
  EXPECT_EQ(engramsim::report::table_to_csv(tb), "a,b\n\"x,y\",1.5\n\"say \"\"hi\"\"\",\n");
  const auto j = engramsim::report::table_to_json(tb);
  EXPECT_DOUBLE_EQ(j[0]["b"].get<double>(), 1.5);
  EXPECT_TRUE(j[1]["b"].is_null());
  EXPECT_EQ(j[0]["a"], "x,y");
  // Keys are identifiers a script can use; the titles with units stay in the CSV header.
  EXPECT_EQ(engramsim::report::json_key("max req/s per replica"), "max_req_per_s_per_replica");
  EXPECT_EQ(engramsim::report::json_key("$/M tokens"), "usd_per_m_tokens");
  EXPECT_EQ(engramsim::report::json_key("KV use peak (%)"), "kv_use_peak_pct");
  EXPECT_EQ(engramsim::report::json_key("util."), "util");
  EXPECT_EQ(engramsim::report::json_key("2nd"), "c_2nd");
}

namespace {
std::string between(const std::string& s, const std::string& from, const std::string& to) {
  const auto a = s.find(from);
  if (a == std::string::npos) return "";
  const auto b = s.find(to, a);
  return s.substr(a, b == std::string::npos ? std::string::npos : b - a);
}
}  // namespace

// The first screen: a one-sentence verdict (what to run, by how much, how far to trust it), the
// question with the run's overrides marked in the title, and the scenario, tool, presets, prices
// and calibration as run.
TEST(Report, FirstScreenVerdictOverridesAndTheRunAsItWas) {
  TempDir t;
  make_analytic_results(t.path());
  ReportContext c = *read_context(t.path());
  c.overrides = {"node=hgx-b200"};
  c.tool = "engramsim 0.1.0 (commit abc1234)";
  c.validation.serving_throughput = 0.062;
  write_context(t.path(), c);
  engramsim::report::write_report(load_results(t.path()), t.path());
  const std::string html = read_file(t / "report.html");
  const std::string headline = between(html, "id=\"verdict-headline\">", "</p>");
  EXPECT_NE(headline.find("Run TP2 \u00b7 Engram in DRAM: "), std::string::npos) << headline;
  EXPECT_NE(headline.find("x the tokens per dollar of TP4 \u00b7 Engram in "), std::string::npos) << headline;
  EXPECT_NE(headline.find(" at 60 tok/s/user ("), std::string::npos) << headline;
  EXPECT_NE(headline.find(" M tokens/$, $"), std::string::npos) << headline;
  EXPECT_NE(headline.find("/M tokens); "), std::string::npos) << headline;
  EXPECT_NE(headline.find("no validation case on its GPU with its engine; the whole set&#39;s serving throughput: "
                          "mean error 6.2 % (MAPE, not a bound)"),
            std::string::npos)
      << headline;
  // The title says the scenario was changed, in the page title too.
  EXPECT_NE(between(html, "<title>", "</title>").find("(as run with node=hgx-b200)"), std::string::npos);
  EXPECT_NE(between(html, "<h1 id=\"title\">", "</h1>").find("as run with node=hgx-b200"), std::string::npos);
  const std::string facts = between(html, "id=\"as-run\"", "</table>");
  for (const char* f :
       {"<th>Overrides</th><td>node=hgx-b200</td>", "<th>Tool</th><td>engramsim 0.1.0 (commit abc1234)</td>",
        "<th>Scenario</th><td>scenarios/synthetic.yaml</td>", "synthetic-288g", "hyperscaler price tier, $2.34",
        "<th>Calibration</th><td>none"})
    EXPECT_NE(facts.find(f), std::string::npos) << f << " in " << facts;
  EXPECT_LT(html.find("id=\"verdict\""), html.find("id=\"as-run\""));
  // The band of the recommended curve's validation error.
  EXPECT_NE(html.find("class=\"uncertainty-band\""), std::string::npos);
  EXPECT_NE(read_file(t / "report.md").find("**Run TP2 \u00b7 Engram in DRAM: "), std::string::npos);
}

// Configurations by human names, tokens per dollar as M tokens/$ and $/M tokens, never raw.
TEST(Report, HumanNamesAndMillionsOfTokensPerDollar) {
  TempDir t;
  make_analytic_results(t.path());
  const auto d = load_results(t.path());
  engramsim::report::write_report(d, t.path());
  const std::string html = read_file(t / "report.html");
  // Machine labels only in the comparison's sweep-label column (the key --set and the validation
  // set use) and inside the CSV data links; the fleet table's label became a name.
  EXPECT_EQ(count(html, "<td>tp=2 engram_tier=dram</td>"), 1u);
  EXPECT_EQ(html.find("tp=4 engram_tier=hbm serves"), std::string::npos);
  EXPECT_NE(html.find("<td>TP2 \u00b7 Engram in DRAM</td><td class=\"num\">12</td>"), std::string::npos);
  for (const auto& tb : engramsim::report::report_tables(d)) {
    for (const auto& col : tb.columns) EXPECT_NE(col, "tokens per dollar") << tb.name;
    if (tb.name != "comparison" && tb.name != "frontier_tokens_per_dollar") continue;
    const auto m = std::find(tb.columns.begin(), tb.columns.end(), "M tokens/$") - tb.columns.begin();
    const auto u = std::find(tb.columns.begin(), tb.columns.end(), "$/M tokens") - tb.columns.begin();
    ASSERT_LT(static_cast<std::size_t>(m), tb.columns.size()) << tb.name;
    ASSERT_LT(static_cast<std::size_t>(u), tb.columns.size()) << tb.name;
    for (const auto& r : tb.rows) {
      if (r[m] == "out of range") continue;
      const double mtok = std::stod(r[m]);
      EXPECT_GT(mtok, 0.01) << tb.name;  // millions, not the raw count (10^5..10^7 here)
      EXPECT_LT(mtok, 1000.0) << tb.name;
      EXPECT_NEAR(std::stod(r[u]) * mtok, 1.0, 0.01) << tb.name;
    }
  }
}

// Prose never writes a figure in scientific notation (the fallback recommendation's throughput).
TEST(Report, NoScientificNotationInProse) {
  std::vector<ResultLine> lines = {ok_line(0, "hbm", 1, 100, 682934.2, 2.0), ok_line(1, "dram", 1, 90, 1234567.0, 2.0)};
  ReportContext ctx;
  ctx.slo.min_interactivity = 50.0;
  const auto d = make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"});
  const auto rec = recommend(d);
  ASSERT_TRUE(rec.found);
  EXPECT_NE(rec.text.find("1234567 tok/s/GPU"), std::string::npos) << rec.text;
  EXPECT_EQ(rec.text.find("e+"), std::string::npos) << rec.text;
  const std::string html = engramsim::report::render_html(d);
  EXPECT_EQ(between(html, "id=\"verdict\"", "</div>").find("e+0"), std::string::npos);
  EXPECT_EQ(html.find("e+0"), std::string::npos);
}

// On paper a long table (the analytic sweep's 36 points, more than 20 rows) is a line naming its CSV
// file beside the report, and a short one prints; buttons and CSV links do not print.
TEST(Report, PrintsLongTablesAsALineNamingTheirCsvFile) {
  TempDir t;
  make_analytic_results(t.path());
  const std::string html = engramsim::report::render_html(load_results(t.path()));
  EXPECT_NE(html.find("@media print{"), std::string::npos);
  EXPECT_NE(html.find(".table-tools,.axis-toggle{display:none"), std::string::npos);
  const std::string stand_in = between(html, "<section id=\"points\">", "<table");
  EXPECT_NE(stand_in.find("class=\"print-only table-file\""), std::string::npos) << stand_in;
  EXPECT_NE(stand_in.find("tables/points.csv"), std::string::npos) << stand_in;
  EXPECT_NE(stand_in.find("class=\"table-wrap no-print\""), std::string::npos) << stand_in;
  const std::string kv = between(html, "id=\"kv-walls\"", "</table>");
  EXPECT_EQ(kv.find("no-print"), std::string::npos) << kv;
  EXPECT_EQ(kv.find("print-only"), std::string::npos) << kv;
}

// A margin inside the validation error is said as a tie in the verdict, not as a winner.
TEST(Report, VerdictSaysATieInsideTheValidationError) {
  std::vector<ResultLine> lines = {ok_line(0, "hbm", 1, 100, 1000, 2.0), ok_line(1, "hbm", 8, 50, 2000, 2.0),
                                   ok_line(2, "dram", 1, 100, 1030, 2.0), ok_line(3, "dram", 8, 50, 2060, 2.0)};
  ReportContext ctx;
  ctx.target_interactivity = 75.0;
  ctx.validation.serving_throughput = 0.05;
  const std::string html =
      engramsim::report::render_html(make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"}));
  EXPECT_NE(between(html, "id=\"verdict-headline\">", "</p>")
                .find("A tie at 75 tok/s/user: Engram in DRAM leads Engram in HBM by 3 %, inside the \u00b15 % "
                      "validation error"),
            std::string::npos)
      << between(html, "id=\"verdict-headline\">", "</p>");
}

namespace {
// A result line with the KV figures of its run: prompt tokens (some cached), output tokens, tokens
// recomputed after preemption, hit rates and KV use.
ResultLine with_kv(ResultLine l, double recomputed, double ideal_hit, double hit, double peak_kv) {
  l.result["extra"] = {{"total_input_tokens", 100000},
                       {"cached_input_tokens", 90000},
                       {"total_output_tokens", 10000},
                       {"recomputed_tokens", recomputed},
                       {"recomputed_prefix_tokens", 0},
                       {"prefix_cache_hit_rate", hit},
                       {"ideal_prefix_hit_rate", ideal_hit},
                       {"peak_kv_usage", peak_kv},
                       {"mean_kv_usage", peak_kv * 0.8},
                       {"preemptions", recomputed > 0 ? 3 : 0},
                       {"kv_evictions", 12}};
  return l;
}

// engram_tier=dram reads more at 60 tok/s/user only by interpolating towards its concurrency-8
// point, where a fifth of the tokens computed are recomputation after preemption: past its KV wall.
std::vector<ResultLine> wall_lines(bool hbm_past_too) {
  return {with_kv(ok_line(0, "hbm", 1, 100, 1000, 2.0), 0, 0.9, 0.9, 0.3),
          with_kv(ok_line(1, "hbm", 8, 50, 2000, 2.0), 0, 0.9, hbm_past_too ? 0.7 : 0.9, 0.97),
          with_kv(ok_line(2, "dram", 1, 100, 1200, 2.0), 0, 0.9, 0.9, 0.3),
          with_kv(ok_line(3, "dram", 4, 80, 1500, 2.0), 0, 0.9, 0.9, 0.8),
          with_kv(ok_line(4, "dram", 8, 50, 4000, 2.0), 4000, 0.9, 0.9, 1.0)};
}
const std::vector<std::string> kTierAxes = {"deployment.engram_tier", "workload.concurrency"};
}  // namespace

// The naive choice (the most tokens per dollar at the target, read off every point) lies past its
// configuration's KV wall: the recommendation takes the best reading within a wall and names the other.
TEST(ReportKvWall, TheNaiveChoicePastItsWallIsNotRecommendedSilently) {
  ReportContext ctx;
  ctx.target_interactivity = 60.0;
  const auto d = make_report_data(ctx, wall_lines(false), kTierAxes);
  const auto walls = kv_walls(d);
  EXPECT_EQ(*walls.wall("engram_tier=dram")->wall_index, 3u);
  EXPECT_TRUE(walls.past_wall(4));
  EXPECT_EQ(walls.mark(4)->causes, unsigned(kv_wall_preemption));  // 4000 / (10000 + 10000 + 4000)
  EXPECT_FALSE(walls.wall("engram_tier=hbm")->reached());
  // Naively dram reads ~3333 tok/s/GPU at 60 against hbm's 1800; within its wall it meets 60 only at
  // its concurrency-4 point (80 tok/s/user, 1500 tok/s/GPU), so it is read there, at least.
  const auto cmp = compare_at(d, 60.0);
  ASSERT_EQ(cmp.size(), 2u);
  EXPECT_EQ(cmp[0].config, "engram_tier=hbm");
  EXPECT_FALSE(cmp[0].past_wall);
  EXPECT_DOUBLE_EQ(*cmp[0].throughput_per_gpu, 1800.0);
  EXPECT_EQ(cmp[1].config, "engram_tier=dram");
  EXPECT_FALSE(cmp[1].past_wall);
  EXPECT_TRUE(cmp[1].at_least);
  EXPECT_DOUBLE_EQ(*cmp[1].throughput_per_gpu, 1500.0);
  ASSERT_TRUE(cmp[1].past_wall_tokens_per_dollar.has_value());
  EXPECT_GT(*cmp[1].past_wall_tokens_per_dollar, 1800.0 * 3600 / 2.0);
  const auto rec = recommend(d);
  ASSERT_TRUE(rec.found);
  EXPECT_EQ(rec.config, "engram_tier=hbm");
  EXPECT_FALSE(rec.past_wall);
  EXPECT_NEAR(*rec.margin, 0.2, 1e-9);  // against dram's best point within its wall
  ASSERT_EQ(rec.past_wall_better.size(), 1u);
  EXPECT_EQ(rec.past_wall_better[0], "engram_tier=dram");
  EXPECT_NE(rec.text.find("engram_tier=dram would read more"), std::string::npos) << rec.text;
  EXPECT_NE(rec.text.find("its KV wall is at concurrency 4 (past it from 8: preemption recompute 16.7 % of the "
                          "tokens computed)"),
            std::string::npos)
      << rec.text;
  const std::string html = engramsim::report::render_html(d);
  const std::string headline = between(html, "id=\"verdict-headline\">", "</p>");
  EXPECT_NE(headline.find("Run Engram in HBM: 1.20x the tokens per dollar of Engram in DRAM at 60 tok/s/user"),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("(Engram in DRAM reads more only past the KV wall)"), std::string::npos) << headline;
  // Every table marks the wall: the comparison, the frontiers, every point, and the walls themselves;
  // the charts ring the wall point.
  const auto tables = engramsim::report::report_tables(d);
  const auto cell = [&](const std::string& table, std::size_t row, const std::string& column) {
    for (const auto& t : tables) {
      if (t.name != table) continue;
      const auto c = std::find(t.columns.begin(), t.columns.end(), column) - t.columns.begin();
      if (static_cast<std::size_t>(c) >= t.columns.size() || row >= t.rows.size()) return std::string("?");
      return t.rows[row][c];
    }
    return std::string("?");
  };
  EXPECT_EQ(cell("comparison", 0, "past KV wall"), "no");
  EXPECT_EQ(cell("comparison", 1, "past KV wall"), "no");
  EXPECT_EQ(cell("points", 3, "past KV wall"), "no");
  EXPECT_EQ(cell("points", 4, "past KV wall"), "yes: preemption recompute");
  EXPECT_EQ(cell("points", 4, "recompute share (%)"), "16.7");
  EXPECT_EQ(cell("points", 4, "recomputed tokens (preemption)"), "4000");
  EXPECT_EQ(cell("points", 4, "KV use peak (%)"), "100");
  EXPECT_EQ(cell("points", 4, "prefix hit rate"), "0.900");
  EXPECT_EQ(cell("points", 4, "KV evictions"), "12");
  EXPECT_EQ(cell("frontier_throughput", 0, "past KV wall"), "yes");  // dram at 8: the most throughput
  EXPECT_EQ(cell("kv_walls", 1, "KV wall (workload.concurrency)"), "4");
  EXPECT_EQ(cell("kv_walls", 1, "past it from (workload.concurrency)"), "8");
  EXPECT_EQ(cell("kv_walls", 0, "why"), "not reached in the swept range");
  EXPECT_EQ(count(html, "class=\"wall-marker\""), 4u);  // one ring per chart, linear and log x
  EXPECT_NE(html.find("KV wall of Engram in DRAM: its KV wall is at concurrency 4"), std::string::npos);
  const std::string md = engramsim::report::render_markdown(d);
  EXPECT_NE(md.find("### KV wall per configuration"), std::string::npos);
  EXPECT_NE(md.find("| past KV wall |"), std::string::npos);
}

// When no configuration reaches the target within its wall, the verdict line says the answer lies
// past it.
TEST(ReportKvWall, OnlyPastTheWallIsSaidInTheVerdictLine) {
  ReportContext ctx;
  ctx.target_interactivity = 60.0;
  // Every point past its wall: hbm loses prefixes, dram recomputes after preemption.
  const std::vector<ResultLine> lines = {with_kv(ok_line(0, "hbm", 6, 70, 1500, 2.0), 0, 0.9, 0.7, 0.97),
                                         with_kv(ok_line(1, "hbm", 8, 50, 2000, 2.0), 0, 0.9, 0.7, 0.97),
                                         with_kv(ok_line(2, "dram", 6, 70, 3000, 2.0), 4000, 0.9, 0.9, 1.0),
                                         with_kv(ok_line(3, "dram", 8, 50, 4000, 2.0), 4000, 0.9, 0.9, 1.0)};
  const auto d = make_report_data(ctx, lines, kTierAxes);
  EXPECT_EQ(kv_walls(d).mark(1)->causes, unsigned(kv_wall_prefix_loss));  // hit rate 0.2 below ideal, evictions
  const auto rec = recommend(d);
  ASSERT_TRUE(rec.found);
  EXPECT_EQ(rec.config, "engram_tier=dram");
  EXPECT_TRUE(rec.past_wall);
  EXPECT_EQ(rec.runner_up, "engram_tier=hbm");  // both past their walls: compared with each other
  EXPECT_NE(rec.text.find("No configuration reaches 60 tok/s/user within its KV wall: engram_tier=dram gets there "
                          "only past it"),
            std::string::npos)
      << rec.text;
  const std::string headline = between(engramsim::report::render_html(d), "id=\"verdict-headline\">", "</p>");
  EXPECT_NE(headline.find("Run Engram in DRAM only past its KV wall (no configuration reaches 60 tok/s/user within "
                          "its wall): "),
            std::string::npos)
      << headline;
}

// Without a target: the best point meeting the SLO within its wall; past the wall only when nothing
// else meets the SLO, and then said so.
TEST(ReportKvWall, PointRulePrefersPointsWithinTheWall) {
  ReportContext ctx;
  ctx.slo.min_interactivity = 40.0;
  auto d = make_report_data(ctx, wall_lines(false), kTierAxes);
  auto rec = recommend(d);
  ASSERT_TRUE(rec.point_index.has_value());
  EXPECT_EQ(*rec.point_index, 1u);  // hbm at 8 (2000 tok/s/GPU); dram at 8 reads 4000 past its wall
  EXPECT_FALSE(rec.past_wall);
  ASSERT_EQ(rec.past_wall_better.size(), 1u);
  EXPECT_NE(rec.text.find("engram_tier=dram at workload.concurrency=8 would read more"), std::string::npos) << rec.text;
  // A sweep whose only point is past its wall (flagged at its lowest load).
  const std::vector<ResultLine> only_past = {wall_lines(false)[4]};
  d = make_report_data(ctx, only_past, kTierAxes);
  rec = recommend(d);
  ASSERT_TRUE(rec.found);
  EXPECT_TRUE(rec.past_wall);  // the lowest load flagged: past the wall from its lowest load
  EXPECT_NE(rec.text.find("No point meeting the SLO lies within its configuration's KV wall."), std::string::npos)
      << rec.text;
  EXPECT_NE(
      between(engramsim::report::render_html(d), "id=\"verdict-headline\">", "</p>").find("only past its KV wall"),
      std::string::npos);
}

// The case, constructed: at a target of 100 tok/s/user the old grid left dram "out of range"
// (every point faster than the target) and crowned ssd, though dram's own point at 128.8 tok/s/user
// serves more tokens per dollar than ssd reads at 100. Such a point now counts, at least.
TEST(ReportData, NeverCrownsAConfigurationAnotherSimulatedPointBeatsOnBothAxes) {
  const std::vector<ResultLine> lines = {
      ok_line(0, "ssd", 16, 140, 900, 2.0), ok_line(1, "ssd", 64, 80, 1300, 2.0),         // ~1167 at 100
      ok_line(2, "dram", 16, 180, 1000, 2.0), ok_line(3, "dram", 64, 128.8, 1400, 2.0)};  // faster everywhere
  ReportContext ctx;
  ctx.target_interactivity = 100.0;
  const auto d = make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"});
  const auto rec = recommend(d);
  ASSERT_TRUE(rec.found);
  EXPECT_EQ(rec.config, "engram_tier=dram");
  EXPECT_DOUBLE_EQ(rec.tokens_per_dollar, 1400 * 3600 / 2.0);
  EXPECT_TRUE(rec.out_of_range.empty());
  EXPECT_NE(rec.text.find("read at its best point: at least that"), std::string::npos) << rec.text;
  // The property, over every pair: no other configuration has a point better on both axes than the
  // winner's reading.
  for (const auto& p : d.points)
    if (p.config != rec.config)
      EXPECT_FALSE(p.metrics.interactivity >= rec.interactivity && p.tokens_per_dollar > rec.tokens_per_dollar)
          << p.config << " point " << p.index;
}

// The winner's interval: its validation error plus the interpolation error of its reading, and a
// tie when another's interval overlaps it.
TEST(ReportData, WinnerCarriesAnIntervalAndOverlapsAreTies) {
  const std::vector<ResultLine> lines = {ok_line(0, "hbm", 1, 200, 500, 2.0),   ok_line(1, "hbm", 4, 150, 1000, 2.0),
                                         ok_line(2, "hbm", 16, 50, 2000, 2.0),  ok_line(3, "dram", 1, 200, 600, 2.0),
                                         ok_line(4, "dram", 4, 150, 1500, 2.0), ok_line(5, "dram", 16, 50, 2200, 2.0)};
  ReportContext ctx;
  ctx.target_interactivity = 100.0;
  ctx.validation.serving_throughput = 0.05;
  const auto d = make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"});
  const auto cmp = compare_at(d, 100.0);
  ASSERT_EQ(cmp[0].config, "engram_tier=dram");
  EXPECT_GT(cmp[0].interpolation_error, 0.0);  // three points: Steffen leaves the straight line
  const auto rec = recommend(d);
  const double half = 0.05 + cmp[0].interpolation_error;
  EXPECT_NEAR(rec.low, rec.tokens_per_dollar * (1.0 - half), 1e-6);
  EXPECT_NEAR(rec.high, rec.tokens_per_dollar * (1.0 + half), 1e-6);
  EXPECT_NE(rec.text.find("With its validation error and the interpolation between measured points"), std::string::npos)
      << rec.text;
  const bool overlap = rec.low <= *cmp[1].tokens_per_dollar * (1.0 + 0.05 + cmp[1].interpolation_error);
  EXPECT_EQ(!rec.tied.empty(), overlap);
}

// The confidence the verdict and the report's first line quote is the winner's own: the cases on
// its GPU with its engine, their mean error, lean and known misses; none there is said so.
TEST(ReportData, ConfidenceIsTheWinnersOwnGpuAndEngineCases) {
  auto on = [](ResultLine l, const char* gpu, const char* engine) {
    l.result["extra"] = {{"gpu", gpu}, {"engine", engine}};
    return l;
  };
  const std::vector<ResultLine> lines = {on(ok_line(0, "hbm", 1, 100, 1000, 2.0), "h200-sxm", "sglang"),
                                         on(ok_line(1, "hbm", 8, 50, 2000, 2.0), "h200-sxm", "sglang"),
                                         on(ok_line(2, "dram", 1, 100, 3000, 2.0), "b200", "vllm"),
                                         on(ok_line(3, "dram", 8, 50, 6000, 2.0), "b200", "vllm")};
  ReportContext ctx;
  ctx.target_interactivity = 75.0;
  ctx.validation.by_gpu = {{"b200", 0.097}, {"h200-sxm", 0.123}};
  ctx.validation.by_engine = {{"vllm", 0.032}, {"sglang", 0.077}};
  ctx.validation.by_gpu_engine["b200/vllm"] = {4, 0.07, -0.045, {"semianalysis-ssd"}};
  ctx.validation.by_gpu_engine["h200-sxm/sglang"] = {9, 0.11, 0.02, {}};
  const auto d = make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"});
  EXPECT_DOUBLE_EQ(*config_error(d, "engram_tier=dram"), 0.07);  // its own cases, not the GPU's 9.7 %
  const auto rec = recommend(d);
  ASSERT_EQ(rec.config, "engram_tier=dram");
  const std::string own =
      "its own validation: 4 cases on B200 with vllm, mean error 7.0 % (MAPE, not a bound), "
      "predicting 4.5 % slower than measured on average; known miss there: semianalysis-ssd";
  EXPECT_NE(rec.text.find("Confidence: " + own), std::string::npos) << rec.text;
  EXPECT_EQ(rec.text.find("11.0 %"), std::string::npos) << rec.text;  // not the runner-up's
  const std::string headline = between(engramsim::report::render_html(d), "id=\"verdict-headline\">", "</p>");
  EXPECT_NE(headline.find(own), std::string::npos) << headline;
  // No case on the winner's GPU with its engine: said, with the GPU's and the engine's apart.
  ctx.validation.by_gpu_engine.erase("b200/vllm");
  const auto d2 = make_report_data(ctx, lines, {"deployment.engram_tier", "workload.concurrency"});
  EXPECT_NE(own_validation_text(d2, "engram_tier=dram")
                .find("no validation case on B200 with vllm; B200 with other engines: mean error 9.7 %; vllm on "
                      "other GPUs: mean error 3.2 % (MAPE, not a bound)"),
            std::string::npos)
      << own_validation_text(d2, "engram_tier=dram");
  // The context keeps the groups through its JSON.
  EXPECT_EQ(ReportContext::from_json(ctx.to_json()).validation.by_gpu_engine.at("h200-sxm/sglang").cases, 9);
}
