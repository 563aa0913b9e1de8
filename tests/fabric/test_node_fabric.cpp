#include <gtest/gtest.h>

#include <stdexcept>

#include "fabric_test_util.hpp"
#include "sim/fabric/native_fabric.hpp"
#include "sim/fabric/node_fabric.hpp"

namespace engramsim::fabric {
namespace {

using testing::flow;
using testing::run_as_engine;

std::vector<std::string> hop_names(const FabricTopology& t, RouteId r) {
  std::vector<std::string> names;
  for (const ResourceId h : t.route(r).hops) names.push_back(t.resource(h).name);
  return names;
}

NodeFabricParams four_gpus_two_switches() {
  NodeFabricParams p;
  p.gpu_count = 4;
  p.gpu_groups = {{0, 1}, {2, 3}};
  p.gpu_link_bandwidth = Bandwidth::gb_per_s(50);
  p.gpu_link_latency = Time::ns(600);
  p.switch_uplink_bandwidth = Bandwidth::gb_per_s(30);
  p.switch_uplink_latency = Time::ns(400);
  p.host_dram_bandwidth = Bandwidth::gb_per_s(100);
  p.host_dram_latency = Time::zero();
  p.drive_count = 2;
  p.drive = NvmeParams{Bandwidth::gb_per_s(7), 1e6, Bytes::kib(4), Time::us(80)};
  return p;
}

TEST(NodeFabric, PcieRoutesCrossDramSwitchUplinkAndGpuLink) {
  const NodeFabric nf = build_node_fabric(four_gpus_two_switches());
  const auto& t = nf.topology;
  EXPECT_EQ(hop_names(t, nf.dram_to_gpu[3]),
            (std::vector<std::string>{"dram.0", "switch1.uplink.fwd", "gpu3.link.fwd"}));
  EXPECT_EQ(hop_names(t, nf.gpu_to_dram[0]),
            (std::vector<std::string>{"gpu0.link.bwd", "switch0.uplink.bwd", "dram.0"}));
  EXPECT_EQ(hop_names(t, nf.drive_to_dram[1]), (std::vector<std::string>{"nvme1.iops", "nvme1.bw", "dram.0"}));
  EXPECT_EQ(hop_names(t, nf.drive_to_gpu[0][2]),
            (std::vector<std::string>{"nvme0.iops", "nvme0.bw", "switch1.uplink.fwd", "gpu2.link.fwd"}));
  EXPECT_EQ(t.route(nf.dram_to_gpu[0]).latency, Time::ns(1000));
  EXPECT_EQ(t.route(nf.drive_to_gpu[0][0]).latency, Time::ns(81000));
  for (const auto& row : nf.gpu_to_gpu)
    for (const RouteId r : row) EXPECT_EQ(r, kNoRoute);  // no NVLink configured
}

// The HGX layout: two drives on each GPU switch. Drive reads into DRAM climb the switch uplink
// shared with the GPUs' writes; reads into a GPU on the same switch never leave the switch.
TEST(NodeFabric, DrivesOnGpuSwitchesShareTheUplinkAndReachLocalGpusBelowIt) {
  NodeFabricParams p = four_gpus_two_switches();
  p.drive_count = 4;
  p.drive_attach = DriveAttach::gpu_switch;
  p.drive_groups = {{0, 1}, {2, 3}};
  p.cpu_sockets = 2;
  const NodeFabric nf = build_node_fabric(p);
  const auto& t = nf.topology;
  EXPECT_EQ(hop_names(t, nf.drive_to_dram[3]),
            (std::vector<std::string>{"nvme3.iops", "nvme3.bw", "switch1.uplink.bwd", "dram.1"}));
  EXPECT_EQ(hop_names(t, nf.drive_to_gpu[0][1]), (std::vector<std::string>{"nvme0.iops", "nvme0.bw", "gpu1.link.fwd"}));
  EXPECT_EQ(hop_names(t, nf.drive_to_gpu[0][2]),
            (std::vector<std::string>{"nvme0.iops", "nvme0.bw", "switch0.uplink.bwd", "switch1.uplink.fwd",
                                      "gpu2.link.fwd"}));
  EXPECT_FALSE(t.find_resource("drives0.uplink.fwd").has_value());
  p.drive_groups = {{0, 1, 2, 3}};
  EXPECT_THROW(build_node_fabric(p), std::invalid_argument);
}

// Two Grace CPUs with two GPUs each, every GPU on its own 450 GB/s C2C link (a GB200 tray).
NodeFabricParams two_grace_tray() {
  NodeFabricParams p;
  p.gpu_count = 4;
  p.host_attach = HostAttach::c2c;
  p.gpu_groups = {{0, 1}, {2, 3}};
  p.cpu_sockets = 2;
  p.gpu_link_bandwidth = Bandwidth::gb_per_s(450);
  return p;
}

TEST(NodeFabric, C2cNodesHaveOneLinkPerGpuAndDramPerSocket) {
  NodeFabricParams p = two_grace_tray();
  p.host_dram_bandwidth = Bandwidth::gb_per_s(1000);
  p.nvlink_bandwidth = Bandwidth::gb_per_s(900);
  const NodeFabric nf = build_node_fabric(p);
  EXPECT_EQ(hop_names(nf.topology, nf.dram_to_gpu[2]), (std::vector<std::string>{"dram.1", "gpu2.link.fwd"}));
  EXPECT_EQ(nf.topology.resource(nf.dram[1]).capacity.value(), 500e9);
  EXPECT_EQ(nf.gpu_socket, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(hop_names(nf.topology, nf.gpu_to_gpu[1][3]),
            (std::vector<std::string>{"gpu1.nvlink.fwd", "gpu3.nvlink.bwd"}));
  EXPECT_EQ(nf.gpu_to_gpu[2][2], kNoRoute);
}

// A Grace CPU whose C2C port is stated (GB200/GB300 presets: 450 GB/s per direction per Grace) is
// shared by its two GPUs: both fetching at once get 225 GB/s each although each GPU's own link
// carries 450; the other Grace's GPUs are not affected.
TEST(NodeFabric, GpusOfOneGraceShareItsC2cPortWhenTheNodeStatesOne) {
  NodeFabricParams p = two_grace_tray();
  p.switch_uplink_bandwidth = Bandwidth::gb_per_s(450);
  p.host_dram_bandwidth = Bandwidth::gb_per_s(2000);
  const NodeFabric nf = build_node_fabric(p);
  EXPECT_EQ(hop_names(nf.topology, nf.dram_to_gpu[2]),
            (std::vector<std::string>{"dram.1", "cpu1.c2c.fwd", "gpu2.link.fwd"}));
  EXPECT_EQ(hop_names(nf.topology, nf.gpu_to_dram[1]),
            (std::vector<std::string>{"gpu1.link.bwd", "cpu0.c2c.bwd", "dram.0"}));
  NativeFabric f(nf.topology);
  const auto fin = run_as_engine(f, {flow(nf.dram_to_gpu[0], Bytes(450e6)), flow(nf.dram_to_gpu[1], Bytes(450e6)),
                                     flow(nf.dram_to_gpu[2], Bytes(450e6))});
  EXPECT_EQ(fin[0], Time::ms(2));  // 450 MB at 225 GB/s: the port is shared
  EXPECT_EQ(fin[1], Time::ms(2));
  EXPECT_EQ(fin[2], Time::ms(1));  // alone on the other Grace's port
}

TEST(NodeFabric, GroupsMustPartitionTheGpus) {
  NodeFabricParams p = four_gpus_two_switches();
  p.gpu_groups = {{0, 1}, {1, 2, 3}};
  EXPECT_THROW(build_node_fabric(p), std::invalid_argument);
  p.gpu_groups = {{0, 1}, {2}};
  EXPECT_THROW(build_node_fabric(p), std::invalid_argument);
  p.gpu_groups = {{0, 1}, {2, 3, 4}};
  EXPECT_THROW(build_node_fabric(p), std::invalid_argument);
  p.gpu_groups = {};
  EXPECT_NO_THROW(build_node_fabric(p));  // one group of all GPUs
}

// Two GPUs behind one 30 GB/s uplink share it (15 GB/s each; DRAM at 100 GB/s is not the limit).
// Once GPU 1's smaller fetch completes, GPU 0 gets the uplink alone.
TEST(NodeFabric, GpusBehindOneSwitchShareItsUplink) {
  const NodeFabric nf = build_node_fabric(four_gpus_two_switches());
  NativeFabric f(nf.topology);
  const auto fin = run_as_engine(f, {flow(nf.dram_to_gpu[0], Bytes(45e6)), flow(nf.dram_to_gpu[1], Bytes(15e6)),
                                     flow(nf.dram_to_gpu[2], Bytes(30e6)), flow(nf.dram_to_gpu[3], Bytes(30e6))});
  const Time lat = Time::ns(1000);
  EXPECT_EQ(fin[1], lat + Time::ms(1));  // 15 MB at 15 GB/s
  EXPECT_EQ(fin[0], lat + Time::ms(2));  // 15 MB shared, then 30 MB alone at 30 GB/s
  EXPECT_EQ(fin[2], lat + Time::ms(2));
  EXPECT_EQ(fin[3], lat + Time::ms(2));
}

}  // namespace
}  // namespace engramsim::fabric
