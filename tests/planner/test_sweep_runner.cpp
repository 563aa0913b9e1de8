#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "planner/results_file.hpp"
#include "planner/sweep_runner.hpp"
#include "planner_test_util.hpp"

using namespace engramsim;
using namespace engramsim::planner;
using namespace engramsim::planner::testing;
namespace fs = std::filesystem;

namespace {

SweepRunOptions quiet(const fs::path& dir, int jobs = 1) {
  SweepRunOptions o;
  o.out_dir = dir;
  o.jobs = jobs;
  o.progress = ProgressMode::none;
  o.fingerprint = "small-v1";
  return o;
}

// A reference run with one job; returns the canonical file's text.
std::string reference_run(const fs::path& dir) {
  const auto pts = small_sweep();
  run_sweep(
      pts, [](const SweepPoint& p) { return evaluate_small(p); }, quiet(dir));
  return read_file(results_path(dir));
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

}  // namespace

TEST(SweepRunner, FileIsCanonicalAndIndependentOfJobs) {
  TempDir t;
  const auto pts = small_sweep();
  const std::string one = reference_run(t / "one");
  auto o = quiet(t / "four", 4);
  const auto s = run_sweep(
      pts, [](const SweepPoint& p) { return evaluate_small(p, 1); }, o);
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(s.evaluated, 36u);
  EXPECT_EQ(s.infeasible, 2u);
  EXPECT_EQ(s.errors, 1u);
  EXPECT_EQ(read_file(results_path(t / "four")), one);
  const auto lines = split_lines(one);
  ASSERT_EQ(lines.size(), 36u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto l = ResultLine::from_json(nlohmann::json::parse(lines[i]));
    EXPECT_EQ(l.index, i);
    EXPECT_EQ(l.id, pts[i].id);
  }
  const auto err = ResultLine::from_json(nlohmann::json::parse(lines[35]));
  EXPECT_EQ(err.status, PointStatus::error);
  EXPECT_EQ(err.error, "simulated failure");
  const auto inf = ResultLine::from_json(nlohmann::json::parse(lines[4]));
  EXPECT_EQ(inf.status, PointStatus::infeasible);
  EXPECT_EQ(inf.reason, "HBM: KV pool short by 16 GiB");
  // The manifest describes the sweep.
  const auto m = read_manifest(t / "one");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total_points, 36u);
  EXPECT_EQ(m->axes, (std::vector<std::string>{"deployment.tp", "deployment.engram_tier", "workload.concurrency"}));
}

TEST(SweepRunner, PrunedPointsAreRecordedAndNeverEvaluated) {
  TempDir t;
  auto o = quiet(t.path(), 2);
  o.prune = [](const SweepPoint& p) -> std::optional<std::string> {
    if (p.assignments_json()["deployment.engram_tier"] == "ssd") return "SSD tier disabled for this study";
    return std::nullopt;
  };
  std::atomic<int> ssd_evaluations{0};
  const auto s = run_sweep(
      small_sweep(),
      [&](const SweepPoint& p) {
        if (p.assignments_json()["deployment.engram_tier"] == "ssd") ++ssd_evaluations;
        return evaluate_small(p);
      },
      o);
  EXPECT_EQ(ssd_evaluations.load(), 0);
  EXPECT_EQ(s.infeasible, 2u + 12u);
  EXPECT_EQ(s.errors, 0u);
  const auto r = read_results_file(results_path(t.path()));
  EXPECT_EQ(r.lines[2 * 6 + 0].reason, "SSD tier disabled for this study");
}

