// `mpiexec -n 2 engramsim sweep` writes the same results.jsonl and report as a single-process
// --jobs 1 run. Skips when the build has no MPI or no mpiexec was found.
#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "planner/mpi_session.hpp"

namespace engramsim::planner::cli_testing {
namespace {

TEST(CliMpi, TwoRanksWriteTheSingleProcessFile) {
  const std::string mpiexec = ENGRAMSIM_MPIEXEC;
  if (!MpiSession::compiled_in() || mpiexec.empty()) GTEST_SKIP() << "no MPI in this build";
  TempDir t;
  const std::vector<std::string> more = {"--set", "sweep.axes.1.values=[1, 2, 4, 8]", "--progress", "none"};
  std::vector<std::string> single = {"sweep", data_file("tiny_sweep.yaml"), "--out", (t / "single").string(), "--jobs",
                                     "1"};
  single.insert(single.end(), more.begin(), more.end());
  const CliResult a = run_cli(single, t.path());
  ASSERT_EQ(a.code, 0) << describe(a);

  const std::string np = std::string(ENGRAMSIM_MPIEXEC_NP).empty() ? "-n" : ENGRAMSIM_MPIEXEC_NP;
  const std::string prefix = quoted(mpiexec) + " " + ENGRAMSIM_MPIEXEC_FLAGS + " " + np + " 2 ";
  std::vector<std::string> mpi = {"sweep", data_file("tiny_sweep.yaml"), "--out", (t / "mpi").string(), "--jobs", "1"};
  mpi.insert(mpi.end(), more.begin(), more.end());
  const CliResult b = run_cli(mpi, t.path(), prefix);
  ASSERT_EQ(b.code, 0) << describe(b);
  const std::string expected = read_file(t / "single" / "results.jsonl");
  ASSERT_EQ(lines_of(expected).size(), 12u);
  EXPECT_EQ(read_file(t / "mpi" / "results.jsonl"), expected);
  EXPECT_EQ(read_file(t / "mpi" / "report.md"), read_file(t / "single" / "report.md"));
  // Only rank 0 printed the summary.
  std::size_t summaries = 0;
  for (std::size_t p = b.out.find("12 points:"); p != std::string::npos; p = b.out.find("12 points:", p + 1))
    ++summaries;
  EXPECT_EQ(summaries, 1u) << b.out;
}

}  // namespace
}  // namespace engramsim::planner::cli_testing
