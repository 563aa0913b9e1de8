#include <gtest/gtest.h>

#include <set>

#include "planner_test_util.hpp"
#include "report/report_style.hpp"
#include "report_fixture.hpp"

using namespace engramsim::planner;
using namespace engramsim::report;
using namespace engramsim::planner::testing;

TEST(ReportStyle, GpuNamesAsABuyerWritesThem) {
  EXPECT_EQ(gpu_display_name("hgx-b200"), "B200");
  EXPECT_EQ(gpu_display_name("dgx-a100"), "A100");
  EXPECT_EQ(gpu_display_name("gb200-nvl72"), "GB200 NVL72");
  EXPECT_EQ(gpu_display_name("mi355x-8"), "MI355X");
  EXPECT_EQ(gpu_display_name("a100-80gb"), "A100 80GB");
  EXPECT_EQ(gpu_display_name("b300"), "B300");
}

TEST(ReportStyle, HumanConfigurationNamesFromTheAssignments) {
  const std::vector<std::string> axes = {"node", "deployment.tp", "deployment.engram.tier", "deployment.engram.fetch",
                                         "workload.concurrency"};
  const nlohmann::json a = {{"node", "hgx-b200"},
                            {"deployment.tp", 2},
                            {"deployment.engram.tier", "dram"},
                            {"deployment.engram.fetch", "zero_copy"},
                            {"workload.concurrency", 8}};
  EXPECT_EQ(engramsim::report::human_config_name(a, axes, "workload.concurrency"),
            "B200 \u00b7 TP2 \u00b7 Engram in DRAM \u00b7 zero-copy fetch");
  // Reading order does not follow the axes' order: GPU, layout, tier, then the rest.
  const nlohmann::json b = {
      {"deployment.engram_tier", "hbm"}, {"deployment.scheduler.max_num_seqs", 256}, {"deployment.tp", 4}};
  EXPECT_EQ(
      engramsim::report::human_config_name(
          b, {"deployment.engram_tier", "deployment.scheduler.max_num_seqs", "deployment.tp"}, "workload.concurrency"),
      "TP4 \u00b7 Engram in HBM \u00b7 max_num_seqs=256");
  EXPECT_EQ(engramsim::report::human_config_name(
                {{"deployment.engram.tier", "ssd"}, {"deployment.engram.fetch", "staged"}}, {}, "x"),
            "Engram on SSD \u00b7 staged fetch");
  EXPECT_EQ(engramsim::report::human_config_name({{"workload.concurrency", 1}}, {"workload.concurrency"},
                                                 "workload.concurrency"),
            "base");
}

TEST(ReportStyle, DisplayNamesStayUniqueAndReplaceWholeLabelsInProse) {
  ResultLine a, b;
  a.index = 0;
  a.id = "a";
  a.assignments = {{"x.node", "hgx-b200"}, {"workload.concurrency", 1}};
  b.index = 1;
  b.id = "b";
  b.assignments = {{"x.node", "dgx-b200"}, {"workload.concurrency", 1}};
  const auto d = make_report_data(ReportContext{}, {a, b}, {"x.node", "workload.concurrency"});
  const auto names = engramsim::report::display_names(d);
  // Both would read "B200": they keep their labels.
  EXPECT_EQ(names.at("node=hgx-b200"), "node=hgx-b200");
  EXPECT_EQ(names.at("node=dgx-b200"), "node=dgx-b200");

  const std::map<std::string, std::string> m = {{"tp=2 tier=dram", "TP2 \u00b7 DRAM"},
                                                {"tp=2 tier=dram fetch=staged", "TP2 \u00b7 DRAM \u00b7 staged"}};
  EXPECT_EQ(engramsim::report::with_display_names("tp=2 tier=dram fetch=staged beats tp=2 tier=dram.", m),
            "TP2 \u00b7 DRAM \u00b7 staged beats TP2 \u00b7 DRAM.");
  EXPECT_EQ(engramsim::report::with_display_names("xtp=2 tier=dram, tp=2 tier=dramx", m),
            "xtp=2 tier=dram, tp=2 tier=dramx");
}

