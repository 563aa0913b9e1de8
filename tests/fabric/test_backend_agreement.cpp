// The same scenarios on the native and simgrid backends: every flow's completion time must agree
// within 1e-6 relative. Flows last milliseconds so that the 1 ns reporting grain stays below that.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/rng.hpp"
#include "fabric_nodes.hpp"
#include "fabric_test_util.hpp"
#include "sim/fabric/node_fabric.hpp"
#include "sim/fabric/simgrid_fabric.hpp"

namespace engramsim::fabric {
namespace {

using testing::flow;
using testing::OneLink;
using testing::run_as_engine;

constexpr double kRelTol = 1e-6;

void expect_agreement(const FabricTopology& topo, const std::vector<FlowSpec>& flows,
                      const FabricOptions& options = {}) {
  if (!simgrid_fabric_available(options)) GTEST_SKIP() << "simgrid backend not built";
  auto native = make_fabric("native", topo, options);
  auto simgrid = make_fabric("simgrid", topo, options);
  const auto a = run_as_engine(*native, flows);
  const auto b = run_as_engine(*simgrid, flows);
  ASSERT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_NE(a[i], Time::max()) << "flow " << i << " never completed on native";
    ASSERT_NE(b[i], Time::max()) << "flow " << i << " never completed on simgrid";
    const double x = static_cast<double>(a[i].count_ns());
    const double y = static_cast<double>(b[i].count_ns());
    const double rel = std::abs(x - y) / std::max(x, y);
    worst = std::max(worst, rel);
    EXPECT_LE(rel, kRelTol) << "flow " << i << ": native " << to_string(a[i]) << " simgrid " << to_string(b[i]);
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", worst);
  ::testing::Test::RecordProperty("worst_relative_difference", text);
}

TEST(BackendAgreement, TwoFlowsShareALink) {
  OneLink t(Duplex::full, Time::us(2));
  expect_agreement(t.topo, {flow(t.ab, Bytes(64e6)), flow(t.ab, Bytes(32e6))});
}

TEST(BackendAgreement, StaggeredStarts) {
  OneLink t(Duplex::full, Time::us(2));
  expect_agreement(
      t.topo, {flow(t.ab, Bytes(40e6)), flow(t.ab, Bytes(20e6), Time::ms(1)), flow(t.ab, Bytes(30e6), Time::us(2500)),
               flow(t.ab, Bytes(5e6), Time::ms(4)), flow(t.ba, Bytes(10e6), Time::us(1500))});
}

TEST(BackendAgreement, HalfDuplexLinkSharedByBothDirections) {
  OneLink t(Duplex::half, Time::us(2));
  expect_agreement(t.topo, {flow(t.ab, Bytes(30e6)), flow(t.ba, Bytes(30e6)), flow(t.ba, Bytes(12e6), Time::ms(2)),
                            flow(t.ab, Bytes(8e6), Time::ms(3))});
}

TEST(BackendAgreement, FourGpusBehindTwoSwitchesFetchFromHostDram) {
  NodeFabricParams p;
  p.gpu_count = 4;
  p.gpu_groups = {{0, 1}, {2, 3}};
  p.gpu_link_bandwidth = Bandwidth::gb_per_s(50);
  p.gpu_link_latency = Time::ns(600);
  p.switch_uplink_bandwidth = Bandwidth::gb_per_s(64);
  p.switch_uplink_latency = Time::ns(400);
  p.host_dram_bandwidth = Bandwidth::gb_per_s(100);
  p.host_dram_latency = Time::ns(100);
  const NodeFabric nf = build_node_fabric(p);
  expect_agreement(nf.topology, {flow(nf.dram_to_gpu[0], Bytes(100e6)), flow(nf.dram_to_gpu[1], Bytes(50e6)),
                                 flow(nf.dram_to_gpu[2], Bytes(200e6)), flow(nf.dram_to_gpu[3], Bytes(25e6)),
                                 flow(nf.gpu_to_dram[0], Bytes(40e6), Time::ms(1)),
                                 flow(nf.dram_to_gpu[3], Bytes(60e6), Time::ms(2))});
}

TEST(BackendAgreement, SsdSaturatedByIops) {
  FabricTopology topo;
  const auto d = topo.add_nvme("nvme0", NvmeParams{Bandwidth::gb_per_s(14), 1.5e6, Bytes::kib(4), Time::us(80)});
  const auto dram = topo.add_resource("dram", Bandwidth::gb_per_s(200), Time::zero(), ResourceKind::dram);
  const RouteId read = topo.add_route("nvme0->dram", {d.iops, d.bandwidth, dram});
  std::vector<FlowSpec> flows;
  for (int i = 0; i < 64; ++i)
    flows.push_back(flow(read, page_read_bytes(2048 + 64 * static_cast<std::uint64_t>(i)), Time::us(150.0 * i)));
  expect_agreement(topo, flows);
}

TEST(BackendAgreement, RateBoundedFlows) {
  OneLink t(Duplex::full, Time::us(2));
  expect_agreement(t.topo, {flow(t.ab, Bytes(20e6), Time::zero(), Bandwidth::gb_per_s(2)), flow(t.ab, Bytes(20e6)),
                            flow(t.ab, Bytes(9e6), Time::ms(1), Bandwidth::gb_per_s(4.5)),
                            flow(t.ab, Bytes(9e6), Time::ms(1), Bandwidth::gb_per_s(3))});
}

TEST(BackendAgreement, RandomWorkloadOnAnEightGpuNode) {
  // The HGX-like node without switch, DRAM and NVLink latencies, at half its DRAM and NVLink
  // bandwidth, with four drives behind one narrower uplink.
  NodeFabricParams p = testing::hgx_like_node();
  p.switch_uplink_latency = Time::zero();
  p.host_dram_bandwidth = Bandwidth::gb_per_s(300);
  p.host_dram_latency = Time::zero();
  p.drive_count = 4;
  p.drive_groups.clear();
  p.drive_group_uplink_bandwidth = Bandwidth::gb_per_s(30);
  p.nvlink_bandwidth = Bandwidth::gb_per_s(450);
  p.nvlink_latency = Time::zero();
  const NodeFabric nf = build_node_fabric(p);
  RngStream rng(5, "agreement");
  std::vector<FlowSpec> flows;
  for (int i = 0; i < 120; ++i) {
    const auto g = static_cast<std::size_t>(rng.uniform_int(0, 7));
    const auto d = static_cast<std::size_t>(rng.uniform_int(0, 3));
    const RouteId r = testing::node_route(nf, rng.uniform_int(0, 4), g, d, [&] { return (g + 3) % 8; });
    std::optional<Bandwidth> bound;
    if (rng.uniform01() < 0.15) bound = Bandwidth::gb_per_s(rng.uniform(2, 20));
    flows.push_back(
        flow(r, Bytes(std::round(rng.uniform(20e6, 200e6))), Time::ns(rng.uniform_int(0, 20'000'000)), bound));
  }
  expect_agreement(nf.topology, flows);
}

TEST(SimGridFabric, TooManyBoundedFlowsOnOneRouteIsAnError) {
  FabricOptions options;
  options.simgrid_bound_slots = 1;
  if (!simgrid_fabric_available(options)) GTEST_SKIP() << "simgrid backend not built";
  OneLink t(Duplex::full, Time::us(2));
  auto f = make_fabric("simgrid", t.topo, options);
  f->start_flow(flow(t.ab, Bytes(1e6), Time::zero(), Bandwidth::gb_per_s(1)));
  f->start_flow(flow(t.ab, Bytes(1e6), Time::zero(), Bandwidth::gb_per_s(1)));
  EXPECT_THROW(f->advance_to(Time::ms(1)), std::runtime_error);
}

TEST(SimGridFabric, MissingHelperIsReportedWhenCreated) {
  FabricOptions options;
  options.simgrid_helper = "/nonexistent/engramsim-simgrid-fabric";
  EXPECT_FALSE(simgrid_fabric_available(options));
  OneLink t(Duplex::full, Time::us(2));
  EXPECT_THROW(make_fabric("simgrid", t.topo, options), std::runtime_error);
}

TEST(SimGridFabric, HelperThatDoesNotSpeakTheProtocolIsAnError) {
  FabricOptions options;
  options.simgrid_helper = "/bin/cat";  // echoes the platform back instead of answering "ready"
  if (!simgrid_fabric_available(options)) GTEST_SKIP() << "no /bin/cat";
  OneLink t(Duplex::full, Time::us(2));
  EXPECT_THROW(make_fabric("simgrid", t.topo, options), std::runtime_error);
}

}  // namespace
}  // namespace engramsim::fabric
