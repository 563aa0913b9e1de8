// `compare:` expansion and --set overrides (scenario/schema/scenario_document.hpp), and the session
// that prepares, runs and writes them (scenario_session.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/config_node.hpp"
#include "scenario/build/scenario_session.hpp"
#include "scenario_test_util.hpp"
#include "tests/support/config_error.hpp"

namespace engramsim::sim {

using namespace engramsim::scenario;
namespace {

using testing::ScratchDir;

const std::string kBase =
    "name: c\n"
    "model: llama-3.1-8b\n"
    "node: hgx-h100\n"
    "seed: 9\n"
    "deployment:\n"
    "  replicas: 1\n"
    "  tp: 1\n"
    "  scheduler: {max_num_seqs: 16, block_size: 16}\n"
    "workload:\n"
    "  kind: closed_loop\n"
    "  concurrency: 4\n"
    "  num_requests: 12\n"
    "  input: {distribution: fixed, tokens: 256}\n"
    "  output: {distribution: fixed, tokens: 8}\n";

ScenarioDocument doc(const std::string& text) { return {"c.yaml", text}; }

std::string error_of(const std::string& text, const std::vector<scenario::SetArgument>& sets = {}) {
  return test::config_error_of([&] { scenario::prepare_session(doc(text), {sets, ""}); });
}

TEST(ScenarioDocument, WithoutCompareOneUnnamedVariant) {
  const auto v = scenario::expand_scenario(doc(kBase), {});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].name.empty());
  EXPECT_TRUE(v[0].set.empty());
}

TEST(ScenarioDocument, VariantsApplyTheirSetsAndTheCommandLineWins) {
  const std::string text = kBase +
                           "sweep: {axes: [{key: workload.concurrency, values: [1, 2]}]}\n"
                           "compare:\n"
                           "  - name: small\n"
                           "    set: {workload.concurrency: 2}\n"
                           "  - name: big\n"
                           "    baseline: small\n"
                           "    set: {workload.concurrency: 8, deployment.scheduler.max_num_seqs: 32}\n";
  const auto v = scenario::expand_scenario(doc(text), {{"deployment.scheduler.max_num_seqs", "24"}});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].name, "small");
  EXPECT_EQ(v[0].baseline, "");
  EXPECT_EQ(v[1].baseline, "small");
  ASSERT_EQ(v[1].set.size(), 2u);
  EXPECT_EQ(v[1].set[0].first, "workload.concurrency");
  EXPECT_EQ(v[1].set[0].second, "8");
  const ScenarioParams a = parse_scenario(ConfigNode(v[0].root, "c.yaml", ""));
  const ScenarioParams b = parse_scenario(ConfigNode(v[1].root, "c.yaml", ""));
  EXPECT_EQ(a.workload.spec.concurrency, 2);
  EXPECT_EQ(b.workload.spec.concurrency, 8);
  EXPECT_EQ(a.deployment.scheduler.policy.max_num_seqs, 24);  // --set
  EXPECT_EQ(b.deployment.scheduler.policy.max_num_seqs, 24);  // --set beats the variant
  const YAML::Node& peek = v[0].root;
  EXPECT_FALSE(peek["compare"]);
  EXPECT_FALSE(peek["sweep"]);  // passed through untouched for `engramsim sweep`, not run
}