TEST(ReportStyle, ColourByGpuDashByLayoutMarkerByTierNoColourRepeats) {
  TempDir t;
  make_analytic_results(t.path(), 2, kWideScenario);
  const auto d = load_results(t.path());
  const auto styles = engramsim::report::series_styles(d);
  ASSERT_EQ(styles.size(), 24u);
  std::set<std::string> colours;
  for (const auto& [config, s] : styles) colours.insert(s.color);
  EXPECT_EQ(colours.size(), styles.size()) << "a colour repeats";
  const auto& b300_tp4_hbm = styles.at("node=hgx-b300 tp=4 engram_tier=hbm variant=0");
  const auto& b300_tp2_dram = styles.at("node=hgx-b300 tp=2 engram_tier=dram variant=1");
  const auto& h200_tp4_dram = styles.at("node=hgx-h200 tp=4 engram_tier=dram variant=0");
  EXPECT_EQ(b300_tp4_hbm.marker, MarkerShape::circle);
  EXPECT_EQ(b300_tp2_dram.marker, MarkerShape::square);
  EXPECT_NE(b300_tp4_hbm.dash, b300_tp2_dram.dash);
  EXPECT_EQ(b300_tp4_hbm.dash, h200_tp4_dram.dash);
  // The first GPU's family is blue, the third's green: the blue channel leads in one, green in the other.
  const auto channel = [](const std::string& hex, int i) { return std::stoi(hex.substr(1 + 2 * i, 2), nullptr, 16); };
  EXPECT_GT(channel(b300_tp4_hbm.color, 2), channel(b300_tp4_hbm.color, 0));
  EXPECT_GT(channel(h200_tp4_dram.color, 1), channel(h200_tp4_dram.color, 0));
  EXPECT_GT(channel(h200_tp4_dram.color, 1), channel(h200_tp4_dram.color, 2));
  // The human names carry the GPU.
  EXPECT_EQ(engramsim::report::display_names(d).at("node=hgx-h200 tp=4 engram_tier=dram variant=0"),
            "H200 \u00b7 TP4 \u00b7 Engram in DRAM \u00b7 variant=0");
}

TEST(ReportStyle, PlainNumbersHaveNoExponent) {
  EXPECT_EQ(plain_number(682934.2), "682934");
  EXPECT_EQ(plain_number(0.0123456), "0.01235");
  EXPECT_EQ(plain_number(125.0), "125");
  EXPECT_EQ(plain_number(1.5e-7), "0.00000015");
  EXPECT_EQ(plain_number(24184158.0, 3), "24184158");
  EXPECT_EQ(plain_number(0.0), "0");
  EXPECT_EQ(plain_number(-2.5), "-2.5");
}

// The layout as engines name it, from what each configuration's results ran: plain TP, TP with
// expert parallelism, data-parallel attention with EP.
TEST(ReportStyle, LayoutNamedAsEnginesNameIt) {
  auto line = [](std::size_t i, int tp, int ep, const char* attention) {
    ResultLine l;
    l.index = i;
    l.id = "p" + std::to_string(i);
    l.assignments = {{"deployment.tp", tp}, {"deployment.ep", ep}, {"workload.concurrency", 1}};
    PointMetrics m;
    m.interactivity = 100;
    m.throughput_per_gpu = 1000;
    m.extra = {{"tp", tp}, {"ep", ep}, {"attention", attention}};
    l.result = to_json(m);
    return l;
  };
  const auto d =
      make_report_data(ReportContext{}, {line(0, 4, 1, "tensor"), line(1, 4, 4, "tensor"), line(2, 8, 8, "data")},
                       {"deployment.tp", "deployment.ep", "workload.concurrency"});
  const auto names = engramsim::report::display_names(d);
  EXPECT_EQ(names.at("tp=4 ep=1").rfind("TP4", 0), 0u) << names.at("tp=4 ep=1");
  EXPECT_EQ(names.at("tp=4 ep=4").rfind("TP4 + EP4", 0), 0u) << names.at("tp=4 ep=4");
  EXPECT_EQ(names.at("tp=8 ep=8").rfind("DP8 attention + EP8", 0), 0u) << names.at("tp=8 ep=8");
}
