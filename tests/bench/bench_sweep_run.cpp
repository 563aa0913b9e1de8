// A sweep whose every point replays a one-hour trace: the shipped Azure conversation scenario
// (19,366 requests over one hour, 8 x Llama-3.1-70B TP4 replicas on HGX H100, least-outstanding
// router) swept over arrival-rate scale x router x max_num_seqs, through the same path as
// `engramsim sweep`: scenario_for_point -> parse -> footprint -> build -> run_simulation ->
// PointMetrics -> results.jsonl (fdatasync after each batch, as the CLI does).
//
// The floor is 1,000 points of a one-hour trace in under 10 minutes on a 2-core machine,
// i.e. at least 1.67 points/s with 2 workers. Counters: points_per_s (wall), s_per_1000_points
// (the extrapolation: 1,000 / points_per_s; points are independent, so a sweep's wall time is
// linear in its point count at a fixed worker count), requests_per_s simulated, and cpu_s_per_point
// (process CPU time per point, the figure that does not depend on what else the machine runs).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <string>

#include "core/config_node.hpp"
#include "planner/sweep_runner.hpp"
#include "study/scenario_evaluator.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

using namespace engramsim;
using namespace engramsim::planner;
using namespace engramsim::study;

namespace {

std::string scenario_path() { return engramsim::test::source_root() + "/scenarios/azure-conv-llama70b-h100.yaml"; }

// The shipped scenario with a sweep of up to 24 points added in memory (the file has none).
PreparedSweep azure_sweep() {
  ConfigNode root = ConfigNode::load_file(scenario_path());
  YAML::Node doc = root.raw();
  doc["sweep"] = YAML::Load(
      "axes:\n"
      "  - {key: workload.trace.rate_scale, values: [1.0, 1.25, 1.5, 2.0, 2.5, 3.0]}\n"
      "  - {key: deployment.router, values: [least_outstanding, round_robin]}\n"
      "  - {key: deployment.scheduler.max_num_seqs, values: [256, 64]}\n");
  return prepare_sweep(root);
}

// Args: worker threads, points per sweep.
void BM_SweepOneHourTrace(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  const auto count = static_cast<std::size_t>(state.range(1));
  const PreparedSweep sweep = azure_sweep();
  std::vector<SweepPoint> points(sweep.points.begin(), sweep.points.begin() + static_cast<long>(count));
  const ScenarioEvaluator evaluator(scenario_path(), sweep.base);
  std::size_t done = 0;
  double requests = 0.0;
  const std::clock_t cpu0 = std::clock();
  for (auto _ : state) {
    const engramsim::test::TempDir dir;
    SweepRunOptions o;
    o.out_dir = dir.path();
    o.jobs = jobs;
    o.progress = ProgressMode::none;
    o.fingerprint = sweep.fingerprint;
    const SweepRunSummary s = run_sweep(
        points, [&](const SweepPoint& p) { return evaluator.evaluate(p); }, o);
    if (s.errors != 0 || s.evaluated != count) state.SkipWithError("a point failed");
    done += s.evaluated;
    for (const auto& l : read_results_file(results_path(dir.path())).lines)
      if (l.status == PointStatus::ok) requests += l.result.at("extra").at("num_requests").get<double>();
  }
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
  state.counters["s_per_1000_points"] =
      benchmark::Counter(static_cast<double>(done) / 1000.0, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["requests_per_s"] = benchmark::Counter(requests, benchmark::Counter::kIsRate);
  // Process CPU per point: what a point costs when the cores are not shared with anything else
  // (wall-clock figures on a loaded machine include other processes' time slices).
  state.counters["cpu_s_per_point"] =
      static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC / static_cast<double>(std::max<std::size_t>(done, 1));
}
BENCHMARK(BM_SweepOneHourTrace)
    ->ArgNames({"jobs", "points"})
    ->Args({1, 2})
    ->Args({2, 8})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
