// `engramsim sweep`, `merge` and `report` through the real binary: results, pruning reasons and
// every chart; results independent of --jobs and of sharding; a run killed with SIGKILL and resumed
// writes the same results.jsonl as an uninterrupted one; bad input exits 2 and writes nothing.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim::planner::cli_testing {
namespace {

std::vector<std::string> sweep_args(const fs::path& out, const std::string& jobs, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {
      "sweep", data_file("tiny_sweep.yaml"), "--out", out.string(), "--jobs", jobs, "--progress", "none"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(CliSweep, EndToEndPrunesWithReasonsAndWritesEveryChart) {
  TempDir t;
  const fs::path dir = t / "run";
  const CliResult r = run_cli(sweep_args(dir, "2"), t.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  // The grid's 4 ok points, and 8 more that the rounds placed past the grid's end (a configuration
  // still faster than the target, tests/planner_cli/tiny_sweep.yaml: 200 tok/s/user) and between
  // the points bracketing it.
  EXPECT_NE(r.out.find("12 ok, 2 infeasible (pruned), 0 errors (8 of them added near the target interactivity)"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(fs::is_regular_file(dir / "refine" / "round-1" / "results.jsonl"));
  // The recommended configuration's engine command line, beside the report.
  EXPECT_EQ(read_file(dir / "serve-command.sh").rfind("#!/bin/sh\n", 0), 0u);
  EXPECT_NE(read_file(dir / "serve-command.sh").find("vllm serve "), std::string::npos);
  // The verdict is the first line.
  EXPECT_EQ(r.out.rfind("At 200 tok/s/user, ", 0), 0u) << r.out;

  const auto lines = lines_of(read_file(dir / "results.jsonl"));
  ASSERT_EQ(lines.size(), 6u);
  int infeasible = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j.at("index").get<std::size_t>(), i);
    if (j.at("assignments").at("node") == "hgx-h100") {
      ++infeasible;
      EXPECT_EQ(j.at("status"), "infeasible");
      EXPECT_NE(j.at("reason").get<std::string>().find("HBM over budget"), std::string::npos) << lines[i];
      EXPECT_FALSE(j.contains("result"));
    } else {
      EXPECT_EQ(j.at("status"), "ok") << lines[i];
      EXPECT_GT(j.at("result").at("throughput_per_gpu").get<double>(), 0.0);
      EXPECT_FALSE(j.at("result").at("samples").at("ttft_ms").empty());
    }
  }
  EXPECT_EQ(infeasible, 2);

  const std::string html = read_file(dir / "report.html");
  for (const char* chart : {"pareto", "tokens_per_dollar", "hbm_footprint", "ttft_cdf", "tpot_cdf", "engram_stall"}) {
    EXPECT_NE(html.find(std::string("id=\"chart-") + chart + "\""), std::string::npos) << chart;
    EXPECT_TRUE(fs::is_regular_file(dir / "charts" / (std::string(chart) + ".svg"))) << chart;
  }
  EXPECT_NE(html.find("Which of three tiny deployments"), std::string::npos);
  EXPECT_NE(html.find("HBM over budget"), std::string::npos) << "pruned points list their reason";
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  for (const char* f : {"report.md", "sweep.json", "context.json", "tables/points.csv", "tables/points.json",
                        "tables/comparison.csv", "tables/assumptions.csv"})
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;

  // `engramsim report` rebuilds the same bytes from the folder alone.
  const std::string md = read_file(dir / "report.md");
  fs::remove(dir / "report.html");
  fs::remove(dir / "report.md");
  const CliResult rr = run_cli({"report", dir.string()}, t.path());
  ASSERT_EQ(rr.code, 0) << describe(rr);
  EXPECT_EQ(read_file(dir / "report.html"), html);
  EXPECT_EQ(read_file(dir / "report.md"), md);
}

// `report --price-tier` re-prices a finished sweep without re-simulating: every point's price is its
// node's at the new tier, tokens per dollar scale by the price ratio, the results folder is left as
// it was, and a plan folder or the results' own folder as --out are refused.
TEST(CliReport, RepricesAFinishedSweepWithoutReSimulating) {
  TempDir t;
  const fs::path dir = t / "run";
  fs::copy(source_file("tests/planner/data/make-run"), dir, fs::copy_options::recursive);
  const std::string results = read_file(dir / "results.jsonl");
  const CliResult r = run_cli({"report", dir.string(), "--price-tier", "rental"}, t.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("serves the most tokens per dollar"), std::string::npos) << "the verdict first";
  EXPECT_NE(r.out.find("at rental catalog prices (nothing re-simulated)"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(dir / "results.jsonl"), results);
  EXPECT_FALSE(fs::exists(dir / "report.html")) << "the results' own report is not rewritten";

  const auto points = nlohmann::json::parse(read_file(dir / "priced-rental" / "tables" / "points.json"));
  ASSERT_FALSE(points.empty());
  int priced = 0;
  for (const auto& p : points) {
    if (p.at("status") != "ok") continue;
    ++priced;
    // B300's catalog prices: hyperscaler 2.26, rental 4.25 $/GPU-hour; these points add no Engram
    // capital (HBM) or little (DRAM), so the all-in price is the rental one within a cent.
    EXPECT_NEAR(p.at("usd_per_gpu_hour").get<double>(), 4.25, 0.02) << p;
    const double expect =
        p.at("throughput_tok_per_s_per_gpu").get<double>() * 3600.0 / p.at("usd_per_gpu_hour").get<double>() / 1e6;
    EXPECT_NEAR(p.at("m_tokens_per_usd").get<double>(), expect, 0.01 * expect) << p;
  }
  EXPECT_GT(priced, 10);
  EXPECT_NE(read_file(dir / "priced-rental" / "report.md").find("Re-priced from hyperscaler to rental"),
            std::string::npos);

  const CliResult own = run_cli({"report", dir.string(), "--price-tier", "rental", "--out", dir.string()}, t.path());
  EXPECT_EQ(own.code, 2) << describe(own);
  EXPECT_NE(own.err.find("--out"), std::string::npos) << own.err;
  const CliResult stray = run_cli({"report", dir.string(), "--out", (t / "x").string()}, t.path());
  EXPECT_EQ(stray.code, 2) << describe(stray);

  // A point whose node has no preset is refused by name, and nothing is written.
  const fs::path odd = t / "odd";
  fs::copy(source_file("tests/planner/data/make-run"), odd, fs::copy_options::recursive);
  std::string lines = read_file(odd / "results.jsonl");
  lines.replace(lines.find("\"node\":\"hgx-b300\""), std::string("\"node\":\"hgx-b300\"").size(),
                "\"node\":\"my-node\"");
  write_file(odd / "results.jsonl", lines);
  const CliResult unknown = run_cli({"report", odd.string(), "--price-tier", "rental"}, t.path());
  EXPECT_EQ(unknown.code, 2) << describe(unknown);
  EXPECT_NE(unknown.err.find("my-node: node: the results ran on this node"), std::string::npos) << unknown.err;
  EXPECT_FALSE(fs::exists(odd / "priced-rental"));

  auto ctx = nlohmann::json::parse(read_file(dir / "context.json"));
  ctx["extra_tables"] = nlohmann::json::array(
      {{{"name", "fleet_plans"}, {"title", "Fleets"}, {"columns", {"fleet"}}, {"rows", {{"1 x TP2"}}}}});
  write_file(dir / "context.json", ctx.dump());
  const CliResult plan = run_cli({"report", dir.string(), "--price-tier", "neocloud"}, t.path());
  EXPECT_EQ(plan.code, 2) << describe(plan);
  EXPECT_NE(plan.err.find("plan folder"), std::string::npos) << plan.err;
  EXPECT_FALSE(fs::exists(dir / "priced-neocloud"));
}

// Progress lines name each refinement round and what it adds.
TEST(CliSweep, ProgressLinesPerRefinementRound) {
  TempDir t;
  const CliResult r = run_cli(
      {"sweep", data_file("tiny_sweep.yaml"), "--out", (t / "run").string(), "--jobs", "2", "--progress", "lines"},
      t.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.err.find("refinement round 1: 2 points near 200 tok/s/user (1 between points bracketing it, 1 past "
                       "the grid's ends)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("refinement round 3: 1 point near"), std::string::npos) << r.err;
}

TEST(CliSweep, JobsDoNotChangeResults) {
  TempDir t;
  const std::vector<std::string> more = {"--set", "sweep.axes.1.values=[1, 2, 4, 8, 16]"};
  const CliResult a = run_cli(sweep_args(t / "a", "1", more), t.path());
  ASSERT_EQ(a.code, 0) << describe(a);
  const CliResult b = run_cli(sweep_args(t / "b", "2", more), t.path());
  ASSERT_EQ(b.code, 0) << describe(b);
  const std::string ra = read_file(t / "a" / "results.jsonl");
  EXPECT_EQ(lines_of(ra).size(), 15u);
  EXPECT_EQ(ra, read_file(t / "b" / "results.jsonl"));
  EXPECT_EQ(read_file(t / "a" / "report.md"), read_file(t / "b" / "report.md"));
}

// `ask`: a one-line question writes its sweep scenario and answers it as `sweep` does; an unknown
// GPU is a clear error with a suggestion, and nothing is written.
TEST(CliAsk, OneLineQuestionWritesItsScenarioAndAnswersFirst) {
  TempDir t;
  const fs::path dir = t / "ask";
  const std::vector<std::string> ask = {"ask",
                                        "--model",
                                        "llama-3.1-8b",
                                        "--gpus",
                                        "h100,b200",
                                        "--workload",
                                        "1k/128",
                                        "--target-interactivity",
                                        "100",
                                        "--tp",
                                        "1,2",
                                        "--concurrency",
                                        "2,8,32",
                                        "--requests",
                                        "32",
                                        "--out",
                                        dir.string(),
                                        "--jobs",
                                        "2",
                                        "--progress",
                                        "none"};
  const CliResult r = run_cli(ask, t.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.out.rfind("At 100 tok/s/user, ", 0), 0u) << r.out;
  const std::string q = read_file(dir / "question.yaml");
  EXPECT_NE(q.find("{key: node, values: [hgx-h100, hgx-b200]}"), std::string::npos) << q;
  // The layout it asks about is stated in the question and set in the scenario.
  EXPECT_NE(q.find("tok/s/user (attention automatic, EP automatic)?"), std::string::npos) << q;
  EXPECT_NE(q.find("  attention: automatic\n  ep: 0\n"), std::string::npos) << q;
  EXPECT_TRUE(fs::is_regular_file(dir / "report.html"));
  EXPECT_TRUE(fs::is_regular_file(dir / "serve-command.sh"));
  // --resume goes on with the same question; another question leaves the folder's untouched.
  const std::vector<std::string> again = ask;
  std::vector<std::string> resumed = again;
  resumed.push_back("--resume");
  const CliResult r2 = run_cli(resumed, t.path());
  EXPECT_EQ(r2.code, 0) << describe(r2);
  EXPECT_NE(r2.out.find("already done, 0 evaluated now"), std::string::npos) << r2.out;
  std::vector<std::string> other = again;
  other[8] = "90";  // another target interactivity
  const CliResult r3 = run_cli(other, t.path());
  EXPECT_EQ(r3.code, 2) << describe(r3);
  EXPECT_NE(r3.err.find("asks another question"), std::string::npos) << r3.err;
  EXPECT_EQ(read_file(dir / "question.yaml"), q);
  const CliResult bad = run_cli({"ask", "--model", "llama-3.1-8b", "--gpus", "b2000", "--target-interactivity", "100",
                                 "--out", (t / "bad").string()},
                                t.path());
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("did you mean b200?"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(t / "bad"));
  EXPECT_EQ(run_cli({"ask", "--model", "llama-3.1-8b", "--gpus", "b200", "--workload", "8k-1k",
                     "--target-interactivity", "100", "--out", (t / "bad2").string()},
                    t.path())
                .code,
            2);
}

// --disaggregated: each deployment is also asked as xPyD units of its replicas, on one deployment
// axis; a ratio that is not two replica counts is an error at the flag, nothing written.
TEST(CliAsk, DisaggregatedRatiosJoinTheQuestion) {
  TempDir t;
  const fs::path dir = t / "ask";
  const CliResult r = run_cli({"ask",
                               "--model",
                               "llama-3.1-8b",
                               "--gpus",
                               "h100",
                               "--workload",
                               "1k/128",
                               "--target-interactivity",
                               "100",
                               "--tp",
                               "1",
                               "--disaggregated",
                               "1:1,1:3",
                               "--concurrency",
                               "2,8",
                               "--requests",
                               "32",
                               "--out",
                               dir.string(),
                               "--jobs",
                               "2",
                               "--progress",
                               "none"},
                              t.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string q = read_file(dir / "question.yaml");
  EXPECT_NE(q.find("    - key: deployment\n      values:\n        - {replicas: 1, tp: 1,"), std::string::npos) << q;
  EXPECT_NE(q.find("{kind: disaggregated, prefill: {replicas: 1, tp: 1,"), std::string::npos) << q;
  EXPECT_NE(q.find("decode: {replicas: 3, tp: 1,"), std::string::npos) << q;
  EXPECT_NE(q.find("colocated or prefill:decode [1:1, 1:3]"), std::string::npos) << q;
  EXPECT_EQ(q.find("key: deployment.tp"), std::string::npos) << q;
  EXPECT_NE(read_file(dir / "results.jsonl").find("\"kind\":\"disaggregated\""), std::string::npos);
  const CliResult bad = run_cli({"ask", "--model", "llama-3.1-8b", "--gpus", "h100", "--target-interactivity", "100",
                                 "--disaggregated", "1-2", "--out", (t / "bad").string()},
                                t.path());
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("expected prefill:decode replica counts such as 1:2"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(t / "bad"));
}

// Nothing fits (V4.1 on H100 below TP8): infeasible is not an SLO miss. The answer says so first and
// names the term that keeps each deployment out, and the exit code is footprint's 3, not 4.
TEST(CliAsk, NothingFitsExitsThreeNamingTheTerm) {
  TempDir t;
  const CliResult r = run_cli(
      {"ask", "--model", "deepseek-v4.1-flash", "--gpus", "h100", "--tp", "1,2", "--workload", "1k/128",
       "--target-interactivity", "100", "--concurrency", "1,4", "--out", (t / "ask").string(), "--progress", "none"},
      t.path());
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_EQ(r.out.rfind("Nothing fits: every deployment asked for is infeasible", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("HBM over budget"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("largest term: weights"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_regular_file(t / "ask" / "report.html"));  // the report lists every reason
}

// --duration is workload.duration: a time with its unit, as the scenario writes it ("10min" too). A
// bare number or a value out of range is an error at the flag, exit 2, before question.yaml is
// written (it used to fail at a line of that file, which then held the folder for that question).
TEST(CliAsk, DurationTakesUnitsAndRefusesABareNumberAtTheFlag) {
  TempDir t;
  const auto ask = [&](const std::string& duration, const std::string& out) {
    return run_cli({"ask",
                    "--model",
                    "deepseek-v4.1-flash",
                    "--gpus",
                    "b300",
                    "--workload",
                    "agentx",
                    "--target-interactivity",
                    "100",
                    "--tp",
                    "4",
                    "--engram-tiers",
                    "hbm",
                    "--concurrency",
                    "1",
                    "--duration",
                    duration,
                    "--out",
                    (t / out).string(),
                    "--progress",
                    "none"},
                   t.path());
  };
  const CliResult bare = ask("600", "bare");
  EXPECT_EQ(bare.code, 2) << describe(bare);
  EXPECT_NE(bare.err.find("error: --duration: workload.duration: expected a time like"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("a unit is required"), std::string::npos) << bare.err;
  EXPECT_FALSE(fs::exists(t / "bare"));
  const CliResult zero = ask("0s", "zero");
  EXPECT_EQ(zero.code, 2) << describe(zero);
  EXPECT_NE(zero.err.find("error: --duration: workload.duration: must be a time in [1ns, 604800s]"), std::string::npos)
      << zero.err;
  EXPECT_FALSE(fs::exists(t / "zero"));
  const CliResult minutes = ask("10min", "minutes");
  ASSERT_EQ(minutes.code, 0) << describe(minutes);
  EXPECT_NE(read_file(t / "minutes" / "question.yaml").find("  duration: 10min\n"), std::string::npos);
}

TEST(CliSweep, ShardsMergeIntoTheSingleProcessFile) {
  TempDir t;
  // Shards stop at the grid: the reference does too.
  const CliResult ref = run_cli(sweep_args(t / "ref", "2", {"--refine-rounds", "0"}), t.path());
  ASSERT_EQ(ref.code, 0) << describe(ref);
  const fs::path dir = t / "sharded";
  const CliResult s0 = run_cli(sweep_args(dir, "1", {"--shard", "0/2"}), t.path());
  ASSERT_EQ(s0.code, 0) << describe(s0);
  EXPECT_TRUE(fs::is_regular_file(dir / "results.shard-0-of-2.jsonl"));
  // Half the points are missing until the other shard has run: merge says which on one line, exit 4.
  const CliResult early = run_cli({"merge", dir.string(), "--shards", "2"}, t.path());
  EXPECT_EQ(early.code, 4) << describe(early);
  EXPECT_EQ(std::count(early.err.begin(), early.err.end(), '\n'), 1) << early.err;
  EXPECT_NE(early.err.find("3 points are still missing: 1 3 5"), std::string::npos) << early.err;
  const CliResult s1 = run_cli(sweep_args(dir, "1", {"--shard", "1/2"}), t.path());
  ASSERT_EQ(s1.code, 0) << describe(s1);
  const CliResult m = run_cli({"merge", dir.string(), "--shards", "2"}, t.path());
  ASSERT_EQ(m.code, 0) << describe(m);
  EXPECT_EQ(read_file(dir / "results.jsonl"), read_file(t / "ref" / "results.jsonl"));
  EXPECT_EQ(read_file(dir / "report.md"), read_file(t / "ref" / "report.md"));
}

std::size_t line_count(const fs::path& p) {
  const std::string s = read_file(p);
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(CliSweep, ResumeAfterSigkillMatchesAnUninterruptedRun) {
  TempDir t;
  // 12 points, 8 of them simulated (2,000 requests each, a fraction of a second per point).
  const std::vector<std::string> size = {"--set", "workload.num_requests=2000", "--set",
                                         "sweep.axes.1.values=[8, 16, 32, 64]"};
  const CliResult ref = run_cli(sweep_args(t / "ref", "1", size), t.path());
  ASSERT_EQ(ref.code, 0) << describe(ref);
  const std::string expected = read_file(t / "ref" / "results.jsonl");
  ASSERT_EQ(lines_of(expected).size(), 12u);

  const fs::path dir = t / "killed";
  const auto args = sweep_args(dir, "1", size);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char*> argv;
    const std::string bin = engramsim::test::cli_path();
    argv.push_back(const_cast<char*>(bin.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  // Kill it once two points are in, from outside and without warning.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::size_t at_kill = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    at_kill = line_count(dir / "results.jsonl");
    if (at_kill >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep finished before it could be killed; make its points slower";
  const std::size_t left = line_count(dir / "results.jsonl");
  ASSERT_GE(left, 2u);
  ASSERT_LT(left, 12u) << "the kill did not land midway";

  // Without --resume the folder is refused rather than overwritten.
  const CliResult refused = run_cli(args, t.path());
  EXPECT_NE(refused.code, 0) << describe(refused);
  EXPECT_EQ(line_count(dir / "results.jsonl"), left);

  std::vector<std::string> resume = sweep_args(dir, "2", size);
  resume.push_back("--resume");
  const CliResult r = run_cli(resume, t.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find(std::to_string(left) + " already done"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(dir / "results.jsonl"), expected);
  EXPECT_EQ(read_file(dir / "report.md"), read_file(t / "ref" / "report.md"));

  // A resumed run refuses results of a different sweep (another seed changes the fingerprint).
  std::vector<std::string> other = resume;
  other.insert(other.end(), {"--set", "seed=77"});
  const CliResult mismatch = run_cli(other, t.path());
  EXPECT_NE(mismatch.code, 0) << describe(mismatch);
  EXPECT_EQ(read_file(dir / "results.jsonl"), expected);
}

// A measured profile minimal enough for a test: HBM copy traffic on one GPU.
std::string gpu_profile(const std::string& gpu, const std::string& copy_traffic) {
  return "schema: engramsim-calibration/1\nname: t\nprovenance:\n  host: h\n  cpu_model: c\n  cpu_threads: 2\n"
         "  gpu: \"" +
         gpu +
         "\"\n  date: \"2026-11-20T10:11:12Z\"\n  engramsim_version: \"0.1.0\"\n"
         "hbm:\n  buffer_size: 1GiB\n  copy_traffic: " +
         copy_traffic + "\n";
}

double output_tput(const fs::path& results, std::size_t index) {
  return nlohmann::json::parse(lines_of(read_file(results))[index])
      .at("result")
      .at("output_throughput_per_gpu")
      .get<double>();
}

TEST(CliSweep, CalibrationAppliesToThePointsOnItsGpu) {
  TempDir t;
  const fs::path slow = t / "b300-slow.yaml";
  write_file(slow, gpu_profile("NVIDIA B300", "2TB/s"));  // well below the preset's 8 TB/s
  const CliResult base = run_cli(sweep_args(t / "base", "2"), t.path());
  ASSERT_EQ(base.code, 0) << describe(base);
  const CliResult cal = run_cli(sweep_args(t / "cal", "2", {"--calibration", slow.string()}), t.path());
  ASSERT_EQ(cal.code, 0) << describe(cal);
  // Point 0 (B300 TP4, HBM tier) decodes slower with a quarter of the HBM bandwidth.
  EXPECT_LT(output_tput(t / "cal" / "results.jsonl", 0), 0.8 * output_tput(t / "base" / "results.jsonl", 0));
  const auto ctx = nlohmann::json::parse(read_file(t / "cal" / "context.json"));
  EXPECT_EQ(ctx.at("calibration_profile"), slow.string());
  EXPECT_NE(read_file(t / "cal" / "report.md").find(slow.string()), std::string::npos);
  // The report lists what the profile changed, as `run` does: the sections its points applied.
  const std::string applied = slow.string() + ": applied ";
  EXPECT_NE(read_file(t / "cal" / "report.md").find(applied + "hbm"), std::string::npos)
      << read_file(t / "cal" / "report.md");
  EXPECT_NE(read_file(t / "cal" / "report.html").find(applied + "hbm"), std::string::npos);

  // Resuming with another profile is refused: it would mix results of two calibrations.
  const fs::path other = t / "b300-other.yaml";
  write_file(other, gpu_profile("NVIDIA B300", "3TB/s"));
  const std::string before = read_file(t / "cal" / "results.jsonl");
  const CliResult mixed = run_cli(sweep_args(t / "cal", "2", {"--resume", "--calibration", other.string()}), t.path());
  EXPECT_NE(mixed.code, 0) << describe(mixed);
  EXPECT_EQ(read_file(t / "cal" / "results.jsonl"), before);

  // A host-only profile beside the B300 one: the B300 points take their GPU's own, the others the
  // host profile; the order of the flags does not change the fingerprint.
  const fs::path host = t / "host.yaml";
  write_file(host,
             "schema: engramsim-calibration/1\nname: h\nprovenance:\n  host: h\n  cpu_model: c\n  cpu_threads: 2\n"
             "  date: \"2026-11-20T10:11:12Z\"\n  engramsim_version: \"0.1.0\"\n"
             "memcpy:\n  buffer_size: 64MiB\n  points:\n    - {threads: 1, traffic: 10GB/s}\n");
  const CliResult both =
      run_cli(sweep_args(t / "both", "2", {"--calibration", host.string(), "--calibration", slow.string()}), t.path());
  ASSERT_EQ(both.code, 0) << describe(both);
  EXPECT_DOUBLE_EQ(output_tput(t / "both" / "results.jsonl", 0), output_tput(t / "cal" / "results.jsonl", 0));
  const CliResult reordered =
      run_cli(sweep_args(t / "both", "2", {"--resume", "--calibration", slow.string(), "--calibration", host.string()}),
              t.path());
  EXPECT_EQ(reordered.code, 0) << describe(reordered);

  // A profile no point can use, or two for one GPU: bad input, nothing written.
  const fs::path h200 = t / "h200.yaml";
  write_file(h200, gpu_profile("NVIDIA H200", "4TB/s"));
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {sweep_args(t / "x", "1", {"--calibration", h200.string()}), "applies to no point of the sweep"},
      {sweep_args(t / "x", "1",
                  {"--set", "sweep.axes=[{key: workload.concurrency, values: [2]}]", "--calibration", host.string(),
                   "--calibration", slow.string()}),
       "host.yaml applies to no point of the sweep: on b300 it is outranked by"},
      {sweep_args(t / "x", "1", {"--calibration", slow.string(), "--calibration", other.string()}),
       "both apply to GPU"},
      {sweep_args(t / "x", "1", {"--calibration", (t / "absent.yaml").string()}), "absent.yaml"},
  };
  for (const auto& [args, needle] : cases) {
    const CliResult r = run_cli(args, t.path());
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(t / "x")) << r.err;
  }
}

TEST(CliSweep, BadInputExitsTwoAndWritesNothing) {
  TempDir t;
  const fs::path dir = t / "out";
  const std::string typo_report = (t / "typo.yaml").string();
  write_file(typo_report, read_file(data_file("tiny_sweep.yaml")) + "    titel: x\n");
  std::string zero_block = read_file(data_file("tiny_sweep.yaml"));
  zero_block.replace(zero_block.find("block_size: 64"), 14, "block_size: 0");
  const std::string bad_base = (t / "zero_block.yaml").string();
  write_file(bad_base, zero_block);
  const fs::path bad_trace = t / "bad.csv";  // its sixth line is damaged; only the second point reaches it
  write_file(bad_trace, "arrival_s,input_tokens,output_tokens\n0,10,5\n1,10,5\n2,10,5\n3,10,5\n4,1x,5\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"sweep", (t / "missing.yaml").string(), "--out", dir.string()}, "missing.yaml"},
      {sweep_args(dir, "1", {"--set", "sweep.axes.1.key=workload.concurency"}), "concurency"},
      {sweep_args(dir, "1", {"--set", "sweep.axes.1.values=[2, 0]"}), "sweep point 1"},
      {sweep_args(dir, "1", {"--set", "deployment.tpp=2"}), "tpp"},
      {sweep_args(dir, "1", {"--set", "deployment.scheduler.block_size=0"}), "--set: deployment.scheduler.block_size"},
      {sweep_args(dir, "1", {"--shard", "3/2"}), "--shard"},
      {sweep_args(dir, "1",
                  {"--set", "workload={kind: trace, trace: {path: " + bad_trace.string() + "}, num_requests: 2}",
                   "--set", "sweep.axes=[{key: workload.num_requests, values: [2, 10]}]"}),
       "bad.csv:6:3: input_tokens: not an integer"},
      {{"sweep", typo_report, "--out", dir.string()}, "titel"},
      // A bad value that is not swept is located where the file holds it.
      {{"sweep", bad_base, "--out", dir.string()}, "zero_block.yaml:20:17: deployment.scheduler.block_size"},
      {{"sweep", data_file("tiny_sweep.yaml")}, "--out"},
      {{"report", (t / "nothing").string()}, "not a folder"},
      {{"merge", t.path().string(), "--shards", "2"}, "sweep.json"},
  };
  for (const auto& [args, needle] : cases) {
    const CliResult r = run_cli(args, t.path());
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(dir)) << "bad input left an output folder behind: " << r.err;
  }
}

// Inputs that coverage-guided fuzzing found crashing or exhausting memory: each is now a located
// error, exit 2, with nothing written (issue: sweep aborted on a worker thread, a non-scalar map
// key leaked a yaml-cpp exception, a non-UTF-8 title ended the sweep without a report, merge
// allocated for a total_points of 1e14).
TEST(CliSweep, FuzzFindingsAreLocatedErrors) {
  TempDir t;
  const fs::path dir = t / "out";
  const std::string tiny = read_file(data_file("tiny_sweep.yaml"));
  const std::string non_scalar_value = (t / "nonscalar-value.yaml").string();
  write_file(non_scalar_value, read_file(source_file("scenarios/default.yaml")) +
                                   "sweep: {axes: [{key: compare, values: [{[a]: 1}]}]}\n");
  const std::string non_scalar_set = (t / "nonscalar-set.yaml").string();
  std::string with_compare = tiny.substr(0, tiny.find("sweep:"));
  write_file(non_scalar_set, with_compare + "compare: [{name: a, set: {[x]: 1}}]\n");
  std::string bad_title = tiny;
  bad_title.replace(bad_title.find("\"tiny sweep\""), 12, "\"tiny \xff sweep\"");
  const std::string non_utf8 = (t / "non-utf8.yaml").string();
  write_file(non_utf8, bad_title);
  const fs::path merge_dir = t / "merge";
  fs::create_directories(merge_dir);
  write_file(merge_dir / "sweep.json", "{\"total_points\": 1e14, \"axes\": [\"a\"]}\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"sweep", non_scalar_value, "--out", dir.string(), "--progress", "none"}, "nonscalar-value.yaml:"},
      {{"run", non_scalar_set, "--out", dir.string()}, "nonscalar-set.yaml:34:"},
      {{"validate", non_scalar_set}, "a map key must be a plain name"},
      {{"sweep", non_utf8, "--out", dir.string(), "--progress", "none"}, "non-utf8.yaml:42:12: sweep.report.title"},
      {sweep_args(dir, "1", {"--set", "sweep.report.title={[a]: 1}"}), "--set: sweep.report.title"},
      {{"merge", merge_dir.string(), "--shards", "2"}, "total_points"},
  };
  for (const auto& [args, needle] : cases) {
    const CliResult r = run_cli(args, t.path());
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(dir)) << "bad input left an output folder behind: " << r.err;
  }
}

}  // namespace
}  // namespace engramsim::planner::cli_testing

namespace engramsim::planner::cli_testing {
namespace {

// A GPU names its node the same way on every command, whatever its case: footprint and step take
// --node B200 as ask takes --gpus b200.
TEST(CliNodes, OneNodeResolutionOnEveryCommandCaseInsensitive) {
  TempDir t;
  const CliResult f = run_cli({"footprint", "--model", "deepseek-v4.1-flash", "--node", "B200", "--tp", "4"}, t.path());
  EXPECT_EQ(f.code, 0) << describe(f);
  EXPECT_NE(f.out.find("on hgx-b200"), std::string::npos) << f.out;
  const CliResult s = run_cli({"step", "--model", "deepseek-v4.1-flash", "--node", "h200", "--tp", "8", "--decode-seqs",
                               "1", "--context", "1024"},
                              t.path());
  EXPECT_EQ(s.code, 0) << describe(s);
  EXPECT_NE(s.out.find("on hgx-h200"), std::string::npos) << s.out;
  const CliResult bad = run_cli({"step", "--model", "deepseek-v4.1-flash", "--node", "B2000", "--tp", "4",
                                 "--decode-seqs", "1", "--context", "1024"},
                                t.path());
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("did you mean b200?"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace engramsim::planner::cli_testing
