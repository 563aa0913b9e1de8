// The shared fabric (sim/fabric/shared_fabric.hpp): flows of several owners compete on one fabric
// and each completion goes back to the owner that started the flow, in (finish, id) order, early
// enough that the owner can start its next flow at the completion instant.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "fabric_test_util.hpp"
#include "sim/fabric/native_fabric.hpp"
#include "sim/fabric/shared_fabric.hpp"

namespace engramsim::fabric {
namespace {

using testing::flow;
using testing::OneLink;

// Records its completions; optionally starts one more flow of `next` bytes when its first lands.
struct Owner final : FlowOwner {
  SharedFabric* fabric = nullptr;
  RouteId route = 0;
  double next = 0.0;
  std::vector<FlowCompletion> done;
  void on_flow_done(const FlowCompletion& c) override {
    done.push_back(c);
    if (next > 0.0) {
      fabric->start_flow(flow(route, Bytes(next), c.finish), *this);
      next = 0.0;
    }
  }
};

TEST(SharedFabric, OwnersShareTheLinkAndHearOfTheirOwnFlowsOnly) {
  OneLink t(Duplex::full, Time::zero());  // 10 GB/s
  SharedFabric f(std::make_unique<NativeFabric>(t.topo));
  int changes = 0;
  f.set_on_change([&changes] { ++changes; });
  Owner a, b;
  b.fabric = &f;
  b.route = t.ab;
  b.next = 10e6;
  f.start_flow(flow(t.ab, Bytes(100e6)), a);  // alone: 10 ms
  f.start_flow(flow(t.ab, Bytes(50e6)), b);   // b's 50 MB at half the link: 10 ms
  EXPECT_EQ(changes, 2);
  EXPECT_EQ(f.next_completion_time(), Time::ms(10));
  f.advance_to(Time::ms(10));
  ASSERT_EQ(b.done.size(), 1u);
  EXPECT_EQ(b.done[0].finish, Time::ms(10));
  EXPECT_TRUE(a.done.empty());
  // b's next 10 MB started at 10 ms beside a's last 50 MB: 2 ms at half the link; a then alone.
  f.advance_to(Time::ms(20));
  ASSERT_EQ(b.done.size(), 2u);
  EXPECT_EQ(b.done[1].finish, Time::ms(12));
  ASSERT_EQ(a.done.size(), 1u);
  EXPECT_EQ(a.done[0].finish, Time::us(16000));  // 40 MB left at 12 ms, alone at 10 GB/s
  EXPECT_EQ(f.flows_in_flight(), 0u);
  EXPECT_EQ(f.now(), Time::ms(20));
  EXPECT_THROW(f.advance_to(Time::ms(19)), std::invalid_argument);
}

}  // namespace
}  // namespace engramsim::fabric