// A sweep run in stages (select), each later stage resuming the file, leaves the stage's other
// points for later and ends with the file a single run writes.
TEST(SweepRunner, StagesBySelectEndWithTheSingleRunsFile) {
  TempDir t;
  const auto pts = small_sweep();
  const std::string expected = reference_run(t / "ref");
  std::atomic<int> evaluations{0};
  const auto evaluate = [&](const SweepPoint& p) {
    ++evaluations;
    return evaluate_small(p);
  };
  bool first = true;
  for (const char* tier : {"dram", "hbm", "ssd"}) {
    auto o = quiet(t / "staged", 2);
    o.resume = !first;
    o.select = [tier](const SweepPoint& p) { return p.assignments_json()["deployment.engram_tier"] == tier; };
    const auto s = run_sweep(pts, evaluate, o);
    EXPECT_EQ(s.evaluated, 12u) << tier;
    EXPECT_EQ(s.complete, std::string(tier) == "ssd") << tier;
    EXPECT_FALSE(s.stopped) << tier;
    first = false;
  }
  EXPECT_EQ(evaluations.load(), 36);
  EXPECT_EQ(read_file(results_path(t / "staged")), expected);
}

// SIGINT/SIGTERM reach the runner as `stop`: once it says so no point starts, the ones in flight
// are written whole, and --resume finishes the file as an uninterrupted run would have.
TEST(SweepRunner, AStopRequestEndsAtAPointBoundaryAndResumeFinishes) {
  TempDir t;
  const auto pts = small_sweep();
  const std::string expected = reference_run(t / "ref");
  std::atomic<int> started{0};
  auto o = quiet(t / "stopped", 4);
  o.stop = [&started] { return started.load() >= 10; };
  const auto s = run_sweep(
      pts,
      [&started](const SweepPoint& p) {
        ++started;
        return evaluate_small(p, 1);
      },
      o);
  EXPECT_FALSE(s.complete);
  EXPECT_TRUE(s.stopped);
  EXPECT_GE(s.evaluated, 10u);
  EXPECT_LT(s.evaluated, pts.size());
  const std::string partial = read_file(results_path(t / "stopped"));
  ASSERT_FALSE(partial.empty());
  EXPECT_EQ(partial.back(), '\n');
  EXPECT_EQ(split_lines(partial).size(), s.evaluated);

  auto again = quiet(t / "stopped", 2);
  again.resume = true;
  const auto r = run_sweep(
      pts, [](const SweepPoint& p) { return evaluate_small(p); }, again);
  EXPECT_TRUE(r.complete);
  EXPECT_FALSE(r.stopped);
  EXPECT_EQ(r.already_done, s.evaluated);
  EXPECT_EQ(read_file(results_path(t / "stopped")), expected);
}

TEST(SweepRunner, RefusesToOverwriteWithoutResume) {
  TempDir t;
  reference_run(t.path());
  const std::string before = read_file(results_path(t.path()));
  try {
    run_sweep(
        small_sweep(), [](const SweepPoint& p) { return evaluate_small(p); }, quiet(t.path()));
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(results_path(t.path())), before);
}

TEST(SweepRunner, ResumeAfterTornFileEqualsUninterruptedRun) {
  TempDir t;
  const std::string ref = reference_run(t / "ref");
  auto lines = split_lines(ref);
  // An interrupted run: 10 lines in completion (not index) order, then half a line.
  std::vector<std::string> done(lines.begin(), lines.begin() + 10);
  std::mt19937 rng(7);
  std::shuffle(done.begin(), done.end(), rng);
  std::string partial;
  for (const auto& l : done) partial += l + "\n";
  partial += lines[20].substr(0, lines[20].size() / 2);
  fs::create_directories(t / "cut");
  write_file(t / "cut/results.jsonl", partial);
  fs::copy_file(t / "ref/sweep.json", t / "cut/sweep.json");

  std::atomic<int> calls{0};
  std::set<std::size_t> evaluated;
  std::mutex mu;
  auto o = quiet(t / "cut", 3);
  o.resume = true;
  const auto s = run_sweep(
      small_sweep(),
      [&](const SweepPoint& p) {
        ++calls;
        std::lock_guard<std::mutex> lock(mu);
        evaluated.insert(p.index);
        return evaluate_small(p);
      },
      o);
  EXPECT_EQ(s.already_done, 10u);
  EXPECT_EQ(s.evaluated, 26u);
  EXPECT_EQ(calls.load(), 26);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(evaluated.count(i), 0u) << i;
  EXPECT_EQ(read_file(t / "cut/results.jsonl"), ref);
  // Resuming a finished sweep evaluates nothing and leaves the file as it is.
  calls = 0;
  run_sweep(
      small_sweep(),
      [&](const SweepPoint& p) {
        ++calls;
        return evaluate_small(p);
      },
      o);
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(read_file(t / "cut/results.jsonl"), ref);
}

