// Faults an operator meets (issue 47, items 3-5), through the real binary in child processes:
// - a SIGKILL at every fdatasync and every rename of a sweep with refinement rounds, each followed
//   by `--resume`, gives the files (results, rounds, report, tables, charts) and the verdict of an
//   uninterrupted run, byte for byte. The kill is delivered by strace at the system call's entry
//   (`-e inject=SYSCALL:signal=KILL:when=N`, the N-th call of the writing thread), so it lands at
//   every sync point of the run in turn, refinement rounds included; the test skips where strace or
//   ptrace is unavailable;
// - SIGTERM and SIGINT stop `sweep` at a point boundary with exit 7, whole lines only, and the
//   command printed to resume it finishes the run as if never stopped;
// - `run --out` that cannot write a file (RLIMIT_FSIZE in the child) exits 1 naming the file and
//   the errno, and leaves no summary.json (the mark of a complete folder) and no torn file.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim::planner::cli_testing {
namespace {

// Exit codes of docs/cli.md.
constexpr int kFailure = 1;
constexpr int kInterrupted = 7;

std::vector<std::string> tiny_sweep(const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {
      "sweep", data_file("tiny_sweep.yaml"), "--out", out.string(), "--jobs", "1", "--progress", "none"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// Every file under `dir` by relative path, with its bytes; the lock file (empty, kept on purpose)
// is left out.
std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "sweep.lock") continue;
    out[fs::relative(e.path(), dir).string()] = read_file(e.path());
  }
  return out;
}

