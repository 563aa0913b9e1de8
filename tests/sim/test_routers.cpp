#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "sim/serving/router/router_registry.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {
std::unique_ptr<Router> make(const std::string& name) {
  RouterRegistry reg;
  register_builtin_routers(reg);
  return reg.create(name);
}
Request with_session(std::uint64_t s) {
  Request r;
  r.session = s;
  return r;
}
}  // namespace

TEST(Routers, RoundRobinCycles) {
  auto r = make("round_robin");
  std::vector<ReplicaLoad> loads(3);
  std::vector<std::size_t> got;
  for (int i = 0; i < 7; ++i) got.push_back(r->route(Request{}, loads));
  EXPECT_EQ(got, (std::vector<std::size_t>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(Routers, LeastOutstandingAndLeastKvBreakTiesByLowestIndex) {
  std::vector<ReplicaLoad> loads{{5, 0, 0.2}, {3, 0, 0.9}, {3, 0, 0.1}, {4, 0, 0.1}};
  EXPECT_EQ(make("least_outstanding")->route(Request{}, loads), 1u);
  EXPECT_EQ(make("least_kv")->route(Request{}, loads), 2u);  // 0.1 twice: fewer outstanding wins
}

TEST(Routers, SessionAffinityKeepsTurnsTogetherAndForgetsFinishedSessions) {
  auto r = make("session_affinity");
  std::vector<ReplicaLoad> loads{{2, 0, 0}, {0, 0, 0}, {1, 0, 0}};
  EXPECT_EQ(r->route(with_session(42), loads), 1u);
  loads[1].outstanding = 9;
  EXPECT_EQ(r->route(with_session(42), loads), 1u);  // sticky despite load
  EXPECT_EQ(r->route(with_session(7), loads), 2u);
  EXPECT_EQ(r->route(Request{}, loads), 2u);  // no session: least outstanding
  r->on_finished(42, 1);
  r->on_finished(42, 1);  // both turns done: binding dropped
  EXPECT_EQ(r->route(with_session(42), loads), 2u);
}

TEST(Routers, StickySessionKeepsASessionOnItsReplicaBetweenTurns) {
  auto r = make("sticky_session");
  std::vector<ReplicaLoad> loads{{2, 0, 0}, {0, 0, 0}, {1, 0, 0}};
  EXPECT_EQ(r->route(with_session(42), loads), 1u);  // first turn: least outstanding
  r->on_finished(42, 1);                             // nothing in flight: the session is between turns
  loads[1].outstanding = 9;
  EXPECT_EQ(r->route(with_session(42), loads), 1u);  // next turn: same replica despite load
  EXPECT_EQ(r->route(with_session(7), loads), 2u);
  r->on_finished(7, 2);
  loads = {{0, 0, 0}, {0, 0, 0}, {5, 0, 0}};
  EXPECT_EQ(r->route(with_session(7), loads), 2u);
  EXPECT_EQ(r->route(with_session(8), loads), 0u);  // a new session: least outstanding
  EXPECT_EQ(r->route(Request{}, loads), 0u);        // no session: least outstanding, unbound
  // Fewer replicas than the bound index (another deployment): re-chosen.
  std::vector<ReplicaLoad> one(1);
  EXPECT_EQ(r->route(with_session(7), one), 0u);
}

TEST(Routers, UnknownNameIsAConfigError) { EXPECT_THROW(make("random"), ConfigError); }
