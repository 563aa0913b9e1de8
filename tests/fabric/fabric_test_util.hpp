// Helpers shared by the fabric tests: drive a Fabric the way the simulator's event loop does.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "sim/fabric/fabric.hpp"

namespace engramsim::fabric::testing {

// Starts each flow when the clock reaches its start (the engine pattern: compare the fabric's next
// completion with the next own event, advance to the earlier one). Returns finish times indexed
// like `flows`. Also checks the API contract on the way: completions never precede the previous
// clock nor exceed the advance target, and a reported next completion is delivered by advancing
// to it.
inline std::vector<Time> run_as_engine(Fabric& fabric, const std::vector<FlowSpec>& flows) {
  std::vector<std::size_t> order(flows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return flows[a].start < flows[b].start; });
  std::vector<Time> finish(flows.size(), Time::max());
  std::vector<std::size_t> index_of_id;
  const auto record = [&](const std::vector<FlowCompletion>& done, Time before, Time target) {
    for (const FlowCompletion& c : done) {
      EXPECT_GE(c.finish, before);
      EXPECT_LE(c.finish, target);
      finish.at(index_of_id.at(c.id)) = c.finish;
    }
  };
  std::size_t next = 0;
  for (;;) {
    const Time tn = fabric.next_completion_time();
    const Time ts = next < order.size() ? flows[order[next]].start : Time::max();
    if (tn == Time::max() && ts == Time::max()) break;
    const Time before = fabric.now();
    if (ts <= tn) {
      record(fabric.advance_to(ts), before, ts);
      const FlowId id = fabric.start_flow(flows[order[next]]);
      if (index_of_id.size() <= id) index_of_id.resize(id + 1);
      index_of_id[id] = order[next];
      ++next;
    } else {
      const auto done = fabric.advance_to(tn);
      EXPECT_FALSE(done.empty()) << "advance_to(next_completion_time()) delivered nothing at " << to_string(tn);
      record(done, before, tn);
    }
  }
  EXPECT_EQ(fabric.flows_in_flight(), 0u);
  return finish;
}

// Starts every flow up front (future starts allowed), then drains.
inline std::vector<Time> run_all_upfront(Fabric& fabric, const std::vector<FlowSpec>& flows) {
  std::vector<Time> finish(flows.size(), Time::max());
  std::vector<std::size_t> index_of_id;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const FlowId id = fabric.start_flow(flows[i]);
    if (index_of_id.size() <= id) index_of_id.resize(id + 1);
    index_of_id[id] = i;
  }
  for (Time tn = fabric.next_completion_time(); tn != Time::max(); tn = fabric.next_completion_time())
    for (const FlowCompletion& c : fabric.advance_to(tn)) finish.at(index_of_id.at(c.id)) = c.finish;
  return finish;
}

// One link between a and b, with routes both ways.
struct OneLink {
  FabricTopology topo;
  RouteId ab = 0, ba = 0;
  OneLink(Duplex duplex, Time latency, double gbps = 10.0) {
    const auto l = topo.add_link("l", Bandwidth::gb_per_s(gbps), latency, duplex);
    ab = topo.add_route("a->b", {l.forward});
    ba = topo.add_route("b->a", {l.backward});
  }
};

inline FlowSpec flow(RouteId route, Bytes size, Time start = Time::zero(),
                     std::optional<Bandwidth> bound = std::nullopt) {
  return FlowSpec{route, size, start, bound};
}

}  // namespace engramsim::fabric::testing