TEST(SweepRunner, ResumeRejectsAnotherSweepsFiles) {
  TempDir t;
  reference_run(t.path());
  auto o = quiet(t.path());
  o.resume = true;
  o.fingerprint = "another scenario";
  EXPECT_THROW(run_sweep(
                   small_sweep(), [](const SweepPoint& p) { return evaluate_small(p); }, o),
               std::runtime_error);
  // Same manifest, but a line whose id is not the point at its index.
  o.fingerprint = "small-v1";
  auto lines = split_lines(read_file(results_path(t.path())));
  auto j = nlohmann::json::parse(lines[3]);
  j["id"] = "0123456789abcdef";
  write_file(results_path(t.path()), lines[0] + "\n" + j.dump() + "\n");
  try {
    run_sweep(
        small_sweep(), [](const SweepPoint& p) { return evaluate_small(p); }, o);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("different sweep"), std::string::npos) << e.what();
  }
}

// A second sweep on a folder another sweep owns is refused before it writes anything: its
// sweep.json stays the first sweep's, byte for byte (issue 47; the lock was once taken after the
// manifest was written). The first sweep holds the folder while its only point is being evaluated.
TEST(SweepRunner, ASecondSweepOnALockedFolderChangesNothing) {
  TempDir t;
  std::atomic<bool> entered{false}, release{false};
  auto first = quiet(t.path());
  std::thread owner([&] {
    run_sweep(
        {small_sweep().front()},
        [&](const SweepPoint& p) {
          entered = true;
          while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return evaluate_small(p);
        },
        first);
  });
  while (!entered) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::string manifest = read_file(t / "sweep.json");
  ASSERT_FALSE(manifest.empty());

  auto second = quiet(t.path());
  second.fingerprint = "another scenario";
  EXPECT_THROW(run_sweep(
                   small_sweep(), [](const SweepPoint& p) { return evaluate_small(p); }, second),
               std::runtime_error);
  EXPECT_EQ(read_file(t / "sweep.json"), manifest);
  release = true;
  owner.join();
  EXPECT_EQ(read_file(t / "sweep.json"), manifest);
  EXPECT_EQ(count_lines(read_file(results_path(t.path()))), 1u);
}

TEST(ResultsFile, OnlyTheLastLineMayBeTorn) {
  TempDir t;
  const std::string ref = reference_run(t.path());
  auto lines = split_lines(ref);
  write_file(t / "a.jsonl", lines[0] + "\n{\"broken\n" + lines[1] + "\n");
  EXPECT_THROW(read_results_file(t / "a.jsonl"), std::runtime_error);
  write_file(t / "b.jsonl", lines[0] + "\n" + lines[1] + "\n{\"index\":");
  const auto r = read_results_file(t / "b.jsonl");
  EXPECT_TRUE(r.torn_tail);
  EXPECT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.valid_bytes, lines[0].size() + lines[1].size() + 2);
  // A complete but unparsable last line (newline written, content garbage) also counts as torn.
  write_file(t / "c.jsonl", lines[0] + "\nxx\n");
  EXPECT_TRUE(read_results_file(t / "c.jsonl").torn_tail);
  EXPECT_TRUE(read_results_file(t / "missing.jsonl").lines.empty());
}

