// Node fabrics shared by the fabric tests and benchmarks (no GoogleTest here: the benchmarks
// include it too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "sim/fabric/node_fabric.hpp"

namespace engramsim::fabric::testing {

// An HGX-like node: eight GPUs behind four PCIe switches, two CPU sockets, eight NVMe drives in two
// groups, NVLink between the GPUs.
inline NodeFabricParams hgx_like_node() {
  NodeFabricParams p;
  p.gpu_count = 8;
  p.gpu_groups = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  p.gpu_link_bandwidth = Bandwidth::gb_per_s(55);
  p.gpu_link_latency = Time::ns(700);
  p.switch_uplink_bandwidth = Bandwidth::gb_per_s(55);
  p.switch_uplink_latency = Time::ns(300);
  p.cpu_sockets = 2;
  p.host_dram_bandwidth = Bandwidth::gb_per_s(600);
  p.host_dram_latency = Time::ns(100);
  p.drive_count = 8;
  p.drive = NvmeParams{Bandwidth::gb_per_s(14), 2.5e6, Bytes::kib(4), Time::us(70)};
  p.drive_groups = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  p.drive_group_uplink_bandwidth = Bandwidth::gb_per_s(55);
  p.nvlink_bandwidth = Bandwidth::gb_per_s(900);
  p.nvlink_latency = Time::ns(500);
  return p;
}

// One GPU on a PCIe-like 64 GB/s host link (1 us) beside a 50 GB/s RDMA NIC (2 us a side): the
// nodes of the disaggregation tests and benchmark, where a KV transfer crosses two of them.
inline NodeFabricParams one_gpu_nic_node() {
  NodeFabricParams n;
  n.gpu_count = 1;
  n.gpu_link_bandwidth = Bandwidth::gb_per_s(64);
  n.gpu_link_latency = Time::us(1);
  n.switch_uplink_bandwidth = Bandwidth::gb_per_s(64);
  n.host_dram_bandwidth = Bandwidth::gb_per_s(200);
  n.nic_bandwidth = Bandwidth::gb_per_s(50);
  n.nic_latency = Time::us(2);
  return n;
}

// The route of a node flow by kind: 0 host DRAM to GPU g, 1 GPU g to host DRAM, 2 drive d to host
// DRAM, 3 drive d to GPU g, any other GPU g to GPU peer() (called only then).
inline RouteId node_route(const NodeFabric& nf, std::int64_t kind, std::size_t g, std::size_t d,
                          const std::function<std::size_t()>& peer) {
  switch (kind) {
    case 0:
      return nf.dram_to_gpu[g];
    case 1:
      return nf.gpu_to_dram[g];
    case 2:
      return nf.drive_to_dram[d];
    case 3:
      return nf.drive_to_gpu[d][g];
    default:
      return nf.gpu_to_gpu[g][peer()];
  }
}

}  // namespace engramsim::fabric::testing
