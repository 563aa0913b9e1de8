// Planner machinery costs, independent of the simulator: sweep expansion and per-point scenario
// construction, the sweep runner with a trivial evaluator (points/s of the thread pool, result
// streaming and canonical rewrite, with and without fsync), and the Pareto / Steffen analysis.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/config_node.hpp"
#include "core/rng.hpp"
#include "planner/pareto.hpp"
#include "planner/sweep_runner.hpp"
#include "planner/sweep_spec.hpp"

using namespace engramsim;
using namespace engramsim::planner;
namespace fs = std::filesystem;

namespace {

// 4 x 3 x n points over a scenario-shaped base.
std::string scenario_text(int concurrency_values) {
  std::string values;
  for (int i = 0; i < concurrency_values; ++i) {
    if (i > 0) values += ", ";
    values += std::to_string(i + 1);
  }
  return "name: bench\n"
         "deployment: {tp: 4, ep: 1, engram_tier: hbm, scheduler: {max_num_seqs: 256, chunk: 2048}}\n"
         "workload: {kind: closed_loop, concurrency: 1, isl: 8192, osl: 1024, requests: 1000}\n"
         "sweep:\n  axes:\n    - {key: deployment.tp, values: [1, 2, 4, 8]}\n"
         "    - {key: deployment.engram_tier, values: [hbm, dram, ssd]}\n"
         "    - {key: workload.concurrency, values: [" +
         values + "]}\n";
}

std::vector<SweepPoint> make_points(int concurrency_values) {
  return expand_sweep(
      SweepSpec::from_scenario(ConfigNode::load_string(scenario_text(concurrency_values), "bench.yaml")));
}

fs::path fresh_dir() {
  std::string tmpl = (fs::temp_directory_path() / "engramsim-bench-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

void BM_ExpandSweep(benchmark::State& state) {
  const auto spec =
      SweepSpec::from_scenario(ConfigNode::load_string(scenario_text(static_cast<int>(state.range(0))), "b.yaml"));
  for (auto _ : state) benchmark::DoNotOptimize(expand_sweep(spec));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(spec.point_count()));
}
BENCHMARK(BM_ExpandSweep)->Arg(16)->Arg(256);

void BM_ScenarioForPoint(benchmark::State& state) {
  const auto root = ConfigNode::load_string(scenario_text(16), "b.yaml");
  const auto points = expand_sweep(SweepSpec::from_scenario(root));
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(scenario_for_point(root.raw(), points[i]));
    i = (i + 1) % points.size();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScenarioForPoint);

// Args: number of points (12 x concurrency values), jobs, durable (fdatasync per batch).
void BM_RunSweepTrivial(benchmark::State& state) {
  const auto points = make_points(static_cast<int>(state.range(0)) / 12);
  const EvaluateFn evaluate = [](const SweepPoint& p) {
    return Outcome::ok({{"throughput_per_gpu", static_cast<double>(p.index) * 1.5}, {"id", p.id}});
  };
  for (auto _ : state) {
    state.PauseTiming();
    const fs::path dir = fresh_dir();
    SweepRunOptions o;
    o.out_dir = dir;
    o.jobs = static_cast<int>(state.range(1));
    o.durable = state.range(2) != 0;
    o.progress = ProgressMode::none;
    state.ResumeTiming();
    benchmark::DoNotOptimize(run_sweep(points, evaluate, o));
    state.PauseTiming();
    fs::remove_all(dir);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(points.size()));
  state.counters["points/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * points.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RunSweepTrivial)
    ->Args({1200, 1, 0})
    ->Args({1200, 2, 0})
    ->Args({240, 1, 1})
    ->Args({240, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

std::vector<CurvePoint> random_points(std::size_t n) {
  RngStream rng(1, "bench-pareto");
  std::vector<CurvePoint> pts(n);
  for (std::size_t i = 0; i < n; ++i) {
    pts[i].x = rng.uniform(1.0, 300.0);
    pts[i].y = 1e5 / pts[i].x * rng.uniform(0.5, 1.0);
    pts[i].config = "c" + std::to_string(i % 16);
    pts[i].concurrency = static_cast<double>(i);
    pts[i].index = i;
  }
  return pts;
}

void BM_ParetoFrontier(benchmark::State& state) {
  const auto pts = random_points(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(pareto_frontier(pts));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParetoFrontier)->Arg(1000)->Arg(100000);

void BM_FrontierCompare(benchmark::State& state) {
  // The report's comparison: two frontiers, the largest ratio over their overlap.
  const auto a = pareto_frontier(random_points(5000));
  auto b = a;
  for (auto& p : b) p.y *= 0.7;
  for (auto _ : state) benchmark::DoNotOptimize(max_frontier_ratio(a, b, 256));
}
BENCHMARK(BM_FrontierCompare);

void BM_SteffenEvaluate(benchmark::State& state) {
  std::vector<double> x;
  std::vector<double> y;
  for (int i = 0; i < 64; ++i) {
    x.push_back(i + 1.0);
    y.push_back(1e5 / (i + 1.0));
  }
  const SteffenSpline s(x, y);
  double q = 1.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s(q));
    q = q >= 63.0 ? 1.0 : q + 0.37;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SteffenEvaluate);

}  // namespace

BENCHMARK_MAIN();