TEST(ScenarioDocument, BadCompareEntriesAreErrorsAtTheirLines) {
  const std::string head = kBase + "compare:\n";
  EXPECT_NE(error_of(head + "  - name: a\n    set: {workload.concurrencyy: 2}\n").find("c.yaml:17:"), std::string::npos)
      << error_of(head + "  - name: a\n    set: {workload.concurrencyy: 2}\n");
  EXPECT_NE(error_of(head + "  - name: a\n    set: {workload.concurrency: 2}\n  - name: a\n    set: {seed: 1}\n")
                .find("duplicate"),
            std::string::npos);
  EXPECT_NE(error_of(head + "  - name: a b\n    set: {seed: 1}\n").find("compare[0].name"), std::string::npos);
  EXPECT_NE(error_of(head + "  - name: a\n    set: {}\n").find("at least one key"), std::string::npos);
  EXPECT_NE(error_of(head + "  - name: a\n    baseline: z\n    set: {seed: 1}\n").find("no variant named 'z'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "  - name: a\n    colour: red\n    set: {seed: 1}\n").find("compare[0].colour"),
            std::string::npos);
  // A bad value from a variant names the variant's own line, not line 1.
  const std::string bad = error_of(head + "  - name: a\n    set: {workload.concurrency: many}\n");
  EXPECT_NE(bad.find("c.yaml:17:"), std::string::npos) << bad;
  EXPECT_NE(bad.find("workload.concurrency"), std::string::npos) << bad;
}

// A variant parses the base and its own entry only: thousands of variants expand in time and
// memory linear in their number (3,000 used to take 24 GB), keys after the list stay in every
// variant, and errors still name the variant's own line.
TEST(ScenarioDocument, ManyVariantsExpandLinearlyAndKeepTheirLines) {
  constexpr int kVariants = 2000;
  std::string text = kBase + "compare:\n";
  for (int i = 0; i < kVariants; ++i)
    text += "  - name: v" + std::to_string(i) + "\n    # variant " + std::to_string(i) +
            "\n    set: {workload.concurrency: " + std::to_string(i + 1) + "}\n";
  text += "slo: {ttft_p99: 5s}\n";
  const auto v = scenario::expand_scenario(doc(text), {});
  ASSERT_EQ(v.size(), static_cast<std::size_t>(kVariants));
  for (int i : {0, 1, kVariants / 2, kVariants - 1}) {
    EXPECT_EQ(v[i].name, "v" + std::to_string(i));
    EXPECT_EQ(v[i].root["workload"]["concurrency"].as<int>(), i + 1) << i;
    EXPECT_TRUE(v[i].root["slo"]) << "a key after the compare list is lost in variant " << i;
    EXPECT_FALSE(v[i].root["compare"]);
  }
  // The last variant's `set:` is at line 15 + 3 * kVariants.
  std::string bad = text;
  const std::string last = "concurrency: " + std::to_string(kVariants) + "}";
  bad.replace(bad.rfind(last), last.size(), "concurrency: many}");
  const std::string e = error_of(bad);
  EXPECT_NE(e.find("c.yaml:" + std::to_string(15 + 3 * kVariants) + ":"), std::string::npos) << e;
  EXPECT_NE(e.find("workload.concurrency"), std::string::npos) << e;
}

TEST(ScenarioDocument, FlowStyleCompareListsStillExpand) {
  const auto v = scenario::expand_scenario(
      doc(kBase + "compare: [{name: a, set: {workload.concurrency: 2}}, {name: b, set: {workload.concurrency: 3}}]\n"),
      {});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].root["workload"]["concurrency"].as<int>(), 3);
  EXPECT_NE(error_of(kBase + "compare: [{name: a, set: {workload.concurrency: x}}]\n").find("c.yaml:15:"),
            std::string::npos);
}

// Resident memory of this process, in bytes.
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// A flow-style list (`compare: [{...}, ...]`) parses each entry alone too: every variant used to
// parse and keep the whole file, so memory grew with the square of the list (500 entries: 1.3 GB,
// 2,000: out of memory). Entries over several lines, with comments and quoted brackets and commas,
// keep their lines and columns in errors.
TEST(ScenarioDocument, FlowStyleCompareListsCostMemoryLinearInTheirLength) {
  constexpr int kVariants = 400;
  std::string text = kBase + "compare: [\n";
  for (int i = 0; i < kVariants; ++i)
    text += "  {name: v" + std::to_string(i) + ", description: 'it''s [#" + std::to_string(i) +
            "], {x}', # a comment, with ] and }\n   set: {workload.concurrency: " + std::to_string(i + 1) +
            ", deployment.scheduler.max_num_seqs: " + std::to_string(16 + i) + "}},\n";
  text += "]\nslo: {ttft_p99: 5s}\n";
  const std::size_t before = resident_bytes();
  const auto v = scenario::expand_scenario(doc(text), {});
  const std::size_t held = resident_bytes() - std::min(before, resident_bytes());
  ASSERT_EQ(v.size(), static_cast<std::size_t>(kVariants));
  EXPECT_LT(held, std::size_t{64} << 20) << "all variants held " << (held >> 20) << " MiB";
  for (int i : {0, 1, kVariants / 2, kVariants - 1}) {
    EXPECT_EQ(v[i].name, "v" + std::to_string(i));
    EXPECT_EQ(v[i].description, "it's [#" + std::to_string(i) + "], {x}");
    EXPECT_EQ(v[i].root["workload"]["concurrency"].as<int>(), i + 1) << i;
    EXPECT_EQ(v[i].root["deployment"]["scheduler"]["max_num_seqs"].as<int>(), 16 + i) << i;
    EXPECT_TRUE(v[i].root["slo"]) << i;
    EXPECT_FALSE(v[i].root["compare"]);
  }
  // The last entry's set is on line 15 + 2 * kVariants; a key there that the base lacks is located at
  // its value (column 26), found while expanding, before any variant is built.
  std::string bad = text;
  const std::string last = "{workload.concurrency: " + std::to_string(kVariants) + ",";
  bad.replace(bad.rfind(last), last.size(), "{workload.bogus: " + std::to_string(kVariants) + ",");
  const std::string e = test::config_error_of([&] { expand_scenario(doc(bad), {}); });
  EXPECT_NE(e.find("c.yaml:" + std::to_string(15 + 2 * kVariants) + ":26: workload.bogus"), std::string::npos) << e;
}

