// A node preset (hardware/node_spec.hpp) as the fabric's NodeFabricParams (sim/fabric/node_fabric.hpp),
// following the mapping in docs/fabric.md:
//   gpu_groups, switch_uplink_bandwidth, cpu_sockets, drive_groups   <- topology.*
//   host_attach       c2c when the GPU's host link is nvlink_c2c, else pcie_switch
//   gpu_link          the GPU's host_link_bandwidth (per direction)
//   host DRAM         host_dram_bandwidth (the fabric splits it evenly over the sockets)
//   drives            nvme.count drives of seq_read_per_drive, random_read_iops_4k_per_drive, read_latency
//   drive_attach      gpu_switch when a pcie_switch node has one drive group per GPU group (the HGX
//                     layout: two drives behind each GPU switch), else own_switch on the root complex
//   latencies         host_link_latency split evenly over the hops a host read crosses (GPU link and,
//                     behind a switch, the switch uplink); DRAM adds none
//   nic               scale_out_bandwidth per GPU (none when the preset states none), and
//                     kNicLatency at each end of an RDMA transfer; the memory tiers never route over
//                     it, the KV transfer of a disaggregated deployment does (cluster_fabric.hpp)
//   nvlink            the GPU's scale_up_bandwidth, halved (the preset's figure is bidirectional), and
//                     kNvlinkLatency per port; the memory tiers never route over it, a KV transfer
//                     inside a node or an NVLink domain does. A pcie_switch node whose preset
// gives no uplink bandwidth gets a non-blocking uplink (group size x GPU link). Nodes without usable
// drives (count, IOPS or bandwidth zero) get none.
#pragma once

#include "hardware/node_spec.hpp"
#include "sim/fabric/node_fabric.hpp"

namespace engramsim {

// One end of a GPUDirect RDMA transfer (NIC, its PCIe hop and the first switch), for every preset:
// [E] InfiniBand NDR/XDR adapters measure about 1-2 us end to end for a small RDMA write through
// one switch (perftest ib_write_lat figures vendors and users publish), so about 1 us per end.
inline constexpr Time kNicLatency = Time::us(1);

// One NVLink port of a GPU to another through NVSwitch, per end: [E] NVLink peer-to-peer reads and
// writes of a few bytes measure about 1-2 us between two GPUs of a DGX (p2pBandwidthLatencyTest
// figures vendors and users publish), so half a microsecond per port, two ports per route.
inline constexpr Time kNvlinkLatency = Time::ns(500);

fabric::NodeFabricParams node_fabric_params(const NodeSpec& node);

}  // namespace engramsim