TEST(ResultsFile, CanonicalizeRejectsConflictingDuplicates) {
  ResultLine a;
  a.index = 1;
  a.id = "x";
  a.result = {{"v", 1}};
  ResultLine b = a;
  ResultLine c = a;
  c.result = {{"v", 2}};
  EXPECT_EQ(canonicalize({a, b}).size(), 1u);
  EXPECT_THROW(canonicalize({a, c}), std::runtime_error);
  // Read from files, the conflict names where each of the two lines is.
  TempDir t;
  write_file(t / "a.jsonl", a.to_line() + "\n");
  write_file(t / "c.jsonl", a.to_line() + "\n" + c.to_line() + "\n");
  try {
    merge_result_files({t / "a.jsonl", t / "c.jsonl"}, t / "out.jsonl", std::nullopt);
    ADD_FAILURE() << "conflicting results merged";
  } catch (const ConfigError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find((t / "c.jsonl").string() + ":2:1: index: a second, different result for point 1"),
              std::string::npos)
        << w;
    EXPECT_NE(w.find("the first is at " + (t / "a.jsonl").string() + ":1"), std::string::npos) << w;
  }
  EXPECT_FALSE(fs::exists(t / "out.jsonl"));
}

TEST(ResultsFile, MergeLocatesAPointBeyondTheSweep) {
  TempDir t;
  ResultLine a;
  a.index = 5;
  a.id = "x";
  write_file(t / "a.jsonl", a.to_line() + "\n");
  try {
    merge_result_files({t / "a.jsonl"}, t / "out.jsonl", std::size_t{1});
    ADD_FAILURE() << "a point beyond the sweep merged";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find((t / "a.jsonl").string() +
                                         ":1:1: index: result for point 5 but the sweep has only 1 points"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(t / "out.jsonl"));
}

TEST(ResultsFile, ManifestPointCountIsBounded) {
  TempDir t;
  write_file(t / "sweep.json", "{\"total_points\": 1e14, \"axes\": [\"a\"]}\n");
  try {
    read_manifest(t.path());
    ADD_FAILURE() << "a manifest of 1e14 points was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("total_points 100000000000000 is above the limit of 100000 points"),
              std::string::npos)
        << e.what();
  }
}