TEST(ScenarioDocument, SetArgumentsAreCheckedAndNamed) {
  const std::string missing = error_of(kBase, {{"deployment.bogus", "1"}});
  EXPECT_NE(missing.find("--set"), std::string::npos) << missing;
  EXPECT_NE(missing.find("deployment.bogus"), std::string::npos) << missing;
  const std::string bad_value = error_of(kBase, {{"deployment.tp", "abc"}});
  EXPECT_NE(bad_value.find("--set: deployment.tp"), std::string::npos) << bad_value;
  EXPECT_NE(bad_value.find("deployment.tp=abc"), std::string::npos) << bad_value;
  EXPECT_NE(error_of(kBase, {{"workload.concurrency", "[1"}}).find("not valid YAML"), std::string::npos);
  // A variant's entry cannot be replaced from the command line (fuzzing found it lost its keys).
  const std::string compare =
      error_of(kBase + "compare:\n  - name: a\n    set: {seed: 1}\n", {{"compare.0.set", "{deployment.tp: 8}"}});
  EXPECT_NE(compare.find("--set: compare.0.set: the compare list cannot be changed"), std::string::npos) << compare;
}

// --set against a variant's own set: entries (the command line wins; `run` prints the warnings).
const std::string kTwoVariants = kBase +
                                 "compare:\n"
                                 "  - name: small\n"
                                 "    set: {workload.concurrency: 2}\n"
                                 "  - name: big\n"
                                 "    set: {workload.concurrency: 8, deployment.scheduler.max_num_seqs: 32}\n";

std::vector<scenario::SetConflict> conflicts_of(const std::string& text,
                                                const std::vector<scenario::SetArgument>& sets) {
  std::vector<scenario::SetConflict> out;
  for (const ScenarioVariant& v : expand_scenario(doc(text), sets)) {
    const auto mine = set_conflicts(v, sets);
    out.insert(out.end(), mine.begin(), mine.end());
  }
  return out;
}

TEST(SetConflicts, KeyPathsOverlapByWholeComponents) {
  EXPECT_TRUE(scenario::key_paths_overlap("deployment.tp", "deployment.tp"));
  EXPECT_TRUE(scenario::key_paths_overlap("deployment.engram", "deployment.engram.tier"));
  EXPECT_TRUE(scenario::key_paths_overlap("deployment.engram.tier", "deployment.engram"));
  EXPECT_FALSE(scenario::key_paths_overlap("deployment.tp", "deployment.tpx"));
  EXPECT_FALSE(scenario::key_paths_overlap("deployment.engram.tier", "deployment.engram.fetch"));
  EXPECT_FALSE(scenario::key_paths_overlap("workload.phases.1", "workload.phases.10"));
}

