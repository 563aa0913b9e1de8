// `engramsim run` and `engramsim validate` as a user meets them: exit codes 0 / 2 / 3 / 4 and the
// messages for bad scenario files (unknown key, bad unit, missing trace file, bad policy name), --set
// on a path that does not exist, --out files, --json, goldens, and validate's kind detection.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>

#include "scenario_test_util.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/file_text.hpp"
#include "tests/support/test_paths.hpp"

namespace {

using engramsim::test::source_root;
using engramsim::testing::ScratchDir;
using engramsim::testing::write_file;

using engramsim::test::CliRun;
using engramsim::test::run_cli;

// A small, fast scenario; `deployment_extra` and `workload` replace parts of it.
std::string scenario(const std::string& deployment_extra = "", const std::string& workload = "",
                     const std::string& top = "") {
  const std::string w = workload.empty() ? "  kind: closed_loop\n  concurrency: 4\n  num_requests: 8\n"
                                           "  input: {distribution: fixed, tokens: 256}\n"
                                           "  output: {distribution: fixed, tokens: 8}\n"
                                         : workload;
  return "name: cli\nmodel: llama-3.1-8b\nnode: hgx-h100\n" + top + "deployment:\n  replicas: 1\n  tp: 1\n" +
         deployment_extra + "workload:\n" + w;
}

class RunCli : public ::testing::Test {
 protected:
  std::string put(const std::string& name, const std::string& text) {
    const std::string path = dir_.file(name);
    write_file(path, text);
    return path;
  }
  ScratchDir dir_;
};

TEST_F(RunCli, GoodScenarioRunsAndPrintsTheSummary) {
  const CliRun r = run_cli("run " + put("ok.yaml", scenario()));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("throughput tok/s/GPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8/8"), std::string::npos) << r.out;
  const CliRun j = run_cli("run --json " + put("ok2.yaml", scenario()));
  ASSERT_EQ(j.rc, 0) << j.out;
  const auto summary = nlohmann::json::parse(j.out);
  EXPECT_EQ(summary.at("completed").get<int>(), 8);
  EXPECT_EQ(summary.at("total_output_tokens").get<int>(), 64);
}

// --progress lines: progress lines (at least the last); everything else is as without them. (The
// helper merges stderr into what it reads, so the progress lines are taken out to compare.)
TEST_F(RunCli, ProgressLinesLeaveTheRestAlone) {
  const std::string file = put("pr.yaml", scenario());
  const CliRun with = run_cli("run --progress lines " + file);
  const CliRun without = run_cli("run --progress none " + file);
  ASSERT_EQ(with.rc, 0) << with.out;
  std::string rest, progress;
  std::istringstream in(with.out);
  for (std::string line; std::getline(in, line);)
    (line.find(" requests done, ") != std::string::npos ? progress : rest) += line + "\n";
  EXPECT_EQ(rest, without.out);
  EXPECT_NE(progress.find(", done\n"), std::string::npos) << with.out;
  EXPECT_EQ(without.out.find(" requests done, "), std::string::npos);
  EXPECT_EQ(run_cli("run --progress sometimes " + file).rc, 2);
}

