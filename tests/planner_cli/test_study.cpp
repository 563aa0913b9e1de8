// The study layer (study/), as a library: loading a planner scenario (overrides,
// report and plan blocks), evaluating points (pruning with the footprint's reason, metrics that
// add up), the report context and its provenance, and fleet sizing from finished plan results.
#include <gtest/gtest.h>

#include <map>

#include <cmath>
#include <numeric>

#include "cli_test_util.hpp"
#include "core/config_node.hpp"
#include "study/planner_scenario.hpp"
#include "study/provenance.hpp"
#include "study/rate_planner.hpp"
#include "study/scenario_evaluator.hpp"
#include "tests/support/docs_table.hpp"

namespace engramsim::planner {

using namespace engramsim::study;
namespace {

using cli_testing::data_file;
using cli_testing::TempDir;
using cli_testing::write_file;

TEST(PlannerScenario, AppliesSetsThenTakesOutReportAndPlan) {
  const PlannerScenario sc = load_planner_scenario(
      data_file("tiny_plan.yaml"), {"sweep.plan.target.requests_per_s=7", "sweep.axes.0.values=[1, 2, 4]"});
  ASSERT_TRUE(sc.plan.has_value());
  EXPECT_DOUBLE_EQ(sc.plan->target.requests_per_s, 7.0);
  EXPECT_DOUBLE_EQ(sc.plan->target.tokens_per_s, 0.0);
  EXPECT_EQ(sc.plan->probe_requests, 60);
  EXPECT_DOUBLE_EQ(sc.plan->min_probe_span.seconds(), 5.0);
  EXPECT_DOUBLE_EQ(sc.plan->search.lo, 1.0);
  EXPECT_EQ(sc.plan->search.max_probes, 16);
  EXPECT_EQ(sc.report.title, "tiny plan");
  ASSERT_EQ(sc.sweep.points.size(), 3u);
  EXPECT_EQ(sc.sweep.points[2].label(), "deployment.tp=4");
  EXPECT_FALSE(static_cast<bool>(static_cast<const YAML::Node&>(sc.sweep.base)["sweep"]));

  const PlannerScenario plain = load_planner_scenario(data_file("tiny_sweep.yaml"), {});
  EXPECT_FALSE(plain.plan.has_value());
  ASSERT_TRUE(plain.report.target_interactivity.has_value());
  EXPECT_DOUBLE_EQ(*plain.report.target_interactivity, 200.0);
  EXPECT_EQ(plain.sweep.points.size(), 6u);

  // A curve axis the file names must be swept.
  TempDir dir;
  std::string text = cli_testing::read_file(data_file("tiny_sweep.yaml"));
  text.replace(text.find("  report:\n"), 10, "  report:\n    curve_axis: workload.concurrency\n");
  write_file(dir.path() / "axis.yaml", text);
  EXPECT_NO_THROW(engramsim::study::load_planner_scenario((dir.path() / "axis.yaml").string(), {}));
  EXPECT_THROW(engramsim::study::load_planner_scenario((dir.path() / "axis.yaml").string(),
                                                       {"sweep.report.curve_axis=deployment.bogus"}),
               ConfigError);
}

TEST(PlannerScenario, StrictPlanAndReportBlocks) {
  auto plan = [](const std::string& text) {
    return engramsim::study::parse_plan_settings(ConfigNode::load_string(text, "p.yaml"));
  };
  EXPECT_NO_THROW(plan("target: {tokens_per_s: 1000}"));
  EXPECT_THROW(plan("target: {requests_per_s: 1, tokens_per_s: 5}"), ConfigError);   // both
  EXPECT_THROW(plan("target: {}"), ConfigError);                                     // neither
  EXPECT_THROW(plan("target: {requests_per_s: 0}"), ConfigError);                    // not positive
  EXPECT_THROW(plan("target: {requests_per_s: 1}\nprobe_request: 3"), ConfigError);  // typo
  EXPECT_THROW(plan("target: {requests_per_s: 1}\ntiers: [cheap]"), ConfigError);
  EXPECT_THROW(plan("target: {requests_per_s: 1}\nsearch: {lo_per_s: 2, hi_per_s: 2}"), ConfigError);
  EXPECT_THROW(plan("target: {requests_per_s: 1}\nmax_queue_p99: 5"), ConfigError);  // a time needs a unit
  try {
    plan("target: {requests_per_s: 1}\nsearch: {lo_per_s: 1, hi_per_s: 2, max_per_s: 1.5}");
    FAIL() << "max_per_s below hi_per_s was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("max_per_s"), std::string::npos) << e.what();
  }
  EXPECT_THROW(engramsim::study::parse_report_settings(ConfigNode::load_string("titel: x", "r.yaml")), ConfigError);
  EXPECT_THROW(engramsim::study::parse_report_settings(ConfigNode::load_string("target_interactivity: -1", "r.yaml")),
               ConfigError);
}

TEST(PlannerScenario, DocsTablesAreTheSchemas) {
  test::check_docs_table("docs/planning.md", "### Report keys (`sweep.report:`)",
                         engramsim::study::report_schema().markdown());
  test::check_docs_table("docs/planning.md", "### Plan keys (`sweep.plan:`)",
                         engramsim::study::plan_schema().markdown());
}

TEST(PlannerScenario, PlanDefaultsFollowTheSearchStart) {
  const PlanSettings p = engramsim::study::parse_plan_settings(
      ConfigNode::load_string("target: {requests_per_s: 1}\nsearch: {lo_per_s: 4}", "p.yaml"));
  EXPECT_DOUBLE_EQ(p.search.hi, 8.0);  // twice lo_per_s when hi_per_s is left out
  EXPECT_EQ(p.probe_requests, PlanSettings().probe_requests);
  const PlanSettings q =
      engramsim::study::parse_plan_settings(ConfigNode::load_string("target: {tokens_per_s: 10}", "p.yaml"));
  EXPECT_DOUBLE_EQ(q.search.hi, RateSearchOptions().hi);  // no search block: the defaults as declared
  EXPECT_DOUBLE_EQ(q.target.tokens_per_s, 10.0);
  EXPECT_DOUBLE_EQ(q.target.requests_per_s, 0.0);
}

TEST(PlannerScenario, EvaluationKeyFollowsTheSettingsThatChangeResults) {
  PlanSettings a;
  PlanSettings b = a;
  EXPECT_EQ(a.evaluation_key(), b.evaluation_key());
  b.probe_requests += 1;
  EXPECT_NE(a.evaluation_key(), b.evaluation_key());
  b = a;
  b.search.rel_tolerance *= 2;
  EXPECT_NE(a.evaluation_key(), b.evaluation_key());
  b = a;
  b.min_probe_span = Time::from_seconds(1.0);
  EXPECT_NE(a.evaluation_key(), b.evaluation_key());
  b = a;
  b.target.requests_per_s = 99;  // sizing only: the candidates' results stay valid
  b.tiers = {"rental"};
  EXPECT_EQ(a.evaluation_key(), b.evaluation_key());

  const PlannerScenario sc = load_planner_scenario(data_file("tiny_sweep.yaml"), {});
  EXPECT_NE(engramsim::study::results_fingerprint(sc.sweep, "x"), engramsim::study::results_fingerprint(sc.sweep, "y"));
  const PlannerScenario edited = load_planner_scenario(data_file("tiny_sweep.yaml"), {"seed=6"});
  EXPECT_NE(engramsim::study::results_fingerprint(sc.sweep, "x"),
            engramsim::study::results_fingerprint(edited.sweep, "x"));
}

TEST(Provenance, ReadsTaggedLinesWithTheirKeyPath) {
  TempDir t;
  write_file(t / "p.yaml",
             "name: x\n"
             "hbm_usable: \"270GiB\"     # [S] facts sheet\n"
             "dense_flops:\n"
             "  fp8: \"4.5PFLOPS\"       # [E] a guess\n"
             "prices:\n"
             "  gpu_hour:\n"
             "    rental: \"3USD/h\"     # [D] 1.2 x B200\n"
             "  dram_capital: \"5USD/GB\"\n"
             "plain: 3\n");
  const auto all = engramsim::study::tagged_figures((t / "p.yaml").string(), "g");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].figure, "g hbm_usable");
  EXPECT_EQ(all[0].value, "270GiB");
  EXPECT_EQ(all[0].kind, "datasheet");
  EXPECT_NE(all[0].source.find("facts sheet"), std::string::npos);
  EXPECT_EQ(all[1].figure, "g dense_flops.fp8");
  EXPECT_EQ(all[1].kind, "assumed");
  EXPECT_EQ(all[2].figure, "g prices.gpu_hour.rental");
  EXPECT_EQ(all[2].kind, "derived");
  const auto some = engramsim::study::tagged_figures((t / "p.yaml").string(), "g", {"prices."});
  ASSERT_EQ(some.size(), 1u);
  EXPECT_EQ(some[0].figure, "g prices.gpu_hour.rental");
  EXPECT_TRUE(engramsim::study::tagged_figures((t / "missing.yaml").string(), "g").empty());
}

