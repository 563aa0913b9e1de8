// Every shipped scenario (scenarios/*.yaml): it loads and runs with the overrides its golden file
// lists (shipped scenarios may be cut down for test speed; the golden's `note` says how), its
// headline metrics match scenarios/golden/NAME.json within the tolerances of scenario_golden.hpp,
// every request is accounted for (conservation), and the same seed gives byte-identical output
// files whether variants run in one thread or two (determinism).
// ENGRAMSIM_UPDATE_GOLDEN=1 rewrites the goldens from this run instead of checking them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "scenario/build/scenario_golden.hpp"
#include "scenario/build/scenario_session.hpp"
#include "scenario_test_util.hpp"
#include "tests/support/docs_table.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim::sim {

using namespace engramsim::scenario;
namespace {

using testing::ScratchDir;

std::vector<std::string> scenario_stems() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(engramsim::test::source_root() + "/scenarios"))
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool updating() {
  const char* v = std::getenv("ENGRAMSIM_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "\n  " + l;
  return s;
}

// Every request that arrived is reported once, as finished, unfinished or rejected; finished ones
// emitted exactly the tokens they asked for, and the summary's totals are the sums over them.
void expect_conserved(const VariantOutcome& v) {
  const RunResult& r = *v.result;
  const Summary& s = r.summary;
  const std::string label = v.name.empty() ? "run" : v.name;
  // A windowed run (the agentic replay) summarises only its measured requests.
  ASSERT_EQ(static_cast<std::int64_t>(r.requests.size()), s.num_requests + s.excluded_requests) << label;
  std::int64_t finished = 0, unfinished = 0, rejected = 0, in = 0, out = 0;
  std::vector<bool> seen(r.requests.size(), false);
  for (const RequestRecord& q : r.requests) {
    ASSERT_LT(q.id, seen.size()) << label;
    EXPECT_FALSE(seen[q.id]) << label << ": request " << q.id << " reported twice";
    seen[q.id] = true;
    EXPECT_LE(q.generated_tokens, q.output_tokens) << label << ": request " << q.id;
    if (s.windowed && !q.measured) continue;
    switch (q.status) {
      case RequestStatus::finished:
        ++finished;
        EXPECT_EQ(q.generated_tokens, q.output_tokens) << label << ": request " << q.id;
        in += q.prompt_tokens;
        out += q.output_tokens;
        break;
      case RequestStatus::unfinished:
        ++unfinished;
        break;
      case RequestStatus::rejected:
        ++rejected;
        break;
    }
  }
  EXPECT_EQ(finished, s.completed) << label;
  EXPECT_EQ(unfinished, s.unfinished) << label;
  EXPECT_EQ(rejected, s.rejected) << label;
  EXPECT_EQ(in, s.total_input_tokens) << label;
  EXPECT_EQ(out, s.total_output_tokens) << label;
  // Without a horizon a run drains: nothing is left unfinished.
  if (v.built->params.horizon == Time::max()) {
    EXPECT_EQ(unfinished, 0) << label;
  }
  // A generated workload delivers exactly the requests it was asked for.
  if (v.built->params.workload.kind != WorkloadKind::trace && v.built->params.workload.num_requests > 0) {
    EXPECT_EQ(static_cast<std::uint64_t>(s.num_requests), v.built->params.workload.num_requests) << label;
  }
}

class ScenarioGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioGolden, MatchesGoldenConservesAndIsDeterministic) {
  const std::string stem = GetParam();
  const std::string yaml = engramsim::test::source_root() + "/scenarios/" + stem + ".yaml";
  const std::string golden_path = engramsim::test::source_root() + "/scenarios/golden/" + stem + ".json";
  scenario::Golden expected;
  if (std::filesystem::exists(golden_path)) {
    expected = scenario::read_golden(golden_path);
  } else if (!updating()) {
    FAIL() << "no golden for scenarios/" << stem << ".yaml: create scenarios/golden/" << stem
           << ".json with ENGRAMSIM_UPDATE_GOLDEN=1 ctest -R test_scenario_golden (docs/scenarios.md)";
  }
  scenario::SessionOptions options;
  options.set = expected.set;
  const ScenarioDocument doc = read_scenario_document(yaml);

  scenario::ScenarioSession a = prepare_session(doc, options);
  ASSERT_FALSE(a.variants.empty());
  scenario::run_session(a, 2);
  for (const auto& v : a.variants) {
    if (!v.built) continue;
    ASSERT_TRUE(v.result.has_value()) << v.name;
    expect_conserved(v);
    EXPECT_GT(v.result->summary.completed, 0) << v.name;
  }

  // Determinism: a second preparation and run, one thread this time, writes identical files.
  ScenarioSession b = prepare_session(doc, options);
  run_session(b, 1);
  ScratchDir dir;
  scenario::write_session_outputs(a, dir.file("a"));
  write_session_outputs(b, dir.file("b"));
  for (const auto& v : a.variants) {
    if (!v.result) continue;
    const std::string sub = a.compare ? "/" + v.name : std::string();
    for (const char* f : {"summary.json", "requests.csv", "timeseries.csv", "scenario.json"}) {
      EXPECT_EQ(testing::read_file(dir.file("a") + sub + "/" + f), testing::read_file(dir.file("b") + sub + "/" + f))
          << stem << sub << "/" << f << " differs between two runs with the same seed";
    }
  }