TEST(SetConflicts, ASetOnAVariantKeyNamesTheVariantTheKeyAndWhatItRunsWith) {
  const auto c = conflicts_of(kTwoVariants, {{"deployment.scheduler.max_num_seqs", "24"}});
  ASSERT_EQ(c.size(), 1u);  // only "big" sets that key
  EXPECT_EQ(c[0].variant, "big");
  EXPECT_EQ(c[0].key, "deployment.scheduler.max_num_seqs");
  EXPECT_EQ(c[0].value, "32");
  EXPECT_EQ(c[0].set.value, "24");
  EXPECT_EQ(c[0].runs_with, "24");
  EXPECT_EQ(scenario::set_conflict_warning(c[0]),
            "--set deployment.scheduler.max_num_seqs=24: variant \"big\" sets deployment.scheduler.max_num_seqs=32 "
            "itself and runs with 24 (--set wins over its set: entries)");
}

TEST(SetConflicts, NoneWhenTheSetLeavesEveryVariantKeyAlone) {
  EXPECT_TRUE(conflicts_of(kTwoVariants, {}).empty());
  EXPECT_TRUE(conflicts_of(kTwoVariants, {{"deployment.scheduler.block_size", "32"}, {"seed", "3"}}).empty());
  EXPECT_TRUE(conflicts_of(kBase, {{"workload.concurrency", "5"}}).empty());  // no compare: no variant to contradict
  // The same value as the variant's own: its name still says what it runs.
  EXPECT_TRUE(conflicts_of(kTwoVariants, {{"deployment.scheduler.max_num_seqs", "32"}}).empty());
}

TEST(SetConflicts, EveryAffectedVariantIsNamedInFileOrder) {
  const std::string text = kTwoVariants + "  - name: other\n    set: {seed: 4}\n";
  const auto c = conflicts_of(text, {{"workload.concurrency", "4"}, {"deployment.scheduler.max_num_seqs", "32"}});
  ASSERT_EQ(c.size(), 2u);  // "big" keeps its own max_num_seqs; "other" sets neither key
  EXPECT_EQ(c[0].variant, "small");
  EXPECT_EQ(c[0].value, "2");
  EXPECT_EQ(c[1].variant, "big");
  EXPECT_EQ(c[1].key, "workload.concurrency");
  EXPECT_EQ(c[1].value, "8");
  EXPECT_EQ(c[1].runs_with, "4");
}

TEST(SetConflicts, AMapAboveOrAKeyInsideTheVariantKeyConflictsToo) {
  const auto above = conflicts_of(kTwoVariants, {{"deployment.scheduler", "{max_num_seqs: 20, block_size: 16}"}});
  ASSERT_EQ(above.size(), 1u);
  EXPECT_EQ(above[0].key, "deployment.scheduler.max_num_seqs");
  EXPECT_EQ(above[0].runs_with, "20");
  const std::string whole = kBase + "compare:\n  - name: wide\n    set: {deployment.scheduler: {max_num_seqs: 32}}\n";
  const auto inside = conflicts_of(whole, {{"deployment.scheduler.max_num_seqs", "24"}});
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_EQ(inside[0].key, "deployment.scheduler");
  EXPECT_EQ(inside[0].value, "{max_num_seqs: 32}");
  EXPECT_EQ(inside[0].runs_with, "{max_num_seqs: 24}");
}

TEST(SetConflicts, APreparedSessionKeepsEachVariantsConflicts) {
  const ScenarioSession s = prepare_session(doc(kTwoVariants), {{{"workload.concurrency", "4"}}, ""});
  ASSERT_EQ(s.variants.size(), 2u);
  ASSERT_EQ(s.variants[0].set_conflicts.size(), 1u);
  EXPECT_EQ(s.variants[0].set_conflicts[0].variant, "small");
  ASSERT_EQ(s.variants[1].set_conflicts.size(), 1u);
  EXPECT_EQ(s.variants[1].set_conflicts[0].runs_with, "4");
}

