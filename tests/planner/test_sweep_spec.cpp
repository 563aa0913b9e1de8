#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <thread>

#include "planner/sweep_spec.hpp"
#include "tests/support/docs_table.hpp"

using namespace engramsim;
using namespace engramsim::planner;

namespace {

const char* kScenario = R"(name: what-if
deployment:
  tp: 4
  ep: 1
  engram_tier: hbm
  scheduler: {max_num_seqs: 256}
workload:
  concurrency: 1
  phases: [{rate: 1}, {rate: 2}]
sweep:
  axes:
    - {key: deployment.tp, values: [2, 4]}
    - {key: deployment.engram_tier, values: [hbm, dram, ssd]}
    - {key: workload.concurrency, values: [1, 2, 4, 8]}
)";

std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

SweepSpec spec_of(const std::string& text) { return SweepSpec::from_scenario(ConfigNode::load_string(text, "s.yaml")); }

}  // namespace

TEST(SweepSpec, CartesianProductInFileOrderLastAxisFastest) {
  const auto spec = spec_of(kScenario);
  ASSERT_EQ(spec.point_count(), 24u);
  const auto pts = expand_sweep(spec);
  ASSERT_EQ(pts.size(), 24u);
  EXPECT_EQ(pts[0].label(), "deployment.tp=2 deployment.engram_tier=hbm workload.concurrency=1");
  EXPECT_EQ(pts[1].label(), "deployment.tp=2 deployment.engram_tier=hbm workload.concurrency=2");
  EXPECT_EQ(pts[4].label(), "deployment.tp=2 deployment.engram_tier=dram workload.concurrency=1");
  EXPECT_EQ(pts[12].label(), "deployment.tp=4 deployment.engram_tier=hbm workload.concurrency=1");
  EXPECT_EQ(pts[23].label(), "deployment.tp=4 deployment.engram_tier=ssd workload.concurrency=8");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(pts[i].index, i);
    EXPECT_EQ(pts[i].id.size(), 16u);
    ids.insert(pts[i].id);
  }
  EXPECT_EQ(ids.size(), 24u);
}

TEST(SweepSpec, IdDependsOnAssignmentsOnlyNotOnPosition) {
  const auto a = expand_sweep(spec_of(kScenario));
  // Same axes, different value order: the point with the same assignments keeps its id.
  std::string reordered = kScenario;
  reordered.replace(reordered.find("[1, 2, 4, 8]"), 12, "[8, 4, 2, 1]");
  const auto b = expand_sweep(spec_of(reordered));
  EXPECT_EQ(a[0].id, b[3].id);
  EXPECT_NE(a[0].id, b[0].id);
  // And is reproducible.
  EXPECT_EQ(a[5].id, expand_sweep(spec_of(kScenario))[5].id);
}

TEST(SweepSpec, AssignmentsAsTypedJson) {
  const auto pts = expand_sweep(
      spec_of("a: {n: 1, s: x, f: 1.5, b: true, q: '7'}\n"
              "sweep: {axes: [{key: a.n, values: [3]}, {key: a.s, values: [dram]}, {key: a.f, values: [2.5]},"
              " {key: a.b, values: [false]}, {key: a.q, values: ['8']}]}\n"));
  ASSERT_EQ(pts.size(), 1u);
  const auto j = pts[0].assignments_json();
  EXPECT_EQ(j["a.n"], 3);
  EXPECT_EQ(j["a.s"], "dram");
  EXPECT_DOUBLE_EQ(j["a.f"].get<double>(), 2.5);
  EXPECT_EQ(j["a.b"], false);
  EXPECT_TRUE(j["a.q"].is_string());  // quoted in YAML: stays a string
}

TEST(SweepSpec, ZippedAxesAdvanceTogether) {
  const auto pts = expand_sweep(spec_of(
      "deployment: {tp: 1, ep: 1}\nworkload: {concurrency: 1}\n"
      "sweep:\n  axes:\n    - zip: [{key: deployment.tp, values: [2, 4]}, {key: deployment.ep, values: [8, 4]}]\n"
      "    - {key: workload.concurrency, values: [1, 2, 3]}\n"));
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(pts[0].label(), "deployment.tp=2 deployment.ep=8 workload.concurrency=1");
  EXPECT_EQ(pts[3].label(), "deployment.tp=4 deployment.ep=4 workload.concurrency=1");
}