class TinySweep : public ::testing::Test {
 protected:
  TinySweep()
      : sc_(engramsim::study::load_planner_scenario(data_file("tiny_sweep.yaml"), {})), ev_(sc_.file, sc_.sweep.base) {}
  PlannerScenario sc_;
  ScenarioEvaluator ev_;
};

TEST_F(TinySweep, FootprintAddsUpToUsableHbmAndPricesIncludeEngramCapacity) {
  // Points: (b300 tp4 hbm, b300 tp2 dram, h100 tp2 dram) x concurrency (2, 8).
  const Outcome hbm = ev_.evaluate(sc_.sweep.points[0]);
  const Outcome dram = ev_.evaluate(sc_.sweep.points[3]);
  ASSERT_EQ(hbm.status, PointStatus::ok);
  ASSERT_EQ(dram.status, PointStatus::ok);
  for (const Outcome* o : {&hbm, &dram}) {
    const PointMetrics m = metrics_from_json(o->result);
    double sum = 0.0;
    for (const auto& t : m.hbm_footprint) sum += t.gib;
    EXPECT_NEAR(sum, 270.0, 1e-6) << "B300 usable HBM";
    EXPECT_GT(m.throughput_per_gpu, m.output_throughput_per_gpu);
    EXPECT_GT(m.output_throughput_per_gpu, 0.0);
    EXPECT_GT(m.interactivity, 0.0);
    EXPECT_LE(m.ttft_ms.p50, m.ttft_ms.p99);
    EXPECT_FALSE(m.ttft_samples_ms.empty());
    EXPECT_LE(m.ttft_samples_ms.size(), 101u);
    EXPECT_TRUE(std::is_sorted(m.tpot_samples_ms.begin(), m.tpot_samples_ms.end()));
    EXPECT_EQ(m.extra.at("completed"), m.extra.at("num_requests"));
    EXPECT_GT(m.gpu_hour_usd, 0.0);
  }
  const PointMetrics h = metrics_from_json(hbm.result);
  const PointMetrics d = metrics_from_json(dram.result);
  EXPECT_EQ(h.gpus, 4);
  EXPECT_EQ(d.gpus, 2);
  EXPECT_DOUBLE_EQ(h.concurrency, 2.0);
  EXPECT_DOUBLE_EQ(d.concurrency, 8.0);
  EXPECT_EQ(h.engram_tier, "hbm");
  EXPECT_EQ(d.engram_tier, "dram");
  auto term = [](const PointMetrics& m, const std::string& name) {
    for (const auto& t : m.hbm_footprint)
      if (t.term == name) return t.gib;
    return -1.0;
  };
  EXPECT_GT(term(h, "engram"), 40.0);  // ~189 GiB over 4 GPUs
  EXPECT_DOUBLE_EQ(term(d, "engram"), 0.0);
  EXPECT_GT(term(d, "weights"), term(h, "weights"));  // TP2 holds twice the sharded weights of TP4
  EXPECT_GT(term(d, "kv_pool"), 0.0);
  EXPECT_NEAR(term(h, "headroom"), 27.0, 1e-6);  // 10 % of 270 GiB above the utilisation target
  // Tables pinned in host DRAM cost capital; in HBM they cost nothing extra.
  EXPECT_DOUBLE_EQ(h.cost_per_gpu_hour_usd, h.gpu_hour_usd);
  EXPECT_GT(d.cost_per_gpu_hour_usd, d.gpu_hour_usd);
  // Deterministic: the same point twice gives the same result object.
  EXPECT_EQ(ev_.evaluate(sc_.sweep.points[0]).result.dump(), hbm.result.dump());
}