TEST(ScenarioSession, InfeasibleVariantIsKeptWithItsReasonAndTheOthersRun) {
  const std::string text =
      "name: s\nmodel: deepseek-v4.1-flash\nnode: hgx-b300\ndeployment:\n  replicas: 1\n  tp: 2\n"
      "  engram: {tier: dram}\n  scheduler: {block_size: 64}\nworkload:\n  kind: closed_loop\n  concurrency: 2\n"
      "  num_requests: 4\n  input: {distribution: fixed, tokens: 64}\n  output: {distribution: fixed, tokens: 8}\n"
      "compare:\n  - name: dram\n    set: {deployment.engram.tier: dram}\n"
      "  - name: hbm\n    set: {deployment.engram.tier: hbm}\n";
  scenario::ScenarioSession s = prepare_session(doc(text), {});
  ASSERT_EQ(s.variants.size(), 2u);
  EXPECT_TRUE(s.compare);
  EXPECT_TRUE(s.any_infeasible());
  ASSERT_TRUE(s.variants[0].built.has_value());
  EXPECT_FALSE(s.variants[1].built.has_value());
  EXPECT_NE(s.variants[1].infeasible.find("HBM"), std::string::npos) << s.variants[1].infeasible;
  scenario::run_session(s, 2);
  ASSERT_TRUE(s.variants[0].result.has_value());
  EXPECT_EQ(s.variants[0].result->summary.completed, 4);
  EXPECT_FALSE(s.variants[1].result.has_value());
  const std::string j = scenario::session_json(s);
  EXPECT_NE(j.find("\"infeasible\""), std::string::npos);
}

TEST(ScenarioSession, WritesPerVariantFoldersAndRatios) {
  const std::string text = kBase +
                           "compare:\n  - name: one\n    set: {deployment.replicas: 1}\n"
                           "  - name: two\n    set: {deployment.replicas: 2}\n";
  scenario::ScenarioSession s = prepare_session(doc(text), {});
  scenario::run_session(s, 1);
  ScratchDir dir;
  scenario::write_session_outputs(s, dir.path());
  for (const char* v : {"one", "two"})
    for (const char* f : {"summary.json", "requests.csv", "timeseries.csv", "scenario.json"})
      EXPECT_TRUE(std::filesystem::exists(dir / v / f)) << v << "/" << f;
  const std::string compare = testing::read_file(dir.file("compare.json"));
  EXPECT_NE(compare.find("\"ratios\""), std::string::npos);
  EXPECT_NE(compare.find("\"two\""), std::string::npos);
  EXPECT_EQ(s.variants[1].baseline, "one");
  EXPECT_EQ(s.variants[1].result->summary.num_gpus, 2);

  // Without compare the files sit in the folder itself.
  ScenarioSession single = prepare_session(doc(kBase), {});
  run_session(single, 1);
  ScratchDir flat;
  write_session_outputs(single, flat.path());
  EXPECT_TRUE(std::filesystem::exists(flat.file("summary.json")));
  EXPECT_FALSE(std::filesystem::exists(flat.file("compare.json")));
  EXPECT_EQ(scenario::session_json(single), testing::read_file(flat.file("summary.json")));
}

// run_session's `done` sees each variant as its run ends: written there and its per-request records
// released, the session keeps only summaries (10,000 variants used to hold every run's records).
TEST(ScenarioSession, EachVariantIsWrittenAndReleasedAsItsRunEnds) {
  std::string text = kBase + "compare:\n";
  for (int i = 0; i < 6; ++i)
    text += "  - name: v" + std::to_string(i) + "\n    set: {seed: " + std::to_string(i) + "}\n";
  scenario::ScenarioSession s = prepare_session(doc(text), {});
  ScratchDir dir;
  std::vector<std::string> seen;
  scenario::run_session(s, 2, [&](VariantOutcome& v) {
    ASSERT_TRUE(v.result.has_value());
    EXPECT_EQ(v.result->requests.size(), 12u);
    scenario::write_variant_outputs(s, v, dir.path());
    scenario::release_run_records(v);
    seen.push_back(v.name);
  });
  EXPECT_EQ(seen.size(), 6u);
  for (const auto& v : s.variants) {
    EXPECT_TRUE(v.result->requests.empty()) << v.name;
    EXPECT_EQ(v.result->summary.completed, 12) << v.name;
    const std::string csv = testing::read_file(dir.file(v.name + "/requests.csv"));
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 13) << v.name;  // header and 12 rows
  }
  scenario::write_compare_outputs(s, dir.path());
  EXPECT_TRUE(std::filesystem::exists(dir.file("compare.json")));
}

}  // namespace
}  // namespace engramsim::sim
