#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "core/rng.hpp"
#include "sim/engine/event_queue.hpp"
#include "sim/serving/engram_in_run.hpp"
#include "sim/serving/event_priorities.hpp"

using namespace engramsim;
using namespace engramsim::sim;

TEST(EventOrder, TimeThenPriorityThenSequence) {
  const EventKey a{Time::ns(5), 3, 10};
  EXPECT_TRUE(event_before(EventKey{Time::ns(4), 9, 99}, a));  // earlier time wins over priority and seq
  EXPECT_FALSE(event_before(EventKey{Time::ns(6), 0, 0}, a));
  EXPECT_TRUE(event_before(EventKey{Time::ns(5), 2, 99}, a));  // same time: lower priority first
  EXPECT_FALSE(event_before(EventKey{Time::ns(5), 4, 0}, a));
  EXPECT_TRUE(event_before(EventKey{Time::ns(5), 3, 9}, a));  // same time and priority: lower seq first
  EXPECT_FALSE(event_before(EventKey{Time::ns(5), 3, 11}, a));
  EXPECT_FALSE(event_before(a, a));  // strict
}

TEST(EventQueue, PopsInKeyOrderAndAssignsIncreasingSequence) {
  EventQueue q;
  EXPECT_EQ(q.push(Time::ns(10), 0, nullptr, 1), 0u);
  EXPECT_EQ(q.push(Time::ns(5), 1, nullptr, 2), 1u);
  EXPECT_EQ(q.push(Time::ns(5), 0, nullptr, 3), 2u);
  EXPECT_EQ(q.push(Time::ns(5), 0, nullptr, 4), 3u);
  std::vector<std::uint64_t> tags;
  while (!q.empty()) tags.push_back(q.pop().tag);
  EXPECT_EQ(tags, (std::vector<std::uint64_t>{3, 4, 2, 1}));
}

TEST(EventQueue, MatchesStableSortOnRandomKeys) {
  RngStream rng(1, "queue");
  EventQueue q;
  std::vector<std::tuple<std::int64_t, int, std::uint64_t>> expected;
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const auto t = rng.uniform_int(0, 50);
    const auto p = static_cast<int>(rng.uniform_int(-2, 2));
    q.push(Time::ns(t), p, nullptr, i);
    expected.emplace_back(t, p, i);
    if (i % 7 == 0) {  // interleave pops with pushes
      const Event e = q.pop();
      const auto it = std::min_element(expected.begin(), expected.end());
      EXPECT_EQ(e.tag, std::get<2>(*it));
      expected.erase(it);
    }
  }
  std::sort(expected.begin(), expected.end());
  for (const auto& [t, p, tag] : expected) {
    ASSERT_FALSE(q.empty());
    const Event e = q.pop();
    EXPECT_EQ(e.key.time.count_ns(), t);
    EXPECT_EQ(e.key.priority, p);
    EXPECT_EQ(e.tag, tag);
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventPriorities, ServingEventsAtOneInstantRunInTheDocumentedOrder) {
  // Arrivals, then fabric progress, then step ends, then wake-ups (event_priorities.hpp).
  const std::vector<std::int32_t> order{event_priority::arrival, event_priority::fabric, event_priority::step_done,
                                        event_priority::replica_wake};
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(std::adjacent_find(order.begin(), order.end()), order.end());  // no two the same
  EXPECT_EQ(event_priority_fabric, event_priority::fabric);
  EventQueue q;
  for (std::size_t i = order.size(); i-- > 0;) q.push(Time::ns(7), order[i], nullptr, i);
  for (std::uint64_t i = 0; i < order.size(); ++i) EXPECT_EQ(q.pop().tag, i);
}
