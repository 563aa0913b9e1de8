// Property test: sweeps over random valid scenarios (scenario_generator.hpp) give byte-identical
// results files for --jobs 1 and --jobs 2, and a results file cut at a random byte (as a killed
// sweep leaves it) resumes to the same file as the uninterrupted sweep.
#include <gtest/gtest.h>

#include <filesystem>

#include "../scenario/scenario_test_util.hpp"
#include "core/rng.hpp"
#include "planner/sweep_runner.hpp"
#include "scenario_generator.hpp"
#include "study/scenario_evaluator.hpp"

namespace engramsim::testing {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kSweepSeed = 0x5eed0000;

planner::SweepRunSummary sweep(const planner::PreparedSweep& prep, const engramsim::study::ScenarioEvaluator& eval,
                               const fs::path& out, int jobs, bool resume) {
  planner::SweepRunOptions o;
  o.out_dir = out;
  o.jobs = jobs;
  o.resume = resume;
  o.progress = planner::ProgressMode::none;
  o.durable = false;
  o.fingerprint = prep.fingerprint;
  return planner::run_sweep(
      prep.points, [&eval](const planner::SweepPoint& p) { return eval.evaluate(p); }, o);
}

// Returns the number of points that ran (status ok).
int check_sweep(std::uint64_t seed) {
  ScratchDir dir;
  const GeneratedCase c = generate_case(seed, dir.path());
  // A disaggregated case sweeps its decode pool's limit.
  const std::string pool = c.disaggregated ? "deployment.decode." : "deployment.";
  const std::string yaml = c.yaml + "sweep:\n  axes:\n    - {key: " + pool +
                           "scheduler.max_num_seqs, values: [2, 16]}\n"
                           "    - {key: seed, values: [1, 2, 3]}\n";
  const ConfigNode root = ConfigNode::load_string(yaml, c.scenario_path);
  const planner::PreparedSweep prep = planner::prepare_sweep(root);
  const engramsim::study::ScenarioEvaluator eval(c.scenario_path, prep.base);
  const fs::path one = dir.file("jobs1"), two = dir.file("jobs2"), cut = dir.file("cut");
  EXPECT_TRUE(sweep(prep, eval, one, 1, false).complete);
  EXPECT_TRUE(sweep(prep, eval, two, 2, false).complete);
  const std::string full = read_file(planner::results_path(one).string());
  EXPECT_EQ(full, read_file(planner::results_path(two).string())) << "--jobs 1 and --jobs 2 differ for\n" << yaml;

  // A kill leaves a prefix of the lines, the last one possibly torn.
  RngStream rng(seed, "invariants/cut");
  const auto at = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(full.size()) - 1));
  fs::create_directories(cut);
  fs::copy_file(one / "sweep.json", cut / "sweep.json");
  write_file(planner::results_path(cut).string(), full.substr(0, at));
  const planner::SweepRunSummary resumed = sweep(prep, eval, cut, 2, true);
  EXPECT_TRUE(resumed.complete);
  EXPECT_EQ(full, read_file(planner::results_path(cut).string()))
      << "resumed after a cut at byte " << at << " of " << full.size() << " differs for\n"
      << yaml;
  int ok = 0;
  for (const auto& line : planner::read_results_file(planner::results_path(one)).lines)
    ok += line.status == planner::PointStatus::ok ? 1 : 0;
  return ok;
}

TEST(SweepInvariants, JobsAndResumeAfterAKillGiveTheSameResults) {
  const int sweeps = std::max(2, property_cases(300) / 50);
  int ok_points = 0;
  for (int i = 0; i < sweeps; ++i) ok_points += check_sweep(kSweepSeed + static_cast<std::uint64_t>(i));
  std::printf("%d sweeps of 6 points, %d points ran\n", sweeps, ok_points);
  EXPECT_GT(ok_points, 0);
}

}  // namespace
}  // namespace engramsim::testing
