#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "fabric_nodes.hpp"
#include "fabric_test_util.hpp"
#include "sim/fabric/max_min_solver.hpp"
#include "sim/fabric/native_fabric.hpp"
#include "sim/fabric/node_fabric.hpp"

namespace engramsim::fabric {
namespace {

using testing::flow;
using testing::OneLink;
using testing::run_all_upfront;
using testing::run_as_engine;

constexpr double kGBps = 1e9;

TEST(NativeFabric, TwoFlowsShareALinkAfterTheLatency) {
  OneLink t(Duplex::full, Time::us(2));
  NativeFabric f(t.topo);
  const auto fin = run_as_engine(f, {flow(t.ab, Bytes(100e6)), flow(t.ab, Bytes(50e6))});
  EXPECT_EQ(fin[1], Time::us(10002));  // 50 MB at 5 GB/s
  EXPECT_EQ(fin[0], Time::us(15002));  // then the last 50 MB alone at 10 GB/s
}

TEST(NativeFabric, StaggeredStartsReshareOnArrival) {
  OneLink t(Duplex::full, Time::zero());
  NativeFabric f(t.topo);
  const auto fin = run_as_engine(f, {flow(t.ab, Bytes(100e6)), flow(t.ab, Bytes(20e6), Time::ms(4))});
  EXPECT_EQ(fin[1], Time::ms(8));
  EXPECT_EQ(fin[0], Time::ms(12));
}

TEST(NativeFabric, HalfDuplexSharesBothDirectionsFullDuplexDoesNot) {
  OneLink half(Duplex::half, Time::zero());
  NativeFabric fh(half.topo);
  const auto h = run_as_engine(fh, {flow(half.ab, Bytes(30e6)), flow(half.ba, Bytes(30e6))});
  EXPECT_EQ(h[0], Time::ms(6));
  EXPECT_EQ(h[1], Time::ms(6));
  OneLink full(Duplex::full, Time::zero());
  NativeFabric ff(full.topo);
  const auto g = run_as_engine(ff, {flow(full.ab, Bytes(30e6)), flow(full.ba, Bytes(30e6))});
  EXPECT_EQ(g[0], Time::ms(3));
  EXPECT_EQ(g[1], Time::ms(3));
}

// Flow b pays 5 ms of latency before it competes; next_completion_time at t=0 must see that its
// arrival slows a down (a alone would finish at 10 ms; b finishes first at 13 ms).
TEST(NativeFabric, LatencyIsPaidBeforeSharingAndLookAheadSeesIt) {
  FabricTopology topo;
  const auto x = topo.add_link("x", Bandwidth::gb_per_s(10), Time::zero(), Duplex::full);
  const auto far = topo.add_resource("far", Bandwidth::gb_per_s(1000), Time::ms(5));
  const RouteId near_route = topo.add_route("near", {x.forward});
  const RouteId far_route = topo.add_route("far", {x.forward, far});
  NativeFabric f(topo);
  const FlowId a = f.start_flow(flow(near_route, Bytes(100e6)));
  const FlowId b = f.start_flow(flow(far_route, Bytes(40e6)));
  EXPECT_EQ(f.next_completion_time(), Time::ms(13));
  EXPECT_TRUE(f.advance_to(Time::ms(4)).empty());
  EXPECT_DOUBLE_EQ(f.current_rate(a), 10 * kGBps);
  EXPECT_DOUBLE_EQ(f.current_rate(b), 0.0);  // still in its latency phase
  EXPECT_TRUE(f.advance_to(Time::ms(6)).empty());
  EXPECT_DOUBLE_EQ(f.current_rate(a), 5 * kGBps);
  auto done = f.advance_to(f.next_completion_time());
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, b);
  EXPECT_EQ(done[0].finish, Time::ms(13));
  EXPECT_EQ(f.next_completion_time(), Time::ms(14));
}

TEST(NativeFabric, FlowStartedAfterALookAheadInvalidatesIt) {
  OneLink t(Duplex::full, Time::zero());
  NativeFabric f(t.topo);
  f.start_flow(flow(t.ab, Bytes(100e6)));
  EXPECT_EQ(f.next_completion_time(), Time::ms(10));
  f.start_flow(flow(t.ab, Bytes(20e6), Time::ms(2)));  // in the future
  EXPECT_EQ(f.next_completion_time(), Time::ms(6));
  const auto first = f.advance_to(Time::ms(6));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].id, 1u);
  EXPECT_EQ(f.next_completion_time(), Time::ms(12));
}

TEST(NativeFabric, UpfrontAndEngineStyleDrivingAgree) {
  OneLink t(Duplex::half, Time::us(3));
  const std::vector<FlowSpec> flows{flow(t.ab, Bytes(7e6)), flow(t.ba, Bytes(3e6), Time::us(100)),
                                    flow(t.ab, Bytes(5e6), Time::us(250)), flow(t.ab, Bytes(1e6), Time::us(250))};
  NativeFabric f1(t.topo), f2(t.topo);
  EXPECT_EQ(run_as_engine(f1, flows), run_all_upfront(f2, flows));
}

