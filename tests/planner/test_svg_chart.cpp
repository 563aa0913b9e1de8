#include <gtest/gtest.h>

#include <set>

#include <cmath>
#include <set>

#include "report/svg_chart.hpp"

using namespace engramsim::report;

namespace {
std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(SvgChart, NiceTicks) {
  EXPECT_EQ(engramsim::report::nice_ticks(0, 97), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(engramsim::report::nice_ticks(0.1, 0.95, 5),
            (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  const auto t = engramsim::report::nice_ticks(5, 5);  // degenerate range widens
  EXPECT_LE(t.front(), 4.5);
  EXPECT_GE(t.back(), 5.5);
  EXPECT_EQ(engramsim::report::log_ticks(3, 300), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(engramsim::report::log_ticks(2, 50), (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
}

TEST(SvgChart, TickLabelsAndEscaping) {
  EXPECT_EQ(engramsim::report::format_tick(1500), "1.5k");
  EXPECT_EQ(engramsim::report::format_tick(2e6), "2M");
  EXPECT_EQ(engramsim::report::format_tick(121e6), "121M");
  EXPECT_EQ(engramsim::report::format_tick(0.25), "0.25");
  EXPECT_EQ(engramsim::report::format_tick(0), "0");
  EXPECT_EQ(engramsim::report::format_tick(-3000), "-3k");
  EXPECT_EQ(engramsim::report::xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST(SvgChart, XYChartDrawsSeriesMarkersLegendAndLabels) {
  engramsim::report::XYChart c("pareto", "Throughput <vs> interactivity", AxisSpec{"Interactivity (tok/s/user)"},
                               engramsim::report::AxisSpec{"Throughput (tok/s/GPU)"});
  c.add(engramsim::report::Series{"tp=2 & dram", {{10, 100}, {20, 80}, {30, 40}}, true, true, false, ""});
  c.add(engramsim::report::Series{"frontier", {{10, 100}, {30, 40}}, true, false, true, "#000000"});
  const std::string svg = c.svg();
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"pareto\"", 0), 0u);
  EXPECT_EQ(count(svg, "class=\"series-line\""), 2u);
  EXPECT_EQ(count(svg, "class=\"marker\""), 3u);
  EXPECT_NE(svg.find("Interactivity (tok/s/user)"), std::string::npos);
  EXPECT_NE(svg.find("Throughput (tok/s/GPU)"), std::string::npos);
  EXPECT_NE(svg.find("tp=2 &amp; dram"), std::string::npos);
  EXPECT_NE(svg.find("Throughput &lt;vs&gt; interactivity"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_EQ(svg.find("no data"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
}

TEST(SvgChart, LogAxisDropsPointsItCannotShow) {
  engramsim::report::XYChart c("cdf", "t", AxisSpec{"x", true}, engramsim::report::AxisSpec{"y"});
  c.add(engramsim::report::Series{"s", {{0, 1}, {-1, 2}, {1, 3}, {100, 4}, {NAN, 5}}, true, true, false, ""});
  EXPECT_EQ(c.drawable_points(), 2u);
  const std::string svg = c.svg();
  EXPECT_EQ(count(svg, "class=\"marker\""), 2u);
  EXPECT_NE(svg.find("(log scale)"), std::string::npos);
  engramsim::report::XYChart empty("e", "t", AxisSpec{"x"}, engramsim::report::AxisSpec{"y"});
  EXPECT_NE(empty.svg().find("no data"), std::string::npos);
}

TEST(SvgChart, StackedBarsShareColoursByTermAndDrawReferences) {
  engramsim::report::StackedBarChart c("hbm", "HBM per GPU", "GiB");
  c.add_bar("tp=4 hbm", {{"weights", 90}, {"engram", 47}, {"kv_pool", 120}});
  c.add_bar("tp=2 dram", {{"weights", 180}, {"engram", 0}, {"kv_pool", 70}});
  c.add_reference(265, "usable HBM");
  const std::string svg = c.svg();
  EXPECT_EQ(count(svg, "class=\"bar\""), 5u);  // the zero-height engram segment is not drawn
  EXPECT_EQ(count(svg, "class=\"reference\""), 1u);
  EXPECT_NE(svg.find("usable HBM"), std::string::npos);
  // "weights" has the first palette colour in both bars.
  EXPECT_EQ(count(svg, "fill=\"" + engramsim::report::palette_color(0) + "\""), 2u);
  EXPECT_EQ(c.bar_count(), 2u);
}

TEST(SvgChart, MarkerShapesDashesAndABandWithLegendSamples) {
  engramsim::report::XYChart c("x", "t", AxisSpec{"x"}, engramsim::report::AxisSpec{"y"});
  engramsim::report::Series a{"a",   {{1, 10}, {2, 20}}, true, true, false, "#112233", {"a one", "a two"},
                              "2 3", MarkerShape::square};
  engramsim::report::Series b{"b", {{1, 5}, {2, 8}}, true, true, false, "#445566", {}, "", MarkerShape::triangle};
  c.add(a);
  c.add(b);
  c.add_band(engramsim::report::Band{"+/-10 %", {1, 2}, {9, 18}, {11, 22}, "#112233"});
  const std::string svg = c.svg();
  EXPECT_EQ(count(svg, "<rect class=\"marker\""), 2u);
  EXPECT_EQ(count(svg, "<polygon class=\"marker\""), 2u);
  EXPECT_NE(svg.find("<title>a two</title></rect>"), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#112233\" stroke-width=\"2\" stroke-dasharray=\"2 3\""), std::string::npos);
  EXPECT_NE(svg.find("data-color=\"#445566\""), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"uncertainty-band\""), 1u);
  EXPECT_EQ(count(svg, "class=\"legend-marker\""), 2u);
  EXPECT_EQ(count(svg, "class=\"legend-entry\""), 3u);
  // The band's upper edge (22) is inside the y axis.
  EXPECT_NE(svg.find(">25</text>"), std::string::npos);
}

TEST(SvgChart, GeneratedColoursNeverRepeat) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < 200; ++i) EXPECT_TRUE(seen.insert(engramsim::report::palette_color(i)).second) << i;
  EXPECT_EQ(engramsim::report::hsl_color(0, 1, 0.5), "#ff0000");
  EXPECT_EQ(engramsim::report::hsl_color(240, 1, 0.5), "#0000ff");
}