TEST_F(RunCli, BadScenarioFilesExitTwoNamingTheField) {
  const CliRun unknown = run_cli("run " + put("u.yaml", scenario("  tpp: 2\n")));
  EXPECT_EQ(unknown.rc, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("u.yaml:7:3: deployment.tpp"), std::string::npos) << unknown.out;

  const CliRun unit = run_cli("run " + put("n.yaml", scenario("", "", "horizon: 60\n")));
  EXPECT_EQ(unit.rc, 2) << unit.out;
  EXPECT_NE(unit.out.find("n.yaml:4:10: horizon"), std::string::npos) << unit.out;

  const CliRun trace = run_cli("run " + put("t.yaml", scenario("", "  kind: trace\n  trace: {path: missing.csv}\n")));
  EXPECT_EQ(trace.rc, 2) << trace.out;
  EXPECT_NE(trace.out.find("workload.trace.path"), std::string::npos) << trace.out;
  EXPECT_NE(trace.out.find("no such file"), std::string::npos) << trace.out;

  const CliRun policy = run_cli("run " + put("p.yaml", scenario("  scheduler: {policy: fifo}\n")));
  EXPECT_EQ(policy.rc, 2) << policy.out;
  EXPECT_NE(policy.out.find("deployment.scheduler.policy"), std::string::npos) << policy.out;

  const std::string corpus = source_root() + "/scenarios/traces/agentx-synthetic-seed42.jsonl.gz";
  const CliRun lanes =
      run_cli("run " + put("a.yaml", scenario("", "  kind: agentx\n  trace: " + corpus + "\n  concurrency: 0\n")));
  EXPECT_EQ(lanes.rc, 2) << lanes.out;
  EXPECT_NE(lanes.out.find("a.yaml:10:16: workload.concurrency"), std::string::npos) << lanes.out;

  const CliRun none = run_cli("run " + dir_.file("absent.yaml"));
  EXPECT_EQ(none.rc, 2) << none.out;
}

// The agentx kind through run (with --set on its keys), validate and scenario.json.
TEST_F(RunCli, AgentxWorkloadRunsValidatesAndTakesSet) {
  const std::string path =
      put("ax.yaml", scenario("  scheduler: {enable_prefix_caching: true}\n  router: sticky_session\n",
                              "  kind: agentx\n  trace: " + source_root() +
                                  "/scenarios/traces/agentx-synthetic-seed42.jsonl.gz\n  concurrency: 4\n"
                                  "  duration: 60s\n  grace: 0s\n  warmup_requests: 0\n"));
  const CliRun v = run_cli("validate " + path);
  EXPECT_EQ(v.rc, 0) << v.out;
  const CliRun r = run_cli("run " + path + " --set workload.concurrency=2 --out " + dir_.file("ax-out"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("2 lanes"), std::string::npos) << r.out;
  const auto sj = nlohmann::json::parse(engramsim::testing::read_file(dir_.file("ax-out") + "/scenario.json"));
  EXPECT_EQ(sj.at("agentic").at("concurrency").get<int>(), 2);
  EXPECT_NEAR(sj.at("agentic").at("duration_s").get<double>(), 60.0, 1e-9);
  EXPECT_EQ(sj.at("router").get<std::string>(), "sticky_session");
  const auto summary = nlohmann::json::parse(engramsim::testing::read_file(dir_.file("ax-out") + "/summary.json"));
  EXPECT_GT(summary.at("completed").get<int>(), 0);
  EXPECT_TRUE(summary.contains("p90_e2e_norm_intvty"));
  const CliRun bad = run_cli("run " + path + " --set workload.grace=700000s");
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("workload.grace: must be a time in [0, 604800s]"), std::string::npos) << bad.out;
}