TEST(NativeFabric, RateBoundCapsOneFlowAndTheOtherTakesTheRest) {
  OneLink t(Duplex::full, Time::zero());
  NativeFabric f(t.topo);
  const auto fin =
      run_as_engine(f, {flow(t.ab, Bytes(20e6), Time::zero(), Bandwidth::gb_per_s(2)), flow(t.ab, Bytes(20e6))});
  EXPECT_EQ(fin[1], Time::us(2500));
  EXPECT_EQ(fin[0], Time::ms(10));
}

TEST(NativeFabric, EmptyFlowCompletesWhenItsLatencyIsPaid) {
  OneLink t(Duplex::full, Time::us(7));
  NativeFabric f(t.topo);
  const auto fin = run_as_engine(f, {flow(t.ab, Bytes(0), Time::us(1))});
  EXPECT_EQ(fin[0], Time::us(8));
}

TEST(NativeFabric, NvmeIopsBindsWhenPagesAreTheLimitBandwidthOtherwise) {
  for (const double iops : {1e6, 3e6}) {
    FabricTopology topo;
    const auto d = topo.add_nvme("nvme0", NvmeParams{Bandwidth::gb_per_s(7), iops, Bytes::kib(4), Time::us(80)});
    const RouteId r = topo.add_route("read", {d.iops, d.bandwidth});
    NativeFabric f(topo);
    std::vector<FlowSpec> flows(16, flow(r, page_read_bytes(1000)));
    const auto fin = run_as_engine(f, flows);
    const double bytes = 16000.0 * 4096.0;
    const double seconds = iops < 2e6 ? 16000.0 / iops : bytes / 7e9;
    for (const Time t : fin) EXPECT_EQ(t, Time::us(80) + ceil_to_ns(seconds)) << "iops " << iops;
  }
}

TEST(NativeFabric, RejectsBadFlowsAndBackwardsTime) {
  OneLink t(Duplex::full, Time::zero());
  NativeFabric f(t.topo);
  EXPECT_THROW(f.start_flow(flow(99, Bytes(1))), std::invalid_argument);
  EXPECT_THROW(f.start_flow(flow(t.ab, Bytes(-1))), std::invalid_argument);
  EXPECT_THROW(f.start_flow(flow(t.ab, Bytes(1), Time::zero(), Bandwidth(0))), std::invalid_argument);
  f.advance_to(Time::ms(1));
  EXPECT_THROW(f.start_flow(flow(t.ab, Bytes(1), Time::us(999))), std::invalid_argument);
  EXPECT_NO_THROW(f.start_flow(flow(t.ab, Bytes(1), Time::ms(1))));
  EXPECT_THROW(f.advance_to(Time::us(999)), std::invalid_argument);
  EXPECT_EQ(f.flows_in_flight(), 1u);
}

TEST(NativeFabric, IdleFabricHasNoNextCompletion) {
  OneLink t(Duplex::full, Time::zero());
  NativeFabric f(t.topo);
  EXPECT_EQ(f.next_completion_time(), Time::max());
  EXPECT_TRUE(f.advance_to(Time::ms(5)).empty());
  EXPECT_EQ(f.now(), Time::ms(5));
}

TEST(FabricRegistry, UnknownBackendIsAConfigErrorNamingTheKnownOnes) {
  OneLink t(Duplex::full, Time::zero());
  try {
    make_fabric("ns3", t.topo);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "fabric.backend");
    EXPECT_NE(std::string(e.what()).find("native, simgrid"), std::string::npos) << e.what();
  }
  EXPECT_EQ(make_fabric("native", t.topo)->backend(), "native");
}

TEST(FabricTopology, RejectsMalformedResourcesAndRoutes) {
  FabricTopology t;
  EXPECT_THROW(t.add_resource("x", Bandwidth(0), Time::zero()), std::invalid_argument);
  EXPECT_THROW(t.add_resource("x", Bandwidth(1), Time::ns(-1)), std::invalid_argument);
  const auto r = t.add_resource("x", Bandwidth(1), Time::ns(3));
  EXPECT_THROW(t.add_resource("x", Bandwidth(1), Time::zero()), std::invalid_argument);
  EXPECT_THROW(t.add_route("empty", {}), std::invalid_argument);
  EXPECT_THROW(t.add_route("twice", {r, r}), std::invalid_argument);
  EXPECT_THROW(t.add_route("unknown", {r + 1}), std::invalid_argument);
  const auto y = t.add_resource("y", Bandwidth(1), Time::ns(4));
  const RouteId ok = t.add_route("ok", {r, y});
  EXPECT_EQ(t.route(ok).latency, Time::ns(7));
  EXPECT_THROW(t.add_route("ok", {r}), std::invalid_argument);
  EXPECT_EQ(t.find_route("ok"), ok);
}

