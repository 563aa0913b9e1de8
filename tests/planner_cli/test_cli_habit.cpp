// The command line as a user of the other commands expects it (issue 21, item 5): typos reported at
// the key with a likely name, --out onto a file refused plainly, the commit in --version, --json on
// sweep, plan and list. Runs the real binary (its path compiled in).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "cli_test_util.hpp"

namespace {

using namespace engramsim::planner::cli_testing;

const std::string kWorkload =
    "workload:\n  kind: closed_loop\n  concurrency: 2\n  num_requests: 4\n"
    "  input: {distribution: fixed, tokens: 128}\n  output: {distribution: fixed, tokens: 4}\n";

std::string small_scenario(const std::string& deployment) {
  return "name: habit\nmodel: llama-3.1-8b\nnode: hgx-h100\ndeployment:\n" + deployment + kWorkload;
}

TEST(CliHabit, ATypoedKeyIsReportedAtItsLineWithTheLikelyName) {
  TempDir dir;
  write_file(dir / "tpp.yaml", small_scenario("  replicas: 1\n  tpp: 2\n"));
  const CliResult tpp = run_cli({"run", (dir / "tpp.yaml").string()}, dir.path());
  EXPECT_EQ(tpp.code, 2) << describe(tpp);
  EXPECT_NE(tpp.err.find("tpp.yaml:6:3: deployment.tpp: unknown field; did you mean 'tp'?"), std::string::npos)
      << describe(tpp);
  // A typo that a check meets before the unknown-key pass: blamed on the key, not on its map.
  write_file(dir / "replica.yaml", small_scenario("  replica: 1\n  tp: 1\n"));
  const CliResult rep = run_cli({"run", (dir / "replica.yaml").string()}, dir.path());
  EXPECT_EQ(rep.code, 2) << describe(rep);
  EXPECT_NE(rep.err.find("replica.yaml:5:3: deployment.replica: unknown field; did you mean 'replicas'?"),
            std::string::npos)
      << describe(rep);
}

TEST(CliHabit, SetAcceptsAnOptionalKeyTheFileLeavesOut) {
  // scheduler.max_num_seqs is documented and optional; the file has no scheduler block at all.
  TempDir dir;
  write_file(dir / "s.yaml", small_scenario("  replicas: 1\n  tp: 1\n"));
  const CliResult ok = run_cli(
      {"run", (dir / "s.yaml").string(), "--out", (dir / "o").string(), "--set", "deployment.scheduler.max_num_seqs=1"},
      dir.path());
  EXPECT_EQ(ok.code, 0) << describe(ok);
  // A misspelt key set from the command line is refused by the loader, with the likely name.
  const CliResult bad = run_cli(
      {"run", (dir / "s.yaml").string(), "--out", (dir / "o2").string(), "--set", "deployment.scheduler.max_num_seq=1"},
      dir.path());
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("deployment.scheduler.max_num_seq: unknown field; did you mean 'max_num_seqs'?"),
            std::string::npos)
      << describe(bad);
  EXPECT_FALSE(std::filesystem::exists(dir / "o2" / "summary.json"));
}

TEST(CliHabit, PricesFileWorksOnAScenarioWithoutAPricesKey) {
  TempDir dir;
  write_file(dir / "s.yaml", small_scenario("  replicas: 1\n  tp: 1\n"));
  write_file(dir / "p.yaml", "prices:\n  h100-sxm: {hyperscaler: \"7USD/h\"}\n");
  const CliResult r = run_cli({"run", (dir / "s.yaml").string(), "--out", (dir / "o").string(), "--prices",
                               (dir / "p.yaml").string(), "--json"},
                              dir.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["usd_per_gpu_hour"].get<double>(), 7.0) << describe(r);  // one variant: the summary itself
}

TEST(CliHabit, OutNamingAFileIsAPlainErrorForEveryCommand) {
  TempDir dir;
  write_file(dir / "ok.yaml", small_scenario("  replicas: 1\n  tp: 1\n"));
  write_file(dir / "taken", "x");
  const std::string taken = (dir / "taken").string();
  const std::vector<std::vector<std::string>> commands = {
      {"run", (dir / "ok.yaml").string(), "--out", taken},
      {"sweep", data_file("tiny_sweep.yaml"), "--out", taken},
      {"plan", data_file("tiny_plan.yaml"), "--out", taken},
      {"sweep", data_file("tiny_sweep.yaml"), "--out", taken + "/sub"},
  };
  for (const auto& args : commands) {
    const CliResult r = run_cli(args, dir.path());
    EXPECT_EQ(r.code, 2) << args[0] << "\n" << describe(r);
    EXPECT_NE(r.err.find("error: --out: " + taken + " is a file, not a folder"), std::string::npos) << args[0] << "\n"
                                                                                                    << describe(r);
    EXPECT_EQ(read_file(dir / "taken"), "x");
  }
}

