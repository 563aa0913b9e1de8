// Builds the fabric topology of one server node from a plain description, and names the routes
// the serving simulation uses (host DRAM <-> GPU, drive -> DRAM, drive -> GPU, GPU <-> GPU).
//
// Resources created:
//   dram.S            one per CPU socket: host_dram_bandwidth / cpu_sockets, reads and writes share
//   gpuG.link         full duplex, per GPU: the GPU's PCIe x16 link to its switch (pcie_switch) or
//                     its NVLink-C2C link to its CPU (c2c)
//   switchK.uplink    full duplex, per GPU group (pcie_switch): the switch's uplink to the root
//                     complex, shared by the GPUs behind it
//   cpuK.c2c          full duplex, per GPU group (c2c, when switch_uplink_bandwidth > 0): the CPU's
//                     NVLink-C2C port, shared by the GPUs attached to that CPU
//   nvmeD.bw/.iops    per drive (see FabricTopology::add_nvme)
//   drivesK.uplink    full duplex, per drive group, when drives have their own switches
//                     (drive_attach own_switch) and drive_group_uplink_bandwidth > 0
//   gpuG.nvlink       full duplex, per GPU, when nvlink_bandwidth > 0: its port into a
//                     non-blocking NVSwitch fabric (.fwd = egress, .bwd = ingress)
//   gpuG.nic          full duplex, per GPU, when nic_bandwidth > 0: its scale-out RDMA NIC
//                     (.fwd = egress, .bwd = ingress); routes between nodes use it
//                     (cluster_fabric.hpp), none inside the node
// Link direction "fwd" is host -> device (DRAM to GPU, root complex to drive).
//
// Drives: with drive_attach gpu_switch (the HGX layout) drive group K sits on GPU switch K: its
// reads into DRAM climb that switch's uplink (.bwd, shared with the GPUs' writes), and a read into a
// GPU on the same switch stays below it (peer-to-peer through the switch, no uplink). With
// own_switch the drives of group K share their own uplink, or attach straight to the root complex
// when drive_group_uplink_bandwidth is zero.
//
// Sockets: GPU group K is attached to socket K * cpu_sockets / groups (groups spread evenly in
// order), likewise drive group K; a group reaches only its own socket's DRAM (data is assumed
// NUMA-local; cross-socket traffic is not modeled).
//
// Input is a plain struct (it mirrors hardware/node_spec.hpp's HostTopology and NvmeSpec fields)
// so the simulator can fill it from a node preset without this library depending on hardware/.
#pragma once

#include <string>
#include <vector>

#include "core/units.hpp"
#include "sim/fabric/fabric_topology.hpp"

namespace engramsim::fabric {

enum class HostAttach : std::uint8_t {
  pcie_switch,  // GPUs behind PCIe switches with a shared uplink to the root complex (HGX)
  c2c,          // GPUs on NVLink-C2C links to a Grace CPU (GB200/GB300); the CPU's C2C port may be shared
};

enum class DriveAttach : std::uint8_t {
  own_switch,  // drive groups behind their own switches (or straight on the root complex)
  gpu_switch,  // drive group K behind GPU switch K (pcie_switch nodes only)
};

struct NodeFabricParams {
  int gpu_count = 0;
  HostAttach host_attach = HostAttach::pcie_switch;
  // GPUs behind one switch (pcie_switch) or one CPU (c2c); every GPU exactly once.
  // Empty: one group holding all GPUs.
  std::vector<std::vector<int>> gpu_groups;
  Bandwidth gpu_link_bandwidth;  // per direction (PCIe x16 or C2C)
  Time gpu_link_latency;
  // Per direction, per group: the switch uplink (pcie_switch) or the CPU's C2C port (c2c; zero there
  // means each GPU's own link is the only limit).
  Bandwidth switch_uplink_bandwidth;
  Time switch_uplink_latency;
  int cpu_sockets = 1;
  Bandwidth host_dram_bandwidth;  // aggregate over sockets
  Time host_dram_latency;

  int drive_count = 0;
  NvmeParams drive;
  DriveAttach drive_attach = DriveAttach::own_switch;
  // Drives per switch; empty: one group. With gpu_switch, exactly one group per GPU group.
  std::vector<std::vector<int>> drive_groups;
  Bandwidth drive_group_uplink_bandwidth;  // own_switch: per direction; zero: no shared uplink
  Time drive_group_uplink_latency;

  Bandwidth nvlink_bandwidth;  // per GPU per direction; zero: no GPU-to-GPU routes
  Time nvlink_latency;

  Bandwidth nic_bandwidth;  // per GPU per direction (the node's scale-out bandwidth); zero: no NIC
  Time nic_latency;         // one end of an RDMA transfer (NIC and network)
};

inline constexpr RouteId kNoRoute = static_cast<RouteId>(-1);

// One node's resources and routes, as ids into the topology that holds them.
struct NodeRoutes {
  std::vector<ResourceId> dram;                    // per socket
  std::vector<int> gpu_socket;                     // per GPU
  std::vector<RouteId> dram_to_gpu;                // per GPU
  std::vector<RouteId> gpu_to_dram;                // per GPU
  std::vector<RouteId> drive_to_dram;              // per drive
  std::vector<std::vector<RouteId>> drive_to_gpu;  // [drive][gpu], GPUDirect Storage path
  std::vector<std::vector<RouteId>> gpu_to_gpu;    // [src][dst]; kNoRoute on the diagonal or without NVLink
  std::vector<FabricTopology::LinkEnds> gpu_link;  // per GPU: its host link (PCIe x16 or C2C)
  std::vector<FabricTopology::LinkEnds> nic;       // per GPU: its NIC; empty without NICs
  std::vector<FabricTopology::LinkEnds> nvlink;    // per GPU: its NVLink port; empty without NVLink
};

// A node alone: its own topology and the routes into it.
struct NodeFabric : NodeRoutes {
  FabricTopology topology;
};

// Throws std::invalid_argument when groups are not a partition of the GPUs / drives, or a needed
// bandwidth is not positive.
NodeFabric build_node_fabric(const NodeFabricParams& params);
// Adds one node's resources and routes to `topology` (several nodes in one fabric), every name
// prefixed by `prefix` ("node1."); the same rules.
NodeRoutes add_node_fabric(FabricTopology& topology, const NodeFabricParams& params, const std::string& prefix);

}  // namespace engramsim::fabric
