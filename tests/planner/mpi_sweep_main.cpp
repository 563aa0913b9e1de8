// Run under `mpirun -np 2`: a sweep distributed over two ranks (two threads each) must write a
// results.jsonl byte-identical to a single-process --jobs 1 run, both from scratch and when
// resuming a torn file. Exit 0 on success, 1 on a mismatch, 77 (skipped) without MPI support.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>

#include "planner/mpi_session.hpp"
#include "planner/results_file.hpp"
#include "planner/sweep_runner.hpp"
#include "planner_test_util.hpp"

using namespace engramsim::planner;
using namespace engramsim::planner::testing;
namespace fs = std::filesystem;

namespace {

SweepRunOptions options(const fs::path& dir, const MpiSession* mpi, bool resume) {
  SweepRunOptions o;
  o.out_dir = dir;
  o.jobs = mpi ? 2 : 1;
  o.resume = resume;
  o.progress = ProgressMode::none;
  o.mpi = mpi;
  return o;
}

}  // namespace

int main() {
  if (!MpiSession::compiled_in()) {
    std::puts("skipped: engramsim_planner was built without MPI");
    return 77;
  }
  std::unique_ptr<MpiSession> mpi;
  try {
    mpi = MpiSession::start_if_launched();
  } catch (const std::exception& e) {
    std::cerr << "MPI start failed: " << e.what() << "\n";
    return 1;
  }
  if (!mpi || mpi->size() != 2) {
    std::cerr << "expected to run as 2 MPI ranks (mpirun -np 2)\n";
    return 1;
  }
  const auto points = small_sweep();
  const bool root = mpi->rank() == 0;
  std::string dir;
  int failures = 0;
  if (root) {
    std::string tmpl = (fs::temp_directory_path() / "engramsim-mpi-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) return 1;
    dir = tmpl;
    // The single-process reference, and a torn, out-of-order partial file for the resume case.
    run_sweep(
        points, [](const SweepPoint& p) { return evaluate_small(p); }, options(fs::path(dir) / "ref", nullptr, false));
    std::vector<std::string> lines;
    {
      std::stringstream ss(read_file(fs::path(dir) / "ref/results.jsonl"));
      for (std::string l; std::getline(ss, l);) lines.push_back(l);
    }
    std::vector<std::string> done(lines.begin(), lines.begin() + 10);
    std::shuffle(done.begin(), done.end(), std::mt19937(3));
    std::string partial;
    for (const auto& l : done) partial += l + "\n";
    partial += lines[17].substr(0, 25);
    fs::create_directories(fs::path(dir) / "resume");
    write_file(fs::path(dir) / "resume/results.jsonl", partial);
    fs::copy_file(fs::path(dir) / "ref/sweep.json", fs::path(dir) / "resume/sweep.json");
  }
  mpi->broadcast(dir);

  const auto fresh = run_sweep(
      points, [](const SweepPoint& p) { return evaluate_small(p, 2); },
      options(fs::path(dir) / "mpi", mpi.get(), false));
  const auto resumed = run_sweep(
      points, [](const SweepPoint& p) { return evaluate_small(p, 2); },
      options(fs::path(dir) / "resume", mpi.get(), true));
  // Each rank evaluated only its own share.
  for (const auto* s : {&fresh, &resumed}) {
    if (!root && s->evaluated > 18) {
      std::cerr << "rank 1 evaluated " << s->evaluated << " points, more than its share\n";
      ++failures;
    }
  }
  if (root) {
    const std::string ref = read_file(fs::path(dir) / "ref/results.jsonl");
    if (read_file(fs::path(dir) / "mpi/results.jsonl") != ref) {
      std::cerr << "MPI run differs from the single-process run\n";
      ++failures;
    }
    if (read_file(fs::path(dir) / "resume/results.jsonl") != ref) {
      std::cerr << "resumed MPI run differs from the single-process run\n";
      ++failures;
    }
    if (fresh.evaluated != 36 || !fresh.complete) {
      std::cerr << "rank 0 recorded " << fresh.evaluated << " of 36 points\n";
      ++failures;
    }
    if (resumed.already_done != 10 || resumed.evaluated != 26) {
      std::cerr << "resume: " << resumed.already_done << " kept, " << resumed.evaluated
                << " evaluated; expected 10 and 26\n";
      ++failures;
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    std::cout << (failures == 0 ? "MPI sweep matches the single-process run\n" : "FAILED\n");
  }
  mpi->barrier();
  return failures == 0 ? 0 : 1;
}