TEST_F(TinySweep, InfeasiblePointIsPrunedWithTheFootprintsReason) {
  const Outcome o = ev_.evaluate(sc_.sweep.points[4]);
  EXPECT_EQ(o.status, PointStatus::infeasible);
  EXPECT_NE(o.reason.find("hgx-h100"), std::string::npos) << o.reason;
  EXPECT_NE(o.reason.find("HBM over budget"), std::string::npos) << o.reason;
}

// validate() keeps what it parsed: a point of the grid is evaluated from those parameters, not parsed
// again (the model card, a file beside the scenario, is gone by then), while a point it never saw
// is parsed when evaluated.
TEST(ScenarioEvaluator, EvaluatesTheParametersValidateParsed) {
  TempDir dir;
  std::string text = cli_testing::read_file(data_file("tiny_sweep.yaml"));
  text.replace(text.find("model: deepseek-v4.1-flash"), 26, "model: ./card.yaml");
  write_file(dir / "card.yaml",
             cli_testing::read_file(engramsim::test::source_root() + "/models/cards/deepseek-v4.1-flash.yaml"));
  write_file(dir / "s.yaml", text);
  const PlannerScenario sc = engramsim::study::load_planner_scenario((dir / "s.yaml").string(), {});
  ScenarioEvaluator ev(sc.file, sc.sweep.base);
  const std::vector<SweepPoint> grid(sc.sweep.points.begin(), sc.sweep.points.begin() + 1);
  ev.validate(grid);
  std::filesystem::remove(dir / "card.yaml");
  EXPECT_EQ(ev.evaluate(sc.sweep.points[0]).status, PointStatus::ok);
  EXPECT_THROW(ev.evaluate(sc.sweep.points[1]), ConfigError);
}