// Empty when `got` holds exactly the files of `want` with the same bytes; else what differs.
std::string folder_differences(const fs::path& want, const fs::path& got) {
  const auto a = files_under(want);
  const auto b = files_under(got);
  std::string diff;
  for (const auto& [name, bytes] : a) {
    const auto it = b.find(name);
    if (it == b.end()) diff += " missing " + name + ";";
    if (it != b.end() && it->second != bytes) diff += " differs " + name + ";";
  }
  for (const auto& [name, bytes] : b)
    if (!a.count(name)) diff += " extra " + name + ";";
  return diff;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

bool strace_usable() { return std::system("strace -o /dev/null true >/dev/null 2>&1") == 0; }

// `strace` prefix that kills the command with SIGKILL at the entry of the n-th call of `syscalls`.
std::string kill_at(const std::string& syscalls, int n) {
  return "strace -o /dev/null -e trace=" + syscalls + " -e inject=" + syscalls +
         ":signal=KILL:when=" + std::to_string(n) + " ";
}

struct KillCount {
  int kills = 0;      // runs killed (and resumed)
  int in_rounds = 0;  // of them, killed once refinement had begun
};

// Kills the tiny sweep at the 1st, 2nd, ... call of `syscalls` until a run gets past the last
// one, resuming each killed run and comparing it with `ref`.
KillCount kill_at_each(const std::string& syscalls, const fs::path& ref, const std::string& verdict, TempDir& t) {
  KillCount c;
  for (int n = 1; n < 400; ++n) {
    const fs::path dir = t / (syscalls.substr(0, syscalls.find(',')) + "-" + std::to_string(n));
    const CliResult killed = run_cli(tiny_sweep(dir), t.path(), kill_at(syscalls, n));
    if (killed.code == 0) break;  // no n-th call: the run is past its last one
    ++c.kills;
    c.in_rounds += fs::exists(dir / "refine");
    const CliResult resumed = run_cli(tiny_sweep(dir, {"--resume"}), t.path());
    EXPECT_EQ(resumed.code, 0) << "killed at " << syscalls << " #" << n << "\n" << describe(resumed);
    EXPECT_EQ(first_line(resumed.out), verdict) << "killed at " << syscalls << " #" << n;
    EXPECT_EQ(folder_differences(ref, dir), "") << "killed at " << syscalls << " #" << n;
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  return c;
}

TEST(CliFaults, AKillAtEverySyncPointThenResumeWritesTheSameBytes) {
  if (!strace_usable()) GTEST_SKIP() << "strace cannot trace here (not installed, or ptrace refused)";
  TempDir t;
  const fs::path ref = t / "ref";
  const CliResult r = run_cli(tiny_sweep(ref), t.path());
  ASSERT_EQ(r.code, 0) << describe(r);
  ASSERT_TRUE(fs::exists(ref / "refine" / "round-3")) << "the scenario must refine for several rounds";
  const std::string verdict = first_line(r.out);

  // Every appended batch of results is synced (grid and rounds: one point per batch with --jobs 1).
  const KillCount synced = kill_at_each("fdatasync", ref, verdict, t);
  EXPECT_GE(synced.kills, 10);
  EXPECT_GE(synced.in_rounds, 4);
  // Every whole file (manifests, canonical results, context, report, tables, charts) is renamed
  // into place; a kill at its fsync just before leaves the same state as one at the rename.
  const KillCount renamed = kill_at_each("rename,renameat,renameat2", ref, verdict, t);
  EXPECT_GE(renamed.kills, 20);
  EXPECT_GE(renamed.in_rounds, 4);
}

// A sweep slow enough to be signalled midway: 12 grid points, 8 simulated (20,000 requests each,
// about 0.4 s a point), then three refinement rounds.
std::vector<std::string> slow_sweep(const fs::path& out) {
  return tiny_sweep(out, {"--set", "workload.num_requests=20000", "--set", "sweep.axes.1.values=[8, 16, 32, 64]"});
}

std::size_t line_count(const fs::path& p) {
  const std::string s = read_file(p);
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Whether every line of `p` is a whole JSON object and the file ends on a line boundary.
bool whole_lines(const fs::path& p) {
  const std::string s = read_file(p);
  if (!s.empty() && s.back() != '\n') return false;
  for (const auto& l : lines_of(s))
    if (!nlohmann::json::accept(l)) return false;
  return true;
}

// Starts engramsim `args` in a child process with stdout and stderr in scratch/child.stdout and
// child.stderr, after `prepare` has run in the child; returns its pid.
pid_t start_child(const std::vector<std::string>& args, const fs::path& scratch, const std::function<void()>& prepare) {
  const std::string bin = engramsim::test::cli_path();
  const std::string out = (scratch / "child.stdout").string(), err = (scratch / "child.stderr").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv = {const_cast<char*>(bin.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
    ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
    if (prepare) prepare();
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for the child and reads what it printed; a child killed by a signal exits 128 + signal.
CliResult wait_child(pid_t pid, const fs::path& scratch) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(scratch / "child.stdout");
  r.err = read_file(scratch / "child.stderr");
  return r;
}

// Runs engramsim `args` in a child process, sends it `sig` once `file` holds `lines` lines, and
// waits for it.
CliResult signal_when(const std::vector<std::string>& args, int sig, const fs::path& file, std::size_t lines,
                      const fs::path& scratch) {
  const pid_t pid = start_child(args, scratch, nullptr);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline && line_count(file) < lines)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ::kill(pid, sig);
  return wait_child(pid, scratch);
}

// The command the stopped run printed to finish it ("... To finish the run: CMD").
std::string resume_command_of(const CliResult& r) {
  const std::string mark = "To finish the run: ";
  const auto at = r.err.find(mark);
  if (at == std::string::npos) return "";
  return first_line(r.err.substr(at + mark.size()));
}

void expect_stopped_then_resumed(int sig, const fs::path& watched, std::size_t lines) {
  TempDir t;
  const CliResult ref = run_cli(slow_sweep(t / "ref"), t.path());
  ASSERT_EQ(ref.code, 0) << describe(ref);
  const fs::path dir = t / "stopped";
  const fs::path file = dir / watched;
  const CliResult stopped = signal_when(slow_sweep(dir), sig, file, lines, t.path());
  ASSERT_EQ(stopped.code, kInterrupted) << describe(stopped);
  EXPECT_NE(stopped.err.find(sig == SIGINT ? "stopped: SIGINT received" : "stopped: SIGTERM received"),
            std::string::npos)
      << stopped.err;
  // Stopped between points: whole lines only, fewer than the run would have written.
  EXPECT_TRUE(whole_lines(dir / "results.jsonl"));
  EXPECT_TRUE(whole_lines(file));
  EXPECT_NE(folder_differences(t / "ref", dir), "");
  EXPECT_FALSE(fs::exists(dir / "report.html"));

  const std::string resume = resume_command_of(stopped);
  ASSERT_NE(resume.find(" --resume"), std::string::npos) << stopped.err;
  const int status = std::system((resume + " >" + quoted((t / "resumed.stdout").string()) + " 2>/dev/null").c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << resume;
  EXPECT_EQ(first_line(read_file(t / "resumed.stdout")), first_line(ref.out));
  EXPECT_EQ(folder_differences(t / "ref", dir), "");
}

TEST(CliFaults, SigtermStopsASweepBetweenPointsAndItsResumeCommandFinishesIt) {
  expect_stopped_then_resumed(SIGTERM, "results.jsonl", 2);
}

TEST(CliFaults, SigintInARefinementRoundStopsThereAndItsResumeCommandFinishesIt) {
  expect_stopped_then_resumed(SIGINT, fs::path("refine") / "round-1" / "results.jsonl", 1);
}

// Runs engramsim `args` in a child process whose files may not grow past `max_bytes`
// (RLIMIT_FSIZE, SIGXFSZ ignored, so a write past it fails with EFBIG as on a full disk).
CliResult run_with_file_limit(const std::vector<std::string>& args, rlim_t max_bytes, const fs::path& scratch) {
  const pid_t pid = start_child(args, scratch, [max_bytes] {
    const rlimit limit{max_bytes, max_bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::signal(SIGXFSZ, SIG_IGN);
  });
  return wait_child(pid, scratch);
}

bool any_temporary(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
}

TEST(CliFaults, RunOutThatCannotWriteNamesTheFileAndLeavesNoCompleteLookingFolder) {
  TempDir t;
  // 2,000 requests: requests.csv is about 170 KB, the other files a few KB each.
  const std::vector<std::string> run = {"run", data_file("tiny_sweep.yaml"), "--set", "workload.num_requests=2000"};
  auto to = [&](const fs::path& dir) {
    std::vector<std::string> a = run;
    a.insert(a.end(), {"--out", dir.string()});
    return a;
  };
  const fs::path fresh = t / "fresh";
  const CliResult r = run_with_file_limit(to(fresh), 64 * 1024, t.path());
  EXPECT_EQ(r.code, kFailure) << describe(r);
  EXPECT_NE(r.err.find("error: cannot write " + (fresh / "requests.csv").string() + ": File too large"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(fresh / "summary.json"));
  EXPECT_FALSE(fs::exists(fresh / "requests.csv"));  // never a torn one
  EXPECT_FALSE(any_temporary(fresh));

  // Over an earlier complete run: its summary.json goes first, so the folder no longer claims to
  // be complete; the files the failed run did not reach stay whole.
  const fs::path rerun = t / "rerun";
  ASSERT_EQ(run_cli(to(rerun), t.path()).code, 0);
  const std::string earlier = read_file(rerun / "requests.csv");
  const CliResult again = run_with_file_limit(to(rerun), 64 * 1024, t.path());
  EXPECT_EQ(again.code, kFailure) << describe(again);
  EXPECT_NE(again.err.find((rerun / "requests.csv").string() + ": File too large"), std::string::npos) << again.err;
  EXPECT_FALSE(fs::exists(rerun / "summary.json"));
  EXPECT_EQ(read_file(rerun / "requests.csv"), earlier);
  EXPECT_FALSE(any_temporary(rerun));

  // Without the limit the same command completes, summary.json included.
  const CliResult ok = run_cli(to(t / "ok"), t.path());
  ASSERT_EQ(ok.code, 0) << describe(ok);
  EXPECT_TRUE(fs::exists(t / "ok" / "summary.json"));
}

// A full disk (the file-size limit) under sweep, merge and calibrate: each exits 1 naming the file,
// leaves nothing that looks complete, and the same command without the limit (sweep: --resume)
// finishes with what an undisturbed run writes.
TEST(CliFaults, AFullDiskFailsSweepMergeAndCalibrateCleanly) {
  TempDir t;
  const std::string scenario = data_file("tiny_sweep.yaml");
  const std::vector<std::string> quiet = {"--progress", "none", "--refine-rounds", "0"};
  auto sweep = [&](const fs::path& dir, std::vector<std::string> extra) {
    std::vector<std::string> a = {"sweep", scenario, "--out", dir.string()};
    a.insert(a.end(), quiet.begin(), quiet.end());
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const fs::path ref = t / "ref";
  ASSERT_EQ(run_cli(sweep(ref, {}), t.path()).code, 0);

  const fs::path full = t / "full";
  const CliResult s = run_with_file_limit(sweep(full, {}), 8 * 1024, t.path());
  EXPECT_EQ(s.code, kFailure) << describe(s);
  EXPECT_NE(s.err.find("results.jsonl: File too large"), std::string::npos) << s.err;
  EXPECT_FALSE(fs::exists(full / "report.html"));
  const CliResult resumed = run_cli(sweep(full, {"--resume"}), t.path());
  ASSERT_EQ(resumed.code, 0) << describe(resumed);
  EXPECT_EQ(read_file(full / "results.jsonl"), read_file(ref / "results.jsonl"));

  const fs::path shards = t / "shards";
  for (const char* shard : {"0/2", "1/2"}) ASSERT_EQ(run_cli(sweep(shards, {"--shard", shard}), t.path()).code, 0);
  const std::vector<std::string> merge = {"merge", shards.string(), "--shards", "2"};
  const CliResult m = run_with_file_limit(merge, 1024, t.path());
  EXPECT_EQ(m.code, kFailure) << describe(m);
  EXPECT_NE(m.err.find("results.jsonl: File too large"), std::string::npos) << m.err;
  EXPECT_FALSE(fs::exists(shards / "results.jsonl"));
  EXPECT_FALSE(any_temporary(shards));
  ASSERT_EQ(run_cli(merge, t.path()).code, 0);
  EXPECT_TRUE(fs::exists(shards / "results.jsonl"));

  const fs::path profile = t / "profile.yaml";
  const CliResult c =
      run_with_file_limit({"calibrate", "--quick", "--only", "memcpy", "--out", profile.string()}, 256, t.path());
  EXPECT_EQ(c.code, kFailure) << describe(c);
  EXPECT_NE(c.err.find("File too large"), std::string::npos) << c.err;
  EXPECT_FALSE(fs::exists(profile));

  // A generated corpus is renamed into place only once whole.
  const fs::path corpus = t / "corpus.jsonl.gz";
  const CliResult g = run_with_file_limit(
      {"generate", "agentx", "--seed", "42", "--sessions", "8", "--out", corpus.string()}, 4096, t.path());
  EXPECT_EQ(g.code, kFailure) << describe(g);
  EXPECT_NE(g.err.find("cannot write " + corpus.string() + ": File too large"), std::string::npos) << g.err;
  EXPECT_FALSE(fs::exists(corpus));
  EXPECT_FALSE(any_temporary(t.path()));
}

}  // namespace
}  // namespace engramsim::planner::cli_testing
