#include "sim/memory/node_fabric_params.hpp"

#include <algorithm>

namespace engramsim {

fabric::NodeFabricParams node_fabric_params(const NodeSpec& node) {
  fabric::NodeFabricParams p;
  const HostTopology& t = node.topology;
  p.gpu_count = node.gpu_count;
  p.host_attach =
      node.gpu.host_link == HostLinkKind::nvlink_c2c ? fabric::HostAttach::c2c : fabric::HostAttach::pcie_switch;
  p.gpu_groups = t.gpu_groups;
  p.gpu_link_bandwidth = node.gpu.host_link_bandwidth;
  p.cpu_sockets = std::max(1, t.cpu_sockets);
  p.host_dram_bandwidth = node.host_dram_bandwidth;
  const bool switched = p.host_attach == fabric::HostAttach::pcie_switch;
  if (switched) {
    p.switch_uplink_bandwidth = t.switch_uplink_bandwidth;
    if (!(p.switch_uplink_bandwidth.value() > 0.0)) {
      std::size_t largest = p.gpu_groups.empty() ? static_cast<std::size_t>(std::max(1, node.gpu_count)) : 1;
      for (const auto& g : p.gpu_groups) largest = std::max(largest, g.size());
      p.switch_uplink_bandwidth = p.gpu_link_bandwidth * static_cast<double>(largest);
    }
    p.gpu_link_latency = Time::ns(node.host_link_latency.count_ns() / 2);
    p.switch_uplink_latency = node.host_link_latency - p.gpu_link_latency;
  } else {
    // C2C: the preset's switch_uplink_bandwidth is the CPU's C2C port its GPUs share (zero: none).
    p.switch_uplink_bandwidth = t.switch_uplink_bandwidth;
    p.gpu_link_latency = node.host_link_latency;
  }

  if (node.gpu.scale_up_bandwidth.value() > 0.0 && node.scale_up_domain_gpus > 1) {
    p.nvlink_bandwidth = node.gpu.scale_up_bandwidth / 2.0;
    p.nvlink_latency = kNvlinkLatency;
  }
  if (node.scale_out_bandwidth.value() > 0.0) {
    p.nic_bandwidth = node.scale_out_bandwidth;
    p.nic_latency = kNicLatency;
  }

  const NvmeSpec& n = node.nvme;
  if (n.count > 0 && n.random_read_iops_4k_per_drive > 0.0 && n.seq_read_per_drive.value() > 0.0) {
    p.drive_count = n.count;
    p.drive.read_bandwidth = n.seq_read_per_drive;
    p.drive.iops = n.random_read_iops_4k_per_drive;
    p.drive.latency = n.read_latency;
    p.drive_groups = t.drive_groups;
    const std::size_t gpu_groups = p.gpu_groups.empty() ? 1 : p.gpu_groups.size();
    const std::size_t drive_groups = p.drive_groups.empty() ? 1 : p.drive_groups.size();
    p.drive_attach =
        switched && gpu_groups == drive_groups ? fabric::DriveAttach::gpu_switch : fabric::DriveAttach::own_switch;
  }
  return p;
}

}  // namespace engramsim
