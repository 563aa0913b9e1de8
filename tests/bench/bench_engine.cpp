// Event-engine throughput: the raw event queue (push + pop at a steady pending-set size) and full
// dispatch through Simulation (handlers re-scheduling themselves, as replicas do).
#include <benchmark/benchmark.h>

#include "core/rng.hpp"
#include "sim/engine/event_queue.hpp"
#include "sim/engine/simulation.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

// Holds `pending` events; each iteration pops the earliest and pushes one a random gap later.
void BM_EventQueueHold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  RngStream rng(1, "bench");
  EventQueue q;
  std::int64_t now = 0;
  for (std::size_t i = 0; i < pending; ++i) q.push(Time::ns(rng.uniform_int(0, 1000000)), 0, nullptr, i);
  std::vector<std::int64_t> gaps(4096);
  for (auto& g : gaps) g = rng.uniform_int(1, 1000000);
  std::size_t k = 0;
  for (auto _ : state) {
    const Event e = q.pop();
    now = e.key.time.count_ns();
    q.push(Time::ns(now + gaps[k & 4095]), static_cast<std::int32_t>(k & 3), nullptr, e.tag);
    ++k;
  }
  benchmark::DoNotOptimize(now);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueHold)->Arg(16)->Arg(1024)->Arg(1 << 20);

class Hopper final : public EventHandler {
 public:
  explicit Hopper(Simulation& sim) : sim_(sim) {}
  void on_event(std::uint64_t tag) override {
    ++count;
    sim_.schedule_after(Time::ns(static_cast<std::int64_t>(1 + (tag * 2654435761u) % 20000)), 1, *this, tag + 1);
  }
  std::uint64_t count = 0;

 private:
  Simulation& sim_;
};

// Dispatch cost per event in a Simulation with `handlers` self-rescheduling handlers.
void BM_SimulationDispatch(benchmark::State& state) {
  const auto handlers = static_cast<int>(state.range(0));
  std::uint64_t events = 0;
  for (auto _ : state) {
    Simulation sim(7);
    std::vector<std::unique_ptr<Hopper>> hs;
    for (int i = 0; i < handlers; ++i) {
      hs.push_back(std::make_unique<Hopper>(sim));
      sim.schedule_at(Time::zero(), 0, *hs.back(), static_cast<std::uint64_t>(i));
    }
    const RunStats s = sim.run(Time::max(), 1'000'000);
    events += s.events;
  }
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulationDispatch)->Arg(8)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