TEST(CliHabit, VersionNamesTheCommit) {
  TempDir dir;
  const CliResult r = run_cli({"--version"}, dir.path());
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(R"(^engramsim 0\.1\.0 \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\)\n$)")))
      << describe(r);
}

TEST(CliHabit, ListPrintsAJsonArray) {
  TempDir dir;
  const CliResult r = run_cli({"list", "gpus", "--json"}, dir.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_FALSE(j.empty());
  bool h100 = false;
  for (const auto& e : j) {
    EXPECT_TRUE(e.contains("description"));
    EXPECT_TRUE(e.contains("path"));
    h100 = h100 || e.at("name").get<std::string>().rfind("h100", 0) == 0;
  }
  EXPECT_TRUE(h100) << r.out;
}

TEST(CliHabit, SweepAndPlanPrintJsonInsteadOfTheTable) {
  TempDir dir;
  const CliResult s = run_cli({"sweep", data_file("tiny_sweep.yaml"), "--out", (dir / "sw").string(), "--jobs", "2",
                               "--progress", "none", "--json", "--set", "workload.num_requests=8"},
                              dir.path());
  ASSERT_EQ(s.code, 0) << describe(s);
  const auto sj = nlohmann::json::parse(s.out);
  EXPECT_EQ(sj.at("points").get<int>(), 6);
  EXPECT_EQ(sj.at("ok").get<int>() + sj.at("infeasible").get<int>(), 6 + sj.at("refined").get<int>());
  EXPECT_TRUE(sj.at("recommendation").contains("text"));
  // The report names the overrides it ran with, and the tool's version with its commit.
  const std::string html = read_file(dir / "sw" / "report.html");
  EXPECT_NE(html.find("id=\"overrides\""), std::string::npos);
  EXPECT_NE(html.find("<code>workload.num_requests=8</code>"), std::string::npos);
  EXPECT_NE(html.find("(commit "), std::string::npos);
  // The scenario's title is marked as changed, and the as-run table lists the override.
  EXPECT_NE(html.find("(as run with workload.num_requests=8)</title>"), std::string::npos);
  EXPECT_NE(html.find("<th>Overrides</th><td>workload.num_requests=8</td>"), std::string::npos);
  const CliResult p = run_cli({"plan", data_file("tiny_plan.yaml"), "--out", (dir / "pl").string(), "--jobs", "2",
                               "--progress", "none", "--json"},
                              dir.path());
  ASSERT_EQ(p.code, 0) << describe(p);
  const auto pj = nlohmann::json::parse(p.out);
  ASSERT_FALSE(pj.at("ranking").empty());
  EXPECT_GT(pj.at("ranking").at(0).at("replicas").get<int>(), 0);
  EXPECT_GT(pj.at("ranking").at(0).at("usd_per_hour").get<double>(), 0.0);
  // The notes are printed without the report around them: they name no line they stand beside.
  for (const auto& n : pj.at("notes")) {
    EXPECT_EQ(n.get<std::string>().find("line above"), std::string::npos) << n;
    EXPECT_EQ(n.get<std::string>().find("below"), std::string::npos) << n;
  }
}

// The range CLI11 prints in --help for a flag ("[1 - 4096]"), or "" when the line has none.
std::string help_range(const std::string& help, const std::string& flag) {
  for (const std::string& line : lines_of(help)) {
    const auto at = line.find(flag + " ");
    if (at == std::string::npos) continue;
    const auto open = line.find("in [", at);
    const auto close = line.find(']', open);
    return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 3, close - open - 2);
  }
  return "";
}

TEST(CliHabit, OneRangePerQuantityAcrossCommands) {
  TempDir dir;
  const std::string step = run_cli({"step", "--help"}, dir.path()).out;
  const std::string footprint = run_cli({"footprint", "--help"}, dir.path()).out;
  const std::string run = run_cli({"run", "--help"}, dir.path()).out;
  const std::string sweep = run_cli({"sweep", "--help"}, dir.path()).out;
  const std::string validate_set = run_cli({"validate-set", "--help"}, dir.path()).out;
  EXPECT_EQ(help_range(run, "--jobs"), help_range(sweep, "--jobs"));
  EXPECT_EQ(help_range(validate_set, "--jobs"), help_range(sweep, "--jobs"));
  // step's and footprint's deployment flags are scenario keys: the help names the key, and the
  // scheduler's are described by the scenario's schema.
  for (const char* key : {"deployment.tp:", "deployment.ep:", "deployment.engram.tier:"}) {
    EXPECT_NE(step.find(key), std::string::npos) << key << "\n" << step;
    EXPECT_NE(footprint.find(key), std::string::npos) << key << "\n" << footprint;
  }
  EXPECT_NE(step.find("deployment.engram.active_gpus:"), std::string::npos) << step;
  EXPECT_NE(footprint.find("deployment.scheduler.max_num_seqs: integer >= 1"), std::string::npos) << footprint;
  EXPECT_NE(footprint.find("deployment.scheduler.block_size: integer in [1, 1048576]"), std::string::npos) << footprint;
}

