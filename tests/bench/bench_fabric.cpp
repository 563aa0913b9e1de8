// Native fabric throughput: flows simulated per second of wall time on an 8-GPU node with four
// PCIe switches, two sockets, eight NVMe drives and NVLink, driven the way the simulator drives it
// (next_completion_time / advance_to / start_flow interleaved).
//   steady/N: N flows arriving every 30 us on average (~70% load on the drives, the busiest
//             resource), Engram-gather-like mix.
//   burst/N:  N flows all started at t=0 (N in flight at once), then drained.
//   solve/C:  one max-min solve over C flow classes.
#include <benchmark/benchmark.h>

#include <vector>

#include "core/rng.hpp"
#include "sim/fabric/max_min_solver.hpp"
#include "sim/fabric/native_fabric.hpp"
#include "sim/fabric/node_fabric.hpp"
#include "tests/fabric/fabric_nodes.hpp"

namespace {

using namespace engramsim;
using namespace engramsim::fabric;

NodeFabric eight_gpu_node() { return build_node_fabric(testing::hgx_like_node()); }

// 70% DRAM->GPU row gathers (64 KiB - 4 MiB), 20% SSD page reads into DRAM (48 - 4096 pages),
// 10% NVLink transfers; one in ten flows carries a rate bound from a small set.
std::vector<FlowSpec> workload(const NodeFabric& nf, std::size_t n, Time spacing) {
  RngStream rng(42, "bench-fabric");
  std::vector<FlowSpec> flows;
  Time t;
  for (std::size_t i = 0; i < n; ++i) {
    const auto g = static_cast<std::size_t>(rng.uniform_int(0, 7));
    const double u = rng.uniform01();
    FlowSpec f;
    if (u < 0.7) {
      f.route = nf.dram_to_gpu[g];
      f.size = Bytes(std::round(rng.uniform(64e3, 4e6)));
    } else if (u < 0.9) {
      f.route = nf.drive_to_dram[static_cast<std::size_t>(rng.uniform_int(0, 7))];
      f.size = page_read_bytes(static_cast<std::uint64_t>(rng.uniform_int(48, 4096)));
    } else {
      f.route = nf.gpu_to_gpu[g][(g + 1 + static_cast<std::size_t>(rng.uniform_int(0, 6))) % 8];
      f.size = Bytes(std::round(rng.uniform(1e6, 64e6)));
    }
    if (rng.uniform01() < 0.1) f.rate_bound = Bandwidth::gb_per_s(5.0 * static_cast<double>(rng.uniform_int(1, 4)));
    f.start = t;
    t += Time::ns(static_cast<std::int64_t>(rng.exponential(1.0) * static_cast<double>(spacing.count_ns())));
    flows.push_back(f);
  }
  return flows;
}

std::size_t drive(NativeFabric& fabric, const std::vector<FlowSpec>& flows) {
  std::size_t done = 0, next = 0;
  for (;;) {
    const Time tn = fabric.next_completion_time();
    const Time ts = next < flows.size() ? flows[next].start : Time::max();
    if (tn == Time::max() && ts == Time::max()) break;
    if (ts <= tn) {
      done += fabric.advance_to(ts).size();
      fabric.start_flow(flows[next++]);
    } else {
      done += fabric.advance_to(tn).size();
    }
  }
  return done;
}

void run(benchmark::State& state, Time spacing) {
  const NodeFabric nf = eight_gpu_node();
  const auto flows = workload(nf, static_cast<std::size_t>(state.range(0)), spacing);
  std::size_t completed = 0;
  NativeFabricStats stats;
  for (auto _ : state) {
    NativeFabric fabric(nf.topology);
    completed += drive(fabric, flows);
    stats = fabric.stats();
  }
  if (completed != flows.size() * static_cast<std::size_t>(state.iterations()))
    state.SkipWithError("not every flow completed");
  state.SetItemsProcessed(static_cast<std::int64_t>(completed));
  state.counters["flows_per_s"] = benchmark::Counter(static_cast<double>(completed), benchmark::Counter::kIsRate);
  // Per flow of the last iteration: how much solver work the event loop needed.
  const auto per_flow = [&](std::uint64_t v) { return static_cast<double>(v) / static_cast<double>(flows.size()); };
  state.counters["solves_per_flow"] = per_flow(stats.solves);
  state.counters["memo_hits_per_flow"] = per_flow(stats.memo_hits);
  state.counters["events_per_flow"] = per_flow(stats.events);
}

void BM_FabricSteady(benchmark::State& state) { run(state, Time::us(30)); }
BENCHMARK(BM_FabricSteady)->Name("fabric/steady")->Arg(1000)->Arg(4000)->Arg(16000)->Unit(benchmark::kMillisecond);

void BM_FabricBurst(benchmark::State& state) { run(state, Time::zero()); }
BENCHMARK(BM_FabricBurst)->Name("fabric/burst")->Arg(1000)->Arg(4000)->Arg(8000)->Unit(benchmark::kMillisecond);

void BM_MaxMinSolve(benchmark::State& state) {
  const NodeFabric nf = eight_gpu_node();
  std::vector<double> caps;
  for (const auto& r : nf.topology.resources()) caps.push_back(r.capacity.value());
  MaxMinSolver solver(caps);
  std::vector<FlowClassDemand> demands;
  const auto classes = static_cast<std::size_t>(state.range(0));
  for (std::size_t c = 0; c < classes; ++c)
    demands.push_back(
        {nf.topology.route(static_cast<RouteId>(c % nf.topology.route_count())).hops, static_cast<double>(1 + c % 7)});
  std::vector<double> rates(demands.size());
  for (auto _ : state) {
    solver.solve(demands, rates);
    benchmark::DoNotOptimize(rates.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MaxMinSolve)->Name("fabric/solve")->Arg(8)->Arg(32)->Arg(128);

}  // namespace

BENCHMARK_MAIN();