// An independent per-flow reference: every event recomputes every flow's rate with one class per
// flow and moves every flow's remaining bytes. The native backend's class/heap bookkeeping must
// reproduce it on a random workload over a full node.
std::vector<double> reference_finish(const FabricTopology& topo, const std::vector<FlowSpec>& flows) {
  std::vector<double> caps;
  for (const auto& r : topo.resources()) caps.push_back(r.capacity.value());
  MaxMinSolver solver(caps);
  std::vector<double> remaining, finish(flows.size(), -1.0), activation;
  for (const auto& f : flows) {
    remaining.push_back(f.size.value());
    activation.push_back((f.start + topo.route(f.route).latency).seconds());
  }
  double now = 0;
  for (;;) {
    std::vector<std::size_t> active;
    std::vector<FlowClassDemand> demands;
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (finish[i] < 0 && activation[i] <= now) {
        active.push_back(i);
        demands.push_back(
            {topo.route(flows[i].route).hops, 1.0,
             flows[i].rate_bound ? flows[i].rate_bound->value() : std::numeric_limits<double>::infinity()});
      }
    std::vector<double> rate(active.size());
    solver.solve(demands, rate);
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (finish[i] < 0 && activation[i] > now) next = std::min(next, activation[i]);
    for (std::size_t k = 0; k < active.size(); ++k) next = std::min(next, now + remaining[active[k]] / rate[k]);
    if (next == std::numeric_limits<double>::infinity()) break;
    for (std::size_t k = 0; k < active.size(); ++k) {
      remaining[active[k]] -= rate[k] * (next - now);
      if (remaining[active[k]] <= rate[k] * 1e-12) finish[active[k]] = next;
    }
    now = next;
  }
  return finish;
}

TEST(NativeFabric, MatchesAPerFlowReferenceOnARandomNodeWorkload) {
  const NodeFabric nf = build_node_fabric(testing::hgx_like_node());
  RngStream rng(11, "fabric-reference");
  std::vector<FlowSpec> flows;
  for (int i = 0; i < 300; ++i) {
    const auto g = static_cast<std::size_t>(rng.uniform_int(0, 7));
    const auto d = static_cast<std::size_t>(rng.uniform_int(0, 7));
    const RouteId r = testing::node_route(
        nf, rng.uniform_int(0, 4), g, d, [&] { return (g + 1 + static_cast<std::size_t>(rng.uniform_int(0, 6))) % 8; });
    std::optional<Bandwidth> bound;
    if (rng.uniform01() < 0.2) bound = Bandwidth::gb_per_s(rng.uniform(1, 20));
    flows.push_back(flow(r, Bytes(std::round(rng.uniform(1e5, 3e7))), Time::ns(rng.uniform_int(0, 5'000'000)), bound));
  }
  NativeFabric f(nf.topology);
  const auto got = run_as_engine(f, flows);
  const auto want = reference_finish(nf.topology, flows);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    ASSERT_GE(want[i], 0.0);
    EXPECT_NEAR(static_cast<double>(got[i].count_ns()), want[i] * 1e9, 1.0 + want[i] * 1e9 * 1e-9) << "flow " << i;
  }
}

// A class kept busy for 400 s: a 3 TB background flow on another route holds part of the link, so
// each 6 GB flow lasts over a second and the next one joins before it ends. The class never
// empties, its progress counter passes the 2^40-byte rebase point, and 4 KiB flows keep joining.
TEST(NativeFabric, LongBusyClassRebasesWithoutLosingSmallFlows) {
  FabricTopology topo;
  const auto l = topo.add_link("l", Bandwidth::gb_per_s(10), Time::zero(), Duplex::full);
  const RouteId busy = topo.add_route("busy", {l.forward});
  const RouteId background = topo.add_route("background", {l.forward});
  std::vector<FlowSpec> flows{flow(background, Bytes(3e12))};
  for (int i = 0; i < 400; ++i) {
    flows.push_back(flow(busy, Bytes(6e9), Time::ms(1000.0 * i)));
    flows.push_back(flow(busy, Bytes(4096), Time::ms(1000.0 * i + 500)));
  }
  NativeFabric f(topo);
  const auto got = run_as_engine(f, flows);
  const auto want = reference_finish(topo, flows);
  for (std::size_t i = 0; i < flows.size(); ++i)
    EXPECT_NEAR(static_cast<double>(got[i].count_ns()), want[i] * 1e9, 1.0 + want[i] * 1e9 * 1e-12) << "flow " << i;
}

TEST(NativeFabric, RepeatedRunsAreIdentical) {
  const NodeFabric nf = build_node_fabric(testing::hgx_like_node());
  std::vector<FlowSpec> flows;
  for (std::size_t g = 0; g < 8; ++g)
    for (int k = 0; k < 20; ++k)
      flows.push_back(flow(nf.dram_to_gpu[g], Bytes(1e6 * static_cast<double>(k + 1)), Time::us(37.0 * k)));
  NativeFabric a(nf.topology), b(nf.topology);
  EXPECT_EQ(run_as_engine(a, flows), run_as_engine(b, flows));
}

}  // namespace
}  // namespace engramsim::fabric
