// Host benchmarks at tiny sizes: they run, their self-checks hold, their outputs are sane; the
// scratch file disappears on return, on exception and on SIGINT/SIGTERM; bad paths are input
// errors. No test asserts a speed (the suite shares two cores with everything else).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "calibration/calibration_runner.hpp"
#include "calibration/host_info.hpp"
#include "calibration/memory_benchmarks.hpp"
#include "calibration/scratch_file.hpp"
#include "calibration/ssd_benchmarks.hpp"
#include "core/error.hpp"
#include "tests/support/temp_dir.hpp"

namespace engramsim::calibration {
namespace {

namespace fs = std::filesystem;

TEST(Memcpy, CopiesAndTimesEveryThreadCount) {
  MemcpyOptions o;
  o.buffer_bytes = 4u << 20;
  o.thread_counts = {1, 2};
  o.repetitions = 2;
  const auto r = run_memcpy_benchmark(o);
  ASSERT_EQ(r.size(), 2u);
  for (const auto& m : r) {
    EXPECT_EQ(m.bytes_copied, o.buffer_bytes);
    ASSERT_EQ(m.seconds.size(), 2u);
    for (const double s : m.seconds) EXPECT_GT(s, 0.0);
  }
  o.buffer_bytes = 1024;
  EXPECT_THROW(run_memcpy_benchmark(o), std::invalid_argument);
}

TEST(DramGather, RunsEveryCaseAndChecksItsRows) {
  DramGatherOptions o;
  o.table_bytes = 8u << 20;
  o.row_sizes = {64, 264};
  o.distributions = {IndexDistribution::uniform, IndexDistribution::zipf};
  o.thread_counts = {1, 2};
  o.rows_per_thread = 4096;
  o.repetitions = 2;
  int progress_lines = 0;
  const auto r = run_dram_gather_benchmark(o, [&](const std::string&) { ++progress_lines; });
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(progress_lines, 8);
  for (const auto& m : r) {
    EXPECT_EQ(m.rows, 4096u * static_cast<std::uint64_t>(m.threads));
    EXPECT_EQ(m.seconds.size(), 2u);
    EXPECT_NE(m.checksum, 0u);
  }
  o.row_sizes = {100};  // not a multiple of 8
  EXPECT_THROW(run_dram_gather_benchmark(o, {}), std::invalid_argument);
}

TEST(ScratchFile, IsRemovedOnScopeExitAndHoldsNonRepeatingData) {
  test::TempDir dir;
  std::string path;
  {
    ScratchFile f(dir.path(), 1u << 20);
    path = f.path();
    EXPECT_EQ(fs::path(path).parent_path(), fs::path(dir.path()));
    EXPECT_EQ(fs::file_size(path), 1u << 20);
    std::ifstream in(path, std::ios::binary);
    std::vector<char> a(4096), b(4096);
    in.read(a.data(), 4096);
    in.read(b.data(), 4096);
    EXPECT_NE(a, b);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_THROW(ScratchFile(dir.file("no-such-folder"), 1u << 20), std::runtime_error);
}

// A child process makes a scratch file and waits; the signal must remove it and still end the
// child by that signal.
void expect_removed_on(int sig) {
  test::TempDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    ScratchFile f(dir.path(), 64 * 1024);
    const std::string p = f.path() + "\n";
    if (::write(fds[1], p.data(), p.size()) < 0) ::_exit(3);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  std::string path;
  char c;
  while (::read(fds[0], &c, 1) == 1 && c != '\n') path += c;
  ::close(fds[0]);
  ASSERT_FALSE(path.empty());
  EXPECT_TRUE(fs::exists(path));
  ::kill(pid, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) {
    EXPECT_EQ(WTERMSIG(status), sig);
  }
  EXPECT_FALSE(fs::exists(path)) << path << " left behind after signal " << sig;
}

TEST(ScratchFile, IsRemovedOnSigterm) { expect_removed_on(SIGTERM); }
TEST(ScratchFile, IsRemovedOnSigint) { expect_removed_on(SIGINT); }

TEST(ScratchFile, CleanupRegistryRestoresTheDefaultHandler) {
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  const int slot = register_cleanup_path("/nonexistent/engramsim-x");
  ASSERT_GE(slot, 0);
  struct sigaction during {};
  ::sigaction(SIGTERM, nullptr, &during);
  EXPECT_NE(during.sa_handler, before.sa_handler);
  unregister_cleanup_path(slot);
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

TEST(Ssd, MeasuresAScratchFileOrSaysWhyNot) {
  test::TempDir dir;
  SsdOptions o;
  o.path = dir.path();
  o.scratch_bytes = 4u << 20;
  o.queue_depths = {1, 4};
  o.seconds_per_depth = 0.05;
  o.mmap_threads = {1, 2};
  o.mmap_seconds_per_point = 0.05;
  o.sequential_min_seconds = 0.01;
  const SsdResults r = run_ssd_benchmarks(o, {});
  EXPECT_EQ(r.file_bytes, 4u << 20);
  EXPECT_FALSE(r.filesystem.empty());
  // Each part either measured or carries its reason (tmpfs, overlayfs, io_uring off).
  if (r.random_reads) {
    ASSERT_EQ(r.random_reads->size(), 2u);
    for (const auto& q : *r.random_reads) {
      EXPECT_GT(q.ops, 0u);
      EXPECT_EQ(q.latencies.size(), q.ops);
    }
  } else {
    EXPECT_FALSE(r.random_reads_reason.empty());
  }
  if (r.mmap) {
    for (const auto& q : *r.mmap) EXPECT_EQ(q.latencies.size(), q.faults);
  } else {
    EXPECT_FALSE(r.mmap_reason.empty());
  }
  if (r.sequential) {
    EXPECT_GT(r.sequential->bytes, 0u);
  } else {
    EXPECT_FALSE(r.sequential_reason.empty());
  }
  // The scratch file is gone.
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(Ssd, ReadsAnExistingFileWithoutWritingIt) {
  test::TempDir dir;
  const std::string path = dir.file("table.bin");
  {
    std::ofstream out(path, std::ios::binary);
    std::vector<char> chunk(1u << 20);
    for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>(i * 131 + 7);
    for (int i = 0; i < 2; ++i) out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  }
  const auto before = fs::last_write_time(path);
  SsdOptions o;
  o.path = path;
  o.queue_depths = {2};
  o.seconds_per_depth = 0.02;
  o.mmap_threads = {1};
  o.mmap_seconds_per_point = 0.02;
  o.sequential_min_seconds = 0.0;
  const SsdResults r = run_ssd_benchmarks(o, {});
  EXPECT_EQ(r.file_bytes, 2u << 20);
  EXPECT_NE(r.file.find("read only"), std::string::npos);
  EXPECT_EQ(fs::last_write_time(path), before);
  EXPECT_EQ(fs::file_size(path), 2u << 20);
}

TEST(Ssd, MemoryBackedFilesAreNotMeasuredAsStorage) {
  if (filesystem_type("/dev/shm") != "tmpfs" || ::access("/dev/shm", W_OK) != 0)
    GTEST_SKIP() << "no writable tmpfs at /dev/shm on this machine";
  SsdOptions o;
  o.path = "/dev/shm";
  o.scratch_bytes = 1u << 20;
  const SsdResults r = run_ssd_benchmarks(o, {});
  EXPECT_FALSE(r.random_reads.has_value());
  EXPECT_FALSE(r.mmap.has_value());
  EXPECT_FALSE(r.sequential.has_value());
  EXPECT_NE(r.random_reads_reason.find("tmpfs"), std::string::npos) << r.random_reads_reason;
  EXPECT_NE(r.mmap_reason.find("tmpfs"), std::string::npos);
  EXPECT_NE(r.sequential_reason.find("tmpfs"), std::string::npos);
}

TEST(Ssd, BadPathsAreInputErrors) {
  test::TempDir dir;
  SsdOptions o;
  o.path = dir.file("missing");
  EXPECT_THROW(run_ssd_benchmarks(o, {}), ConfigError);
  const std::string tiny = dir.file("tiny");
  std::ofstream(tiny) << "x";
  o.path = tiny;
  EXPECT_THROW(run_ssd_benchmarks(o, {}), ConfigError);
  o.path = dir.path();
  o.scratch_bytes = 1000;
  EXPECT_THROW(run_ssd_benchmarks(o, {}), ConfigError);
}

TEST(Runner, HostSectionsFillTheProfile) {
  test::TempDir dir;
  CalibrationOptions o;
  o.quick = true;
  o.sections = resolve_benchmark_list("memcpy,dram");
  o.dram_table_size = 4u << 20;
  o.threads = 1;
  CalibrationRun run;
  std::vector<std::string> lines;
  run_host_benchmarks(o, run, [&](const std::string& s, const std::string& w) { lines.push_back(s + ": " + w); });
  EXPECT_TRUE(run.failures.empty());
  ASSERT_TRUE(run.profile.memcpy.has_value());
  ASSERT_TRUE(run.profile.dram_gather.has_value());
  EXPECT_EQ(run.profile.dram_gather->points.size(), 8u);  // 4 row sizes x 2 distributions x 1 thread count
  for (const auto& q : run.profile.dram_gather->points)
    EXPECT_NEAR(q.bandwidth.value(), q.rows_per_s * q.row_size.value(), 1e-6 * q.bandwidth.value());
  EXPECT_FALSE(lines.empty());
  // A table that fits in the last-level cache is measured but flagged.
  EXPECT_FALSE(run.warnings.empty());
  fill_provenance(o, GpuEnvironment{}, run);
  EXPECT_FALSE(run.profile.provenance.host.empty());
  EXPECT_TRUE(run.profile.provenance.gpu.empty());
  write_calibration_run(run, dir.file("p.yaml"));
  const CalibrationProfile back = load_calibration_profile(dir.file("p.yaml"));
  EXPECT_EQ(verify_samples_file(back, dir.file("p.yaml")), "");
  EXPECT_EQ(back.dram_gather->points.size(), 8u);
}

}  // namespace
}  // namespace engramsim::calibration