// A disaggregated deployment: one header line per pool, --set on a pool's key, both pools in
// scenario.json; a pool that does not fit exits 3 naming it, a colocated key beside the kind exits 2.
TEST_F(RunCli, DisaggregatedDeploymentPrintsAndWritesBothPools) {
  const std::string text =
      "name: pd\nmodel: llama-3.1-8b\nnode: hgx-h100\ndeployment:\n  kind: disaggregated\n"
      "  prefill: {replicas: 2, tp: 1}\n  decode: {replicas: 1, tp: 1}\nworkload:\n  kind: closed_loop\n"
      "  concurrency: 4\n  num_requests: 8\n  input: {distribution: fixed, tokens: 256}\n"
      "  output: {distribution: fixed, tokens: 8}\n";
  const std::string path = put("pd.yaml", text);
  const CliRun r = run_cli("run " + path + " --set deployment.prefill.tp=2 --out " + dir_.file("pd-out"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("llama-3.1-8b, disaggregated over 5 GPUs:\nprefill: 2 x TP2 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ndecode: 1 x TP1 (EP1, tensor-parallel attention) on hgx-h100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nKV transfer: 131,072 B per token"), std::string::npos) << r.out;
  const auto sj = nlohmann::json::parse(engramsim::testing::read_file(dir_.file("pd-out") + "/scenario.json"));
  EXPECT_EQ(sj.at("deployment_kind").get<std::string>(), "disaggregated");
  EXPECT_EQ(sj.at("replicas").get<int>(), 1);  // the decode pool
  EXPECT_EQ(sj.at("prefill").at("replicas").get<int>(), 2);
  EXPECT_EQ(sj.at("prefill").at("tp").get<int>(), 2);
  EXPECT_EQ(sj.at("kv_transfer").at("prefill").at("kv_layout").get<std::string>(), "sharded");
  EXPECT_EQ(sj.at("run_gpus").get<int>(), 5);

  const CliRun big = run_cli("run " + path + " --set model=llama-3.1-70b --set deployment.decode.tp=4");
  EXPECT_EQ(big.rc, 3) << big.out;
  EXPECT_NE(big.out.find("does not fit: prefill pool: llama-3.1-70b TP1"), std::string::npos) << big.out;
  std::string beside_text = text;
  beside_text.insert(beside_text.find("workload:"), "  tp: 2\n");
  const CliRun beside = run_cli("run " + put("pd2.yaml", beside_text));
  EXPECT_EQ(beside.rc, 2) << beside.out;
  EXPECT_NE(beside.out.find("pd2.yaml:8:7: deployment.tp: a key of one pool"), std::string::npos) << beside.out;

  const CliRun colocated = run_cli("run " + put("c.yaml", scenario()) + " --out " + dir_.file("c-out"));
  ASSERT_EQ(colocated.rc, 0) << colocated.out;
  const auto cj = nlohmann::json::parse(engramsim::testing::read_file(dir_.file("c-out") + "/scenario.json"));
  EXPECT_FALSE(cj.contains("prefill"));
  EXPECT_FALSE(cj.contains("deployment_kind"));
}

TEST_F(RunCli, SetOnAnUnknownKeyExitsTwo) {
  const std::string path = put("s.yaml", scenario());
  const CliRun r = run_cli("run " + path + " --set deployment.replica=2");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("deployment.replica"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown field; did you mean 'replicas'?"), std::string::npos) << r.out;
  const CliRun no_eq = run_cli("run " + path + " --set deployment.tp");
  EXPECT_EQ(no_eq.rc, 2) << no_eq.out;
  // Repeated --set before and after the scenario; the overrides take effect.
  const CliRun ok = run_cli("run --set workload.num_requests=6 " + path + " --set workload.concurrency=2 --json");
  ASSERT_EQ(ok.rc, 0) << ok.out;
  EXPECT_EQ(nlohmann::json::parse(ok.out).at("completed").get<int>(), 6);
}

// --set on a key a variant sets itself: the command line wins, and stderr says so once per variant
// it changes; stdout and the exit code are as without the warning.
TEST_F(RunCli, SetOverAVariantsOwnKeyWarnsOnStderr) {
  const std::string path = put("v.yaml", scenario("", "", "seed: 1\n") +
                                             "compare:\n"
                                             "  - name: c2\n    set: {workload.concurrency: 2}\n"
                                             "  - name: c4\n    set: {workload.concurrency: 4}\n"
                                             "  - name: seeded\n    set: {seed: 7}\n");
  const std::string warning =
      "warning: --set workload.concurrency=3: variant \"c2\" sets workload.concurrency=2 "
      "itself and runs with 3 (--set wins over its set: entries)\n";
  const CliRun both = run_cli("run " + path + " --set workload.concurrency=3");
  ASSERT_EQ(both.rc, 0) << both.out;
  EXPECT_NE(both.out.find(warning), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("variant \"c4\" sets workload.concurrency=4 itself and runs with 3"), std::string::npos)
      << both.out;
  EXPECT_EQ(both.out.find("variant \"seeded\""), std::string::npos) << both.out;
  const CliRun json = run_cli("run --json " + path + " --set workload.concurrency=3", engramsim::test::Stderr::dropped);
  ASSERT_EQ(json.rc, 0) << json.out;
  EXPECT_EQ(json.out.find("warning:"), std::string::npos) << json.out;
  EXPECT_EQ(nlohmann::json::parse(json.out).at("variants").size(), 3u);
  // A key no variant sets, or a variant's own value: nothing to warn about.
  for (const char* set : {"workload.num_requests=4", "seed=7"}) {
    const CliRun quiet = run_cli("run " + path + " --set " + set);
    ASSERT_EQ(quiet.rc, 0) << quiet.out;
    EXPECT_EQ(quiet.out.find("warning:"), std::string::npos) << set << "\n" << quiet.out;
  }
}

TEST_F(RunCli, DoesNotFitExitsThree) {
  const std::string v41 =
      "name: big\nmodel: deepseek-v4.1-flash\nnode: hgx-b300\ndeployment:\n  replicas: 1\n  tp: 2\n"
      "  engram: {tier: hbm}\nworkload:\n  kind: closed_loop\n  concurrency: 1\n  num_requests: 1\n"
      "  input: {distribution: fixed, tokens: 8}\n  output: {distribution: fixed, tokens: 2}\n";
  const CliRun r = run_cli("run " + put("big.yaml", v41));
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("does not fit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over budget"), std::string::npos) << r.out;
  // With compare, the variant that fits still runs and prints; the exit code says one did not.
  const CliRun c =
      run_cli("run " + put("big2.yaml", v41 + "compare:\n  - name: dram\n    set: {deployment.engram.tier: dram}\n"
                                              "  - name: hbm\n    set: {deployment.engram.tier: hbm}\n"));
  EXPECT_EQ(c.rc, 3) << c.out;
  EXPECT_NE(c.out.find("1/1"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("variant hbm does not fit"), std::string::npos) << c.out;
}

TEST_F(RunCli, OutWritesTheRunFilesAndSloCheckExitsFour) {
  const std::string path = put("o.yaml", scenario("", "", "slo: {ttft_p99: 1us}\n"));
  const CliRun r = run_cli("run " + path + " --out " + dir_.file("out"));
  EXPECT_EQ(r.rc, 0) << r.out;  // an SLO miss is reported, not an error, without --check-slo
  EXPECT_NE(r.out.find("MISSED"), std::string::npos) << r.out;
  for (const char* f : {"summary.json", "requests.csv", "timeseries.csv", "scenario.json"})
    EXPECT_TRUE(std::filesystem::exists(dir_.file("out") + "/" + f)) << f;
  EXPECT_EQ(run_cli("run " + path + " --check-slo").rc, 4);
}

// An output path that is one of the run's inputs is refused before the run, and the input is left
// as it was: --trace-out onto the scenario, --out into the folder of a replayed requests.csv trace.
// The trace's folder is made when missing.
TEST_F(RunCli, OutputsNeverReplaceInputs) {
  const std::string text = scenario();
  const std::string file = put("victim.yaml", text);
  const CliRun r = run_cli("run " + file + " --trace-out " + file);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("would overwrite the input file"), std::string::npos) << r.out;
  EXPECT_EQ(engramsim::test::file_text(file), text);

  std::filesystem::create_directories(dir_.file("runs"));
  const std::string trace = put("runs/requests.csv", "arrival_s,input_tokens,output_tokens\n0.0,64,4\n0.5,64,4\n");
  const std::string replay = put("runs/replay.yaml", scenario("", "  kind: trace\n  trace: {path: requests.csv}\n"));
  const CliRun clash = run_cli("run " + replay + " --out " + dir_.file("runs"));
  EXPECT_EQ(clash.rc, 2) << clash.out;
  EXPECT_NE(clash.out.find(trace), std::string::npos) << clash.out;

  const CliRun fresh = run_cli("run " + file + " --trace-out " + dir_.file("new/folder/trace.json"));
  EXPECT_EQ(fresh.rc, 0) << fresh.out;
  EXPECT_TRUE(std::filesystem::exists(dir_.file("new/folder/trace.json"))) << fresh.out;
}

// --trace-out is a file name, checked as --out is: a folder (which with variants used to get
// "FOLDER-<variant>" files beside it) or a path under a file is refused before the run, and nothing
// is written.
TEST_F(RunCli, TraceOutMustNameAFile) {
  const std::string file = put("two.yaml", scenario() +
                                               "compare:\n  - name: a\n    set: {deployment.replicas: 1}\n"
                                               "  - name: b\n    set: {deployment.replicas: 2}\n");
  std::filesystem::create_directories(dir_.file("traces"));
  const CliRun folder = run_cli("run " + file + " --trace-out " + dir_.file("traces"));
  EXPECT_EQ(folder.rc, 2) << folder.out;
  EXPECT_NE(folder.out.find("--trace-out: " + dir_.file("traces") + " is a folder; give a file name"),
            std::string::npos)
      << folder.out;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("traces-a"))) << folder.out;
  const CliRun slash = run_cli("run " + file + " --trace-out " + dir_.file("fresh") + "/");
  EXPECT_EQ(slash.rc, 2) << slash.out;
  const std::string plain = put("plain.txt", "x");
  const CliRun under_file = run_cli("run " + file + " --trace-out " + plain + "/t.json");
  EXPECT_EQ(under_file.rc, 2) << under_file.out;
  EXPECT_NE(under_file.out.find(plain + " is a file, not a folder"), std::string::npos) << under_file.out;
}