TEST_F(TinySweep, ValidateNamesTheBadPointAndCollectsInputs) {
  const SweepInputs in = ev_.validate(sc_.sweep.points);
  EXPECT_EQ(in.node_names, (std::vector<std::string>{"hgx-b300", "hgx-h100"}));
  EXPECT_EQ(in.gpu_names, (std::vector<std::string>{"b300", "h100-sxm"}));
  EXPECT_EQ(in.price_tier, "hyperscaler");
  const PlannerScenario bad = load_planner_scenario(data_file("tiny_sweep.yaml"), {"sweep.axes.1.values=[2, 0]"});
  ScenarioEvaluator ev(bad.file, bad.sweep.base);
  try {
    ev.validate(bad.sweep.points);
    FAIL() << "concurrency 0 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sweep point 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("concurrency"), std::string::npos) << e.what();
  }
}

TEST_F(TinySweep, ReportContextCarriesSloAndProvenance) {
  const ReportContext c = engramsim::study::make_report_context(sc_, ev_.validate(sc_.sweep.points));
  EXPECT_EQ(c.title, "tiny sweep");
  EXPECT_EQ(c.model_card, "deepseek-v4.1-flash");
  ASSERT_TRUE(c.slo.max_ttft_p99_ms && c.slo.max_tpot_p99_ms);
  EXPECT_DOUBLE_EQ(*c.slo.max_ttft_p99_ms, 10000.0);
  EXPECT_DOUBLE_EQ(*c.slo.max_tpot_p99_ms, 50.0);
  EXPECT_FALSE(c.slo.min_interactivity.has_value());
  bool hbm = false, price = false, row_bytes = false;
  for (const auto& a : c.assumptions) {
    if (a.figure == "b300 hbm_usable") {
      hbm = true;
      EXPECT_EQ(a.kind, "datasheet");
      EXPECT_NE(a.source.find("hardware/gpus/b300.yaml"), std::string::npos) << a.source;
    }
    price = price || a.figure == "hgx-h100 prices.gpu_hour.hyperscaler";
    row_bytes = row_bytes || a.figure == "deepseek-v4.1-flash engram.row_bytes";
  }
  EXPECT_TRUE(hbm);
  EXPECT_TRUE(price);
  EXPECT_TRUE(row_bytes);
}

// The report states the validation accuracy of every GPU and engine the sweep runs, from the
// recorded validation set, and flags the ones no case covers (B300 has only a ratio case).
TEST_F(TinySweep, ReportContextStatesValidationAccuracyPerGpuAndEngine) {
  const ReportContext c = engramsim::study::make_report_context(sc_, ev_.validate(sc_.sweep.points));
  std::map<std::string, std::string> acc;
  for (const auto& a : c.assumptions)
    if (a.figure.rfind("validation accuracy, ", 0) == 0) acc[a.figure] = a.value;
  ASSERT_EQ(acc.count("validation accuracy, GPU h100-sxm"), 1u);
  EXPECT_EQ(acc["validation accuracy, GPU h100-sxm"].rfind("MAPE ", 0), 0u) << acc["validation accuracy, GPU h100-sxm"];
  ASSERT_EQ(acc.count("validation accuracy, engine vllm"), 1u);
  EXPECT_EQ(acc["validation accuracy, engine vllm"].rfind("MAPE ", 0), 0u);
  ASSERT_EQ(acc.count("validation accuracy, GPU b300"), 1u);
  EXPECT_EQ(acc["validation accuracy, GPU b300"].rfind("no validation case", 0), 0u);
  bool flagged = false;
  for (const auto& n : c.notes)
    flagged = flagged || n.find("No case of the validation set runs on GPU b300") != std::string::npos;
  EXPECT_TRUE(flagged);
}

}  // namespace
}  // namespace engramsim::planner