TEST(SweepSpec, GeometricAndArithmeticRanges) {
  const auto spec = spec_of(
      "w: {c: 1, r: 0}\nsweep: {axes: [{key: w.c, range: {from: 1, to: 256, factor: 2}},"
      " {key: w.r, range: {from: 0.1, to: 0.3, step: 0.1}}]}\n");
  ASSERT_EQ(spec.dimensions.size(), 2u);
  const auto& c = spec.dimensions[0].axes[0].values;
  ASSERT_EQ(c.size(), 9u);
  EXPECT_EQ(c.front().Scalar(), "1");
  EXPECT_EQ(c.back().Scalar(), "256");
  EXPECT_EQ(spec.dimensions[1].axes[0].values.size(), 3u);  // 0.3 survives rounding
}

TEST(SweepSpec, NoSweepBlockIsOnePoint) {
  const auto pts = expand_sweep(spec_of("a: 1\n"));
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_TRUE(pts[0].assignments.empty());
  EXPECT_EQ(pts[0].label(), "");
}

// The largest sweep allowed expands (it used to exhaust memory long before its limit), one point
// more is refused where the sweep is declared.
TEST(SweepSpec, ExpandsAtItsPointLimitAndRefusesOneDimensionMore) {
  const std::string axes =
      "{key: w.c, range: {from: 1, to: 1000, step: 1}}, {key: w.r, range: {from: 1, to: 100, step: 1}}";
  const auto spec = spec_of("w: {c: 1, r: 1, s: 1}\nsweep: {axes: [" + axes + "]}\n");
  ASSERT_EQ(spec.point_count(), kMaxSweepPoints);
  const auto pts = expand_sweep(spec);
  ASSERT_EQ(pts.size(), kMaxSweepPoints);
  EXPECT_EQ(pts.back().label(), "w.c=1000 w.r=100");
  const std::string e = config_error(
      [&] { spec_of("w: {c: 1, r: 1, s: 1}\nsweep: {axes: [" + axes + ", {key: w.s, values: [1, 2]}]}\n"); });
  EXPECT_NE(e.find("s.yaml:2:8: sweep: sweep expands to more than 100000 points"), std::string::npos) << e;
}

TEST(SweepSpec, ErrorsNameFileLineAndColumn) {
  EXPECT_NE(config_error([] { spec_of("sweep: {axes: [{key: a, values: []}]}\n"); }).find("values is empty"),
            std::string::npos);
  // A misspelt key is reported at the key itself, with the key the reader asked for.
  const std::string typo = config_error([] { spec_of("sweep: {axes: [{key: a, valuez: [1]}]}\n"); });
  EXPECT_NE(typo.find("s.yaml:1:25: sweep.axes[0].valuez: unknown field; did you mean 'values'?"), std::string::npos)
      << typo;
  const std::string dup =
      config_error([] { spec_of("sweep:\n  axes:\n    - {key: a, values: [1]}\n    - {key: a, values: [2]}\n"); });
  EXPECT_NE(dup.find("s.yaml:4:13"), std::string::npos) << dup;
  EXPECT_NE(dup.find("swept twice"), std::string::npos);
  const std::string zip =
      config_error([] { spec_of("sweep:\n  axes:\n    - zip: [{key: a, values: [1, 2]}, {key: b, values: [1]}]\n"); });
  EXPECT_NE(zip.find("equal lengths"), std::string::npos) << zip;
  EXPECT_NE(
      config_error([] { spec_of("sweep: {axes: [{key: a, range: {from: 1, to: 8}}]}\n"); }).find("exactly one of step"),
      std::string::npos);
  EXPECT_NE(config_error([] { spec_of("sweep: {axes: [{key: 'a..b', values: [1]}]}\n"); }).find("empty component"),
            std::string::npos);
}

TEST(SweepSpec, DocsTableIsTheSchemas) {
  test::check_docs_table("docs/planning.md", "### Sweep keys (`sweep:`)", sweep_schema().markdown());
}

TEST(SweepSpec, RangeAndZipErrorsAreLocated) {
  const auto error = [](const std::string& axes) {
    return config_error([&] { spec_of("sweep: {axes: [" + axes + "]}\n"); });
  };
  EXPECT_NE(
      error("{key: a, range: {from: 4, to: 2, step: 1}}").find("s.yaml:1:46: sweep.axes[0].range.to: must be >= from"),
      std::string::npos);
  EXPECT_NE(error("{key: a, range: {from: 0, to: 2, factor: 2}}")
                .find("sweep.axes[0].range.from: must be > 0 for a geometric"),
            std::string::npos);
  EXPECT_NE(error("{key: a, range: {from: 1, to: 2, stepp: 1}}")
                .find("sweep.axes[0].range.stepp: unknown field; did you mean 'step'?"),
            std::string::npos);
  EXPECT_NE(error("{key: a, values: [1], range: {from: 1, to: 2, step: 1}}")
                .find("sweep.axes[0]: give exactly one of values"),
            std::string::npos);
  EXPECT_NE(error("{zip: [{key: a, values: [1]}], key: b}").find("sweep.axes[0].key: unknown field"),
            std::string::npos);
  EXPECT_NE(error("3").find("sweep.axes[0]: expected {key: dotted.path, values: [...]}"), std::string::npos);
  EXPECT_NE(
      config_error([] { spec_of("sweep: {axis: []}\n"); }).find("sweep.axis: unknown field; did you mean 'axes'?"),
      std::string::npos);
}