// A trace is read again by every run, so a named pipe is refused at its key, at once: opening it
// used to wait for a writer (and a second open for a second one, for ever).
TEST_F(RunCli, TraceFromANamedPipeIsRefusedNotAwaited) {
  const std::string fifo = dir_.file("pipe.csv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string file = put("fifo.yaml", scenario("", "  kind: trace\n  trace: {path: pipe.csv}\n"));
  // Should the command open the pipe, a writer that comes and goes after 5 s ends each wait (with an
  // empty read) so that the test fails instead of hanging.
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int tick = 0; !done; ++tick) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (tick < 50) continue;
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) ::close(fd);
    }
  });
  const CliRun r = run_cli("run " + file);
  done = true;
  writer.join();
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("fifo.yaml:9:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("workload.trace.path"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is a pipe or FIFO"), std::string::npos) << r.out;
}

// A rate inside rate_per_s's range whose arrivals would outrun the nanosecond clock is refused at
// the key (it used to pass the schema and fail in the run without a location).
TEST_F(RunCli, ArrivalsPastTheClockAreRefusedAtTheRate) {
  const std::string file = put("slow.yaml", scenario("",
                                                     "  kind: open_loop\n"
                                                     "  arrival: {process: poisson, rate_per_s: 1e-9}\n"
                                                     "  num_requests: 8\n"
                                                     "  input: {distribution: fixed, tokens: 256}\n"
                                                     "  output: {distribution: fixed, tokens: 8}\n"));
  const CliRun r = run_cli("run " + file);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("slow.yaml:9:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("workload.arrival.rate_per_s"), std::string::npos) << r.out;
}

// A request whose prompt plus output exceeds max_model_len is refused on arrival (as an
// OpenAI-compatible server refuses it) and counted; the table shows the count.
TEST_F(RunCli, RequestsBeyondMaxModelLenAreRejected) {
  const CliRun j = run_cli("run --json " + put("mml.yaml", scenario("  max_model_len: 260\n")));
  ASSERT_EQ(j.rc, 0) << j.out;
  const auto summary = nlohmann::json::parse(j.out);
  EXPECT_EQ(summary.at("rejected").get<int>(), 8);  // 256 + 8 > 260
  EXPECT_EQ(summary.at("completed").get<int>(), 0);
  const CliRun fits = run_cli("run --json " + put("mml2.yaml", scenario("  max_model_len: 264\n")));
  ASSERT_EQ(fits.rc, 0) << fits.out;
  EXPECT_EQ(nlohmann::json::parse(fits.out).at("completed").get<int>(), 8);
  const CliRun table = run_cli("run " + dir_.file("mml.yaml"));
  EXPECT_NE(table.out.find("requests rejected"), std::string::npos) << table.out;
}

TEST_F(RunCli, GoldenWriteThenCheck) {
  const std::string path = put("g.yaml", scenario());
  const std::string golden = dir_.file("g.json");
  ASSERT_EQ(run_cli("run " + path + " --write-golden " + golden).rc, 0);
  EXPECT_EQ(run_cli("run " + path + " --check-golden " + golden).rc, 0);
  const CliRun changed = run_cli("run " + path + " --set workload.num_requests=9 --check-golden " + golden);
  EXPECT_EQ(changed.rc, 4) << changed.out;
  EXPECT_NE(changed.out.find("golden: run: completed 9 vs golden 8"), std::string::npos) << changed.out;
}

TEST_F(RunCli, DefaultScenarioRunsReduced) {
  const CliRun r = run_cli("run " + source_root() +
                           "/scenarios/default.yaml --set workload.concurrency=4 --set workload.num_requests=8 --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("variants").size(), 2u);
  EXPECT_EQ(j.at("variants")[0].at("name"), "tp4-hbm");
  EXPECT_EQ(j.at("variants")[1].at("summary").at("completed").get<int>(), 8);
  EXPECT_TRUE(j.at("ratios").contains("tp2-dram"));
}

TEST_F(RunCli, ValidateDetectsKindsAndFailsOnBadFiles) {
  const std::string root = source_root();
  const CliRun ok = run_cli("validate " + root + "/models/cards/deepseek-v4.1-flash.yaml " + root +
                            "/hardware/gpus/b300.yaml " + root + "/hardware/nodes/hgx-b300.yaml " + root +
                            "/scenarios/default.yaml " + put("mine.yaml", scenario()));
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("(model card)"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("(GPU preset)"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("(node preset)"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("default.yaml (scenario, 2 variants)"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("mine.yaml (scenario)"), std::string::npos) << ok.out;

  // Kind from the keys outside the catalog folders; one bad file fails the command.
  std::string gpu = engramsim::testing::read_file(root + "/hardware/gpus/h100-sxm.yaml");
  gpu.replace(gpu.find("hbm_bandwidth: \"3.35TB/s\""), 25, "hbm_bandwidth: 3350");
  const CliRun mixed = run_cli("validate " + put("gpu.yaml", gpu) + " " + put("broken.yaml", "a: [1\n") + " " +
                               put("bad.yaml", scenario("  tpp: 2\n")) + " " + put("what.yaml", "a: 1\n"));
  EXPECT_EQ(mixed.rc, 2) << mixed.out;
  EXPECT_NE(mixed.out.find("gpu.yaml:8:16: hbm_bandwidth"), std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("(GPU preset)"), std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("deployment.tpp"), std::string::npos) << mixed.out;  // checked after a broken file
  EXPECT_NE(mixed.out.find("broken.yaml:2:1: invalid YAML"), std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("what.yaml: cannot tell what kind of file this is"), std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("(unknown kind)"), std::string::npos) << mixed.out;
  // A first word that is no command says so, with the list.
  const CliRun unknown = run_cli("no-such-command");
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_NE(unknown.out.find("unknown command 'no-such-command' (commands: ask, calibrate"), std::string::npos)
      << unknown.out;
}

}  // namespace
