// The fabric of several nodes in one topology, for flows that cross nodes: the KV cache of a request
// moving from a prefill replica to a decode replica (disaggregated serving), beside each node's own
// Engram and KV-offload traffic on the same links.
//
// Each node is a node fabric (node_fabric.hpp) whose resource and route names are prefixed "nodeN.".
// GPU g of node a reaches GPU h of node b (a != b) by GPUDirect RDMA over a non-blocking scale-out
// network (a rail-optimised fat tree, so only the end points are shared):
//   a.gpu g's host link, device -> host (.bwd) -> a.gpu g's NIC, egress (.fwd)
//     -> b.gpu h's NIC, ingress (.bwd) -> b.gpu h's host link, host -> device (.fwd)
// Each GPU has its own NIC on its PCIe switch (or beside its C2C link), as HGX and GB200 trays pair
// them; the NIC's bandwidth is the node's scale-out bandwidth per GPU. Inside a node a GPU reaches
// another over NVLink (the node fabric's gpu_to_gpu), when the node has it.
// A route's latency is the sum of its hops' (NIC latency once per end, PCIe or C2C once per end).
// Nodes of one scale-up domain (the 4-GPU trays of a GB200 NVL72 rack) reach each other over
// NVLink instead: out of the sending GPU's NVLink port, into the receiving GPU's, as inside a node.
#pragma once

#include <vector>

#include "sim/fabric/node_fabric.hpp"

namespace engramsim::fabric {

struct GpuRef {
  int node = 0;
  int gpu = 0;
};

struct ClusterFabric {
  FabricTopology topology;
  std::vector<NodeRoutes> nodes;  // per node, ids into `topology`
  // The route of a transfer from `src` to `dst`; kNoRoute for src == dst, or inside a node without
  // NVLink. Throws std::out_of_range for a GPU the cluster does not have.
  RouteId gpu_route(GpuRef src, GpuRef dst) const;

  std::vector<int> first_gpu;                // per node: its first GPU's flat index
  std::vector<std::vector<RouteId>> routes;  // [flat src][flat dst]
};

// `domains[n]` names node n's scale-up domain (empty: each node its own). Throws
// std::invalid_argument when a node's parameters are invalid (build_node_fabric's rules), when
// `domains` has another size than `nodes`, when nodes of one domain lack NVLink, or when a node
// that must reach another domain has no NIC (nic_bandwidth not positive).
ClusterFabric build_cluster_fabric(const std::vector<NodeFabricParams>& nodes, const std::vector<int>& domains = {});

}  // namespace engramsim::fabric