TEST(SweepSpec, MissingKeyPathIsReportedAtTheSweepEntry) {
  const std::string text =
      "deployment: {tp: 4}\n"
      "sweep:\n"
      "  axes:\n"
      "    - {key: deployment.tpp, values: [2]}\n";
  auto root = ConfigNode::load_string(text, "scenario.yaml");
  const auto spec = SweepSpec::from_scenario(root);
  const std::string msg = config_error([&] { validate_sweep_keys(spec, root.raw()); });
  EXPECT_EQ(msg.rfind("scenario.yaml:4:13: deployment.tpp: no key 'tpp' under 'deployment'", 0), 0u) << msg;
  // A scalar in the middle of the path.
  auto root2 = ConfigNode::load_string("a: 1\nsweep: {axes: [{key: a.b, values: [2]}]}\n", "x.yaml");
  const std::string msg2 = config_error([&] { validate_sweep_keys(SweepSpec::from_scenario(root2), root2.raw()); });
  EXPECT_NE(msg2.find("'a' is a scalar"), std::string::npos) << msg2;
}

TEST(SweepSpec, ScenarioForPointAppliesAssignmentsToADeepCopy) {
  auto root = ConfigNode::load_string(kScenario, "s.yaml");
  const auto spec = SweepSpec::from_scenario(root);
  validate_sweep_keys(spec, root.raw());
  const auto pts = expand_sweep(spec);
  const YAML::Node s = scenario_for_point(root.raw(), pts[7]);  // tp=2, dram, concurrency 8
  EXPECT_EQ(s["deployment"]["tp"].as<int>(), 2);
  EXPECT_EQ(s["deployment"]["engram_tier"].as<std::string>(), "dram");
  EXPECT_EQ(s["workload"]["concurrency"].as<int>(), 8);
  EXPECT_FALSE(s["sweep"]);
  EXPECT_EQ(s["deployment"]["scheduler"]["max_num_seqs"].as<int>(), 256);
  // The base is untouched.
  EXPECT_EQ(root.raw()["deployment"]["tp"].as<int>(), 4);
  EXPECT_EQ(root.raw()["workload"]["concurrency"].as<int>(), 1);
  EXPECT_TRUE(root.raw()["sweep"]);
}

TEST(Override, SweepPointsKeepTheirKeysStrict) {
  YAML::Node root = YAML::Load(kScenario);
  SweepPoint p;
  p.assignments.push_back({"deployment.tpp", YAML::Load("2")});
  EXPECT_NE(config_error([&] { scenario_for_point(root, p); }).find("no key 'tpp' under 'deployment'"),
            std::string::npos);
}

TEST(SweepSpec, PreparedSweepAndConcurrentPointScenarios) {
  const auto root = ConfigNode::load_string(kScenario, "s.yaml");
  const auto prep = prepare_sweep(root);
  EXPECT_EQ(prep.points.size(), 24u);
  EXPECT_FALSE(static_cast<const YAML::Node&>(prep.base)["sweep"]);
  EXPECT_EQ(prep.fingerprint.size(), 16u);
  // The fingerprint follows the base scenario, not the sweep block.
  std::string edited = kScenario;
  edited.replace(edited.find("max_num_seqs: 256"), 17, "max_num_seqs: 128");
  EXPECT_NE(prepare_sweep(ConfigNode::load_string(edited, "s.yaml")).fingerprint, prep.fingerprint);
  std::string resized = kScenario;
  resized.replace(resized.find("[1, 2, 4, 8]"), 12, "[1, 2]");
  EXPECT_EQ(prepare_sweep(ConfigNode::load_string(resized, "s.yaml")).fingerprint, prep.fingerprint);
  // Sweep workers build point scenarios from one shared base at the same time.
  std::vector<std::string> sequential;
  for (const auto& p : prep.points) {
    YAML::Emitter e;
    e << scenario_for_point(prep.base, p);
    sequential.push_back(e.c_str());
  }
  std::vector<std::string> parallel(prep.points.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep)
        for (std::size_t i = static_cast<std::size_t>(t); i < prep.points.size(); i += 4) {
          YAML::Emitter e;
          e << scenario_for_point(prep.base, prep.points[i]);
          parallel[i] = e.c_str();
        }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(parallel, sequential);
}
