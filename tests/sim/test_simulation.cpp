#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "sim/engine/simulation.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

// Re-schedules itself with random gaps, logging (time, draw) pairs.
class Ticker final : public EventHandler {
 public:
  Ticker(Simulation& sim, int n) : sim_(sim), left_(n) {}
  void on_event(std::uint64_t tag) override {
    log.push_back({sim_.now().count_ns(), tag});
    if (--left_ > 0) {
      const auto gap = Time::ns(sim_.rng("ticks").uniform_int(0, 1000));
      sim_.schedule_after(gap, 0, *this, sim_.rng("tags").next_u64() % 1000);
    }
  }
  std::vector<std::pair<std::int64_t, std::uint64_t>> log;

 private:
  Simulation& sim_;
  int left_;
};

class Recorder final : public EventHandler {
 public:
  explicit Recorder(Simulation& sim) : sim_(sim) {}
  void on_event(std::uint64_t tag) override {
    seen.push_back(tag);
    if (tag == 100) sim_.stop();
  }
  std::vector<std::uint64_t> seen;

 private:
  Simulation& sim_;
};

class CountingObserver final : public EventObserver {
 public:
  void on_dispatch(const Event&) override { ++count; }
  int count = 0;
};

std::vector<std::pair<std::int64_t, std::uint64_t>> run_ticker(std::uint64_t seed, int n) {
  Simulation sim(seed);
  Ticker t(sim, n);
  sim.schedule_at(Time::zero(), 0, t, 0);
  sim.run();
  return t.log;
}

}  // namespace

TEST(Simulation, ClockFollowsEventsAndRejectsThePast) {
  Simulation sim(1);
  Recorder r(sim);
  sim.schedule_at(Time::ns(30), 0, r, 3);
  sim.schedule_at(Time::ns(10), 5, r, 1);
  sim.schedule_at(Time::ns(10), 0, r, 0);
  CountingObserver obs;
  sim.add_observer(obs);
  const RunStats s = sim.run();
  EXPECT_EQ(r.seen, (std::vector<std::uint64_t>{0, 1, 3}));
  EXPECT_EQ(s.end, RunEnd::drained);
  EXPECT_EQ(s.events, 3u);
  EXPECT_EQ(obs.count, 3);
  EXPECT_EQ(sim.now(), Time::ns(30));
  EXPECT_THROW(sim.schedule_at(Time::ns(29), 0, r, 9), std::logic_error);
  EXPECT_NO_THROW(sim.schedule_at(Time::ns(30), -1, r, 9));
}

TEST(Simulation, HorizonEventLimitAndStop) {
  Simulation sim(1);
  Recorder r(sim);
  for (std::uint64_t i = 0; i < 10; ++i) sim.schedule_at(Time::ns(static_cast<std::int64_t>(i) * 10), 0, r, i);
  RunStats s = sim.run(Time::ns(35));
  EXPECT_EQ(s.end, RunEnd::horizon);
  EXPECT_EQ(r.seen.size(), 4u);  // 0, 10, 20, 30
  EXPECT_EQ(sim.now(), Time::ns(35));
  s = sim.run(Time::max(), 2);
  EXPECT_EQ(s.end, RunEnd::event_limit);
  EXPECT_EQ(r.seen.size(), 6u);
  sim.schedule_at(Time::ns(55), 0, r, 100);
  s = sim.run();
  EXPECT_EQ(s.end, RunEnd::stopped);
  EXPECT_EQ(r.seen.back(), 100u);
  EXPECT_EQ(sim.pending_events(), 4u);
}

TEST(Simulation, RngStreamsIndependentOfCreationOrder) {
  Simulation a(7), b(7);
  const auto a1 = a.rng("x").next_u64();
  const auto a2 = a.rng("y").next_u64();
  const auto b2 = b.rng("y").next_u64();
  const auto b1 = b.rng("x").next_u64();
  EXPECT_EQ(a1, b1);
  EXPECT_EQ(a2, b2);
  EXPECT_NE(a1, a2);
  EXPECT_EQ(&a.rng("x"), &a.rng("x"));
}

TEST(Simulation, SameSeedSameRunDifferentSeedDifferentRun) {
  EXPECT_EQ(run_ticker(3, 2000), run_ticker(3, 2000));
  EXPECT_NE(run_ticker(3, 2000), run_ticker(4, 2000));
}

TEST(Simulation, ParallelSimulationsDoNotInterfere) {
  std::vector<std::vector<std::pair<std::int64_t, std::uint64_t>>> serial, parallel(8);
  for (std::uint64_t s = 0; s < 8; ++s) serial.push_back(run_ticker(s, 20000));
  std::vector<std::thread> threads;
  for (std::uint64_t s = 0; s < 8; ++s) threads.emplace_back([&, s] { parallel[s] = run_ticker(s, 20000); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(serial, parallel);
}