  const Golden actual = golden_from_session(a, expected.set, expected.note);
  if (updating()) {
    scenario::write_golden(actual, golden_path);
    GTEST_SKIP() << "rewrote " << golden_path;
  }
  EXPECT_EQ(actual.scenario, expected.scenario);
  const auto diffs = scenario::compare_with_golden(expected, actual);
  EXPECT_TRUE(diffs.empty()) << stem << " differs from scenarios/golden/" << stem << ".json (regenerate with "
                             << "ENGRAMSIM_UPDATE_GOLDEN=1 if the change is intended):" << joined(diffs);
}

INSTANTIATE_TEST_SUITE_P(Shipped, ScenarioGolden, ::testing::ValuesIn(scenario_stems()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// The comparison itself can fail: each tolerance class rejects a change just outside it and accepts
// one just inside.
TEST(GoldenCompare, TolerancesBiteOnBothSides) {
  scenario::Golden g;
  g.scenario = "x";
  g.variants.push_back({"v",
                        "",
                        {{"completed", 100.0},
                         {"tput_per_gpu", 1000.0},
                         {"mean_kv_usage", 0.5},
                         {"steps", 1000.0},
                         {"p99_ttft_ms", NAN}}});
  EXPECT_TRUE(scenario::compare_with_golden(g, g).empty());
  auto with = [&](const std::string& key, double value) {
    Golden a = g;
    for (auto& [k, v] : a.variants[0].metrics)
      if (k == key) v = value;
    return scenario::compare_with_golden(g, a).size();
  };
  EXPECT_EQ(with("completed", 101.0), 1u);      // exact
  EXPECT_EQ(with("tput_per_gpu", 1009.9), 0u);  // rel 1 % + 1e-3
  EXPECT_EQ(with("tput_per_gpu", 1010.1), 1u);
  EXPECT_EQ(with("mean_kv_usage", 0.5049), 0u);  // abs 0.005
  EXPECT_EQ(with("mean_kv_usage", 0.5051), 1u);
  EXPECT_EQ(with("steps", 1011.9), 0u);  // rel 1 % + 2
  EXPECT_EQ(with("steps", 1012.1), 1u);
  EXPECT_EQ(with("p99_ttft_ms", 5.0), 1u);  // undefined vs defined
  Golden renamed = g;
  renamed.variants[0].name = "w";
  EXPECT_EQ(scenario::compare_with_golden(g, renamed).size(), 1u);
  Golden infeasible = g;
  infeasible.variants[0].infeasible = "does not fit";
  infeasible.variants[0].metrics.clear();
  EXPECT_EQ(scenario::compare_with_golden(g, infeasible).size(), 1u);
}

TEST(GoldenCompare, WriteReadRoundTrip) {
  ScratchDir dir;
  scenario::Golden g;
  g.scenario = "s";
  g.note = "why";
  g.set = {{"workload.num_requests", "16"}};
  g.variants.push_back({"a", "", {{"completed", 16.0}, {"p99_ttft_ms", NAN}, {"tput_per_gpu", 1234.5678}}});
  g.variants.push_back({"b", "HBM over budget", {}});
  scenario::write_golden(g, dir.file("g.json"));
  const Golden r = read_golden(dir.file("g.json"));
  EXPECT_EQ(r.scenario, "s");
  EXPECT_EQ(r.note, "why");
  ASSERT_EQ(r.set.size(), 1u);
  EXPECT_EQ(r.set[0].key, "workload.num_requests");
  EXPECT_EQ(r.set[0].value, "16");
  ASSERT_EQ(r.variants.size(), 2u);
  EXPECT_TRUE(scenario::compare_with_golden(g, r).empty());
  EXPECT_EQ(r.variants[1].infeasible, "HBM over budget");
  testing::write_file(dir.file("bad.json"), "{\"scenario\": 1}");
  EXPECT_THROW(scenario::read_golden(dir.file("bad.json")), ConfigError);
}

TEST(GoldenSchema, DocsTableIsTheSchemas) {
  test::check_docs_table("docs/scenarios.md", "### Golden file keys (`scenarios/golden/NAME.json`)",
                         scenario::golden_schema().markdown());
}

TEST(GoldenSchema, MalformedGoldensAreLocated) {
  ScratchDir dir;
  const auto error_of = [&](const std::string& variant) {
    testing::write_file(dir.file("g.json"), "{\"scenario\": \"s\", \"set\": [],\n \"variants\": [" + variant + "]}\n");
    try {
      scenario::read_golden(dir.file("g.json"));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("{\"name\": \"a\", \"metrics\": {\"completed\": 1, \"p99_ttft_ms\": null}}"), "");
  const std::string typo = error_of("{\"name\": \"a\", \"metrics\": {\"completd\": 1}}");
  EXPECT_NE(typo.find("g.json:2:41: variants[0].metrics.completd: unknown field; did you mean 'completed'?"),
            std::string::npos)
      << typo;
  EXPECT_NE(error_of("{\"name\": \"a\"}").find("variants[0].metrics: missing required field"), std::string::npos);
  EXPECT_EQ(error_of("{\"name\": \"a\", \"infeasible\": \"HBM over budget\"}"), "");
  EXPECT_NE(error_of("{\"name\": \"a\", \"metrics\": {\"steps\": \"many\"}}").find("variants[0].metrics.steps:"),
            std::string::npos);
}

}  // namespace
}  // namespace engramsim::sim