// The scenario's parser reads the flags of both commands: the same bad value, the same error.
TEST(CliHabit, DeploymentFlagsFailAsTheScenarioKeyDoes) {
  TempDir dir;
  const std::vector<std::string> base = {"--model", "deepseek-v4.1-flash", "--node", "hgx-b300", "--tp", "5000"};
  std::vector<std::string> step = {"step", "--decode-seqs", "8", "--context", "100"};
  std::vector<std::string> footprint = {"footprint"};
  step.insert(step.end(), base.begin(), base.end());
  footprint.insert(footprint.end(), base.begin(), base.end());
  const CliResult s = run_cli(step, dir.path()), f = run_cli(footprint, dir.path());
  EXPECT_EQ(s.code, 2) << describe(s);
  EXPECT_EQ(f.code, 2) << describe(f);
  EXPECT_NE(s.err.find("error: --tp: deployment.tp: value 5000 out of range [1, 4096]"), std::string::npos) << s.err;
  EXPECT_EQ(s.err, f.err);
}

// Earlier spellings are refused (one name per key), with CLI11's one-line error.
TEST(CliHabit, OldSpellingsAreRefused) {
  TempDir dir;
  for (const char* old : {"--zipf", "--spec-accept", "--hbm-hot", "--dram-path", "--dp-attention"}) {
    const CliResult r = run_cli({"step", "--model", "deepseek-v4.1-flash", "--node", "hgx-b300", "--tp", "2",
                                 "--decode-seqs", "8", "--context", "100", old, "1"},
                                dir.path());
    EXPECT_EQ(r.code, 2) << old << "\n" << describe(r);
    EXPECT_NE(r.err.find("not expected"), std::string::npos) << old << "\n" << describe(r);
  }
  for (const char* old : {"--max-batched-tokens", "--kv-free-fraction", "--share-engram"}) {
    const CliResult r = run_cli(
        {"footprint", "--model", "deepseek-v4.1-flash", "--node", "hgx-b300", "--tp", "2", old, "1"}, dir.path());
    EXPECT_EQ(r.code, 2) << old << "\n" << describe(r);
  }
}

TEST(CliHabit, RunListsOnlyTheFilesItWrote) {
  TempDir dir;
  // Both variants are a 70B model on one 80 GB GPU: neither fits, so only compare.json is written.
  const std::string text =
      "name: nofit\nmodel: llama-3.1-70b\nnode: hgx-h100\ndeployment:\n  replicas: 1\n  tp: 1\n" + kWorkload +
      "compare:\n  - name: a\n    set: {deployment.tp: 1}\n  - name: b\n    set: {deployment.replicas: 1}\n";
  write_file(dir / "nofit.yaml", text);
  const CliResult r = run_cli({"run", (dir / "nofit.yaml").string(), "--out", (dir / "out").string()}, dir.path());
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_EQ(r.err.find("requests.csv"), std::string::npos) << describe(r);
  EXPECT_EQ(r.err.find("<variant>"), std::string::npos) << describe(r);
  EXPECT_FALSE(fs::exists(dir / "out" / "a" / "requests.csv"));
}

// A measured profile minimal enough for a test: HBM copy traffic on one GPU.
std::string gpu_profile(const std::string& gpu) {
  return "schema: engramsim-calibration/1\nname: t\nprovenance:\n  host: h\n  cpu_model: c\n  cpu_threads: 2\n"
         "  gpu: \"" +
         gpu +
         "\"\n  date: \"2026-11-20T10:11:12Z\"\n  engramsim_version: \"0.1.0\"\n"
         "hbm:\n  buffer_size: 1GiB\n  copy_traffic: 2TB/s\n";
}

TEST(CliHabit, RunTakesSeveralCalibrationsAndChoosesByGpu) {
  TempDir dir;
  write_file(dir / "b300.yaml", gpu_profile("NVIDIA B300"));
  write_file(dir / "other.yaml", gpu_profile("AMD Instinct MI300X"));
  const std::string text =
      "name: cal\nmodel: llama-3.1-8b\nnode: hgx-b300\ndeployment:\n  replicas: 1\n  tp: 1\n" + kWorkload;
  write_file(dir / "cal.yaml", text);
  for (const auto& order :
       {std::vector<std::string>{"other.yaml", "b300.yaml"}, std::vector<std::string>{"b300.yaml", "other.yaml"}}) {
    const CliResult r = run_cli({"run", (dir / "cal.yaml").string(), "--calibration", (dir / order[0]).string(),
                                 "--calibration", (dir / order[1]).string()},
                                dir.path());
    ASSERT_EQ(r.code, 0) << describe(r);
    EXPECT_NE(r.out.find("calibration " + (dir / "b300.yaml").string() + ":"), std::string::npos) << describe(r);
  }
}

}  // namespace
