// The cluster fabric (sim/fabric/cluster_fabric.hpp): routes between nodes over GPUDirect RDMA, and
// KV-transfer flows on it in both backends: on an idle fabric a transfer takes bytes / its narrowest
// link + the route's latency; N transfers through one NIC share it fairly, each N times longer; a
// transfer into a GPU shares that GPU's host link with its Engram fetches.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fabric_test_util.hpp"
#include "sim/fabric/cluster_fabric.hpp"
#include "sim/fabric/simgrid_fabric.hpp"

namespace engramsim::fabric {
namespace {

using testing::run_as_engine;

// An HGX-like node: 4 GPUs on 2 PCIe switches, 64 GB/s links, a 50 GB/s (400 Gb/s) NIC per GPU,
// NVLink 900 GB/s.
NodeFabricParams hgx_like() {
  NodeFabricParams p;
  p.gpu_count = 4;
  p.gpu_groups = {{0, 1}, {2, 3}};
  p.gpu_link_bandwidth = Bandwidth::gb_per_s(64);
  p.gpu_link_latency = Time::ns(500);
  p.switch_uplink_bandwidth = Bandwidth::gb_per_s(64);
  p.host_dram_bandwidth = Bandwidth::gb_per_s(400);
  p.nvlink_bandwidth = Bandwidth::gb_per_s(900);
  p.nvlink_latency = Time::ns(700);
  p.nic_bandwidth = Bandwidth::gb_per_s(50);
  p.nic_latency = Time::us(2);
  return p;
}

std::string hop_names(const FabricTopology& t, RouteId r) {
  std::string out;
  for (const ResourceId id : t.route(r).hops) out += (out.empty() ? "" : " ") + t.resource(id).name;
  return out;
}

TEST(ClusterFabric, NodesCrossOverRdmaAndStayOnNvlinkInside) {
  const ClusterFabric c = build_cluster_fabric({hgx_like(), hgx_like()});
  EXPECT_EQ(hop_names(c.topology, c.gpu_route({0, 1}, {1, 2})),
            "node0.gpu1.link.bwd node0.gpu1.nic.fwd node1.gpu2.nic.bwd node1.gpu2.link.fwd");
  EXPECT_EQ(hop_names(c.topology, c.gpu_route({1, 0}, {1, 3})), "node1.gpu0.nvlink.fwd node1.gpu3.nvlink.bwd");
  EXPECT_EQ(c.gpu_route({0, 2}, {0, 2}), kNoRoute);
  EXPECT_EQ(c.topology.route(c.gpu_route({0, 1}, {1, 2})).latency, Time::ns(500 + 2000 + 2000 + 500));
  EXPECT_THROW(c.gpu_route({2, 0}, {0, 0}), std::out_of_range);
}

TEST(ClusterFabric, SeveralNodesNeedNics) {
  NodeFabricParams no_nic = hgx_like();
  no_nic.nic_bandwidth = Bandwidth{};
  EXPECT_NO_THROW(build_cluster_fabric({no_nic}));
  EXPECT_THROW(build_cluster_fabric({hgx_like(), no_nic}), std::invalid_argument);
}

TEST(ClusterFabric, TraysOfOneScaleUpDomainCrossOverNvlink) {
  // Two trays of one NVLink domain and a third node beyond it.
  const ClusterFabric c = build_cluster_fabric({hgx_like(), hgx_like(), hgx_like()}, {0, 0, 1});
  EXPECT_EQ(hop_names(c.topology, c.gpu_route({0, 1}, {1, 2})), "node0.gpu1.nvlink.fwd node1.gpu2.nvlink.bwd");
  EXPECT_EQ(hop_names(c.topology, c.gpu_route({1, 0}, {2, 0})),
            "node1.gpu0.link.bwd node1.gpu0.nic.fwd node2.gpu0.nic.bwd node2.gpu0.link.fwd");
  NodeFabricParams no_nvlink = hgx_like();
  no_nvlink.nvlink_bandwidth = Bandwidth{};
  EXPECT_THROW(build_cluster_fabric({hgx_like(), no_nvlink}, {0, 0}), std::invalid_argument);
  NodeFabricParams no_nic = hgx_like();
  no_nic.nic_bandwidth = Bandwidth{};
  EXPECT_NO_THROW(build_cluster_fabric({no_nic, no_nic}, {0, 0}));
  EXPECT_THROW(build_cluster_fabric({hgx_like(), hgx_like()}, {0}), std::invalid_argument);
}

class KvTransfer : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (std::string(GetParam()) == "simgrid" && !simgrid_fabric_available({})) GTEST_SKIP() << "no simgrid";
  }
  std::vector<Time> run(const ClusterFabric& c, const std::vector<FlowSpec>& flows) {
    auto fabric = make_fabric(GetParam(), c.topology);
    return run_as_engine(*fabric, flows);
  }
};

constexpr double kRel = 1e-6;

double ms(Time t) { return t.millis(); }

// One request's KV (2 GB here) on an idle fabric: bytes over the NIC, the narrowest hop, plus latency.
TEST_P(KvTransfer, AloneItTakesBytesOverBandwidthPlusLatency) {
  const ClusterFabric c = build_cluster_fabric({hgx_like(), hgx_like()});
  const RouteId r = c.gpu_route({0, 0}, {1, 0});
  const auto done = run(c, {FlowSpec{r, Bytes(2e9), Time::zero(), {}}});
  const double want = 2e9 / 50e9 * 1e3 + ms(c.topology.route(r).latency);
  EXPECT_NEAR(ms(done[0]), want, want * kRel);
}

// N transfers out of one GPU's NIC to N GPUs of another node: fair shares, each N times longer.
TEST_P(KvTransfer, NTransfersThroughOneNicTakeNTimesLonger) {
  const ClusterFabric c = build_cluster_fabric({hgx_like(), hgx_like()});
  std::vector<FlowSpec> flows;
  for (int h = 0; h < 4; ++h) flows.push_back(FlowSpec{c.gpu_route({0, 0}, {1, h}), Bytes(1e9), Time::zero(), {}});
  const auto done = run(c, flows);
  const double latency = ms(c.topology.route(flows[0].route).latency);
  for (const Time t : done) EXPECT_NEAR(ms(t) - latency, 4 * 1e9 / 50e9 * 1e3, 80.0 * kRel);
}

// A KV transfer arriving at a GPU shares its host link with that GPU's Engram fetch from DRAM: two
// flows on a 64 GB/s link get 32 GB/s each, below the NIC's 50.
TEST_P(KvTransfer, ItSharesTheGpuLinkWithEngramFetches) {
  const ClusterFabric c = build_cluster_fabric({hgx_like(), hgx_like()});
  const RouteId kv = c.gpu_route({0, 0}, {1, 1});
  const RouteId engram = c.nodes[1].dram_to_gpu[1];
  const auto done =
      run(c, {FlowSpec{kv, Bytes(1.6e9), Time::zero(), {}}, FlowSpec{engram, Bytes(1.6e9), Time::zero(), {}}});
  const double kv_ms = ms(done[0]) - ms(c.topology.route(kv).latency);
  EXPECT_NEAR(kv_ms, 1.6e9 / 32e9 * 1e3, 0.01);  // the fetch starts 4.5 us earlier, alone
}

INSTANTIATE_TEST_SUITE_P(Backends, KvTransfer, ::testing::Values("native", "simgrid"));

}  // namespace
}  // namespace engramsim::fabric