TEST(SweepRunner, SigkillMidwayThenResumeEqualsUninterruptedRun) {
  TempDir t;
  const std::string ref = reference_run(t / "ref");
  const fs::path dir = t / "killed";
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: a sweep that stalls from point 12 on, so the parent's kill always lands midway,
    // however slowly this machine runs.
    const auto stall_late = [](const SweepPoint& p) {
      while (p.index >= 12) std::this_thread::sleep_for(std::chrono::seconds(1));
      return evaluate_small(p, 5);
    };
    try {
      run_sweep(small_sweep(), stall_late, quiet(dir, 2));
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  // Wait until some, but not all, lines are on disk.
  std::size_t seen = 0;
  for (int i = 0; i < 6000 && seen < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    seen = count_lines(read_file(dir / "results.jsonl"));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child finished before it was killed; status " << status;
  const std::string killed = read_file(dir / "results.jsonl");
  const auto survived = read_results_file(dir / "results.jsonl").lines;
  ASSERT_GE(survived.size(), 8u);
  ASSERT_LE(survived.size(), 12u);

  auto o = quiet(dir, 2);
  o.resume = true;
  std::atomic<int> calls{0};
  const auto s = run_sweep(
      small_sweep(),
      [&](const SweepPoint& p) {
        ++calls;
        return evaluate_small(p);
      },
      o);
  EXPECT_EQ(s.already_done, survived.size());
  EXPECT_EQ(static_cast<std::size_t>(calls.load()), 36u - survived.size());
  const std::string final_text = read_file(dir / "results.jsonl");
  EXPECT_EQ(final_text, ref);
  // Nothing written before the kill was lost.
  for (const auto& l : survived) EXPECT_NE(final_text.find(l.to_line() + "\n"), std::string::npos);
}

TEST(SweepRunner, ShardsMergeIntoTheSingleRunFile) {
  TempDir t;
  const std::string ref = reference_run(t / "ref");
  const fs::path dir = t / "sharded";
  const auto pts = small_sweep();
  for (int i : {2, 0, 1}) {
    auto o = quiet(dir, 2);
    o.shard = ShardSpec{i, 3};
    const auto s = run_sweep(
        pts, [](const SweepPoint& p) { return evaluate_small(p); }, o);
    EXPECT_EQ(s.owned_points, 12u);
    EXPECT_TRUE(s.complete);
    EXPECT_EQ(s.results_file, shard_results_path(dir, i, 3));
    for (const auto& l : read_results_file(s.results_file).lines) EXPECT_EQ(l.index % 3, static_cast<std::size_t>(i));
    if (i == 2) {
      // Before the last shard: the merge says what is missing.
      const auto partial = merge_shard_results(FolderLock(dir), 3);
      EXPECT_EQ(partial.lines, 12u);
      EXPECT_EQ(partial.missing.size(), 24u);
    }
  }
  const auto rep = merge_shard_results(FolderLock(dir), 3);
  EXPECT_EQ(rep.lines, 36u);
  EXPECT_TRUE(rep.missing.empty());
  EXPECT_EQ(read_file(dir / "results.jsonl"), ref);
}

TEST(SweepRunner, SecondWriterOnTheSameFileIsRefused) {
  TempDir t;
  std::atomic<bool> release{false};
  std::atomic<bool> evaluating{false};  // the first run holds the lock once it evaluates a point
  std::string first_error;
  std::thread first([&] {
    try {
      run_sweep(
          small_sweep(),
          [&](const SweepPoint& p) {
            evaluating = true;
            while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return evaluate_small(p);
          },
          quiet(t.path()));
    } catch (const std::exception& e) {
      first_error = e.what();
      evaluating = true;
    }
  });
  while (!evaluating.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto o = quiet(t.path());
  o.resume = true;
  try {
    run_sweep(
        small_sweep(), [](const SweepPoint& p) { return evaluate_small(p); }, o);
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("another sweep process"), std::string::npos) << e.what();
  }
  release = true;
  first.join();
  EXPECT_EQ(first_error, "");
  EXPECT_EQ(count_lines(read_file(results_path(t.path()))), 36u);
}

TEST(ShardSpec, Parse) {
  EXPECT_EQ(ShardSpec::parse("0/1").count, 1);
  const auto s = ShardSpec::parse("3/8");
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 8);
  EXPECT_TRUE(s.owns(11));
  EXPECT_FALSE(s.owns(12));
  for (const char* bad : {"8/8", "-1/4", "1", "a/b", "1/0", "1/4x", ""})
    EXPECT_THROW(ShardSpec::parse(bad), ConfigError) << bad;
}

TEST(Progress, PlainLinesAndBar) {
  double now = 0.0;
  std::ostringstream lines;
  {
    Progress p(lines, ProgressMode::lines, 4, "sweep", [&] { return now; });
    now = 10.0;
    p.point_done(false, false);  // first update draws (more than 5 s since start)
    now = 11.0;
    p.point_done(true, false);  // within 5 s: throttled
    now = 20.0;
    p.point_done(false, true);
    EXPECT_EQ(p.status_text(), "sweep: 3/4 points, 0.15 points/s, elapsed 20s, ETA 7s, 1 infeasible, 1 failed");
    p.point_done(false, false);
    p.finish();
  }
  EXPECT_EQ(count_lines(lines.str()), 3u) << lines.str();
  EXPECT_NE(lines.str().find("4/4 points"), std::string::npos);
  EXPECT_EQ(lines.str().find('\r'), std::string::npos);
  std::ostringstream bar;
  Progress b(bar, ProgressMode::bar, 2, "", [&] { return now; });
  b.point_done(false, false);
  b.finish();
  EXPECT_NE(bar.str().find("\r[###############...............] 1/2"), std::string::npos) << bar.str();
  EXPECT_EQ(Progress::format_duration(3725), "1h02m");
  EXPECT_EQ(Progress::format_duration(65), "1m05s");
  EXPECT_EQ(Progress::format_duration(-1), "--");
}
