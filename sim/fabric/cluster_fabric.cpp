#include "sim/fabric/cluster_fabric.hpp"

#include <stdexcept>
#include <string>

namespace engramsim::fabric {
namespace {

std::string node_prefix(std::size_t n) { return "node" + std::to_string(n) + "."; }

// GPUDirect RDMA from GPU `g` of `a` to GPU `h` of `b`: out through g's host link and NIC, in
// through h's NIC and host link.
std::vector<ResourceId> rdma_hops(const NodeRoutes& a, int g, const NodeRoutes& b, int h) {
  const auto gi = static_cast<std::size_t>(g);
  const auto hi = static_cast<std::size_t>(h);
  return {a.gpu_link[gi].backward, a.nic[gi].forward, b.nic[hi].backward, b.gpu_link[hi].forward};
}

// NVLink from GPU `g` of `a` to GPU `h` of `b`, nodes of one scale-up domain.
std::vector<ResourceId> nvlink_hops(const NodeRoutes& a, int g, const NodeRoutes& b, int h) {
  return {a.nvlink[static_cast<std::size_t>(g)].forward, b.nvlink[static_cast<std::size_t>(h)].backward};
}

void add_routes(ClusterFabric& c, const std::vector<int>& domains) {
  const std::size_t total = c.routes.size();
  for (std::size_t a = 0; a < c.nodes.size(); ++a)
    for (std::size_t b = 0; b < c.nodes.size(); ++b) {
      const auto ga = c.nodes[a].gpu_link.size();
      const auto gb = c.nodes[b].gpu_link.size();
      for (std::size_t g = 0; g < ga; ++g)
        for (std::size_t h = 0; h < gb; ++h) {
          const auto src = static_cast<std::size_t>(c.first_gpu[a]) + g;
          const auto dst = static_cast<std::size_t>(c.first_gpu[b]) + h;
          if (src >= total || dst >= total) throw std::logic_error("cluster fabric: GPU index");
          if (a == b) {
            c.routes[src][dst] = c.nodes[a].gpu_to_gpu[g][h];
            continue;
          }
          const auto gi = static_cast<int>(g);
          const auto hi = static_cast<int>(h);
          c.routes[src][dst] = c.topology.add_route(
              node_prefix(a) + "gpu" + std::to_string(g) + "->" + node_prefix(b) + "gpu" + std::to_string(h),
              domains[a] == domains[b] ? nvlink_hops(c.nodes[a], gi, c.nodes[b], hi)
                                       : rdma_hops(c.nodes[a], gi, c.nodes[b], hi));
        }
    }
}

}  // namespace

RouteId ClusterFabric::gpu_route(GpuRef src, GpuRef dst) const {
  const auto flat = [this](GpuRef r) {
    const auto n = static_cast<std::size_t>(r.node);
    if (r.node < 0 || n >= nodes.size() || r.gpu < 0 || static_cast<std::size_t>(r.gpu) >= nodes[n].gpu_link.size())
      throw std::out_of_range("cluster fabric: no GPU " + std::to_string(r.gpu) + " on node " + std::to_string(r.node));
    return static_cast<std::size_t>(first_gpu[n] + r.gpu);
  };
  return routes.at(flat(src)).at(flat(dst));
}

namespace {

// Each node's domain, checked: one NVLink domain needs NVLink on its nodes, and a node that shares
// the cluster with another domain needs a NIC.
std::vector<int> checked_domains(const std::vector<NodeFabricParams>& nodes, const std::vector<int>& given) {
  if (!given.empty() && given.size() != nodes.size())
    throw std::invalid_argument("cluster fabric: " + std::to_string(given.size()) + " domains for " +
                                std::to_string(nodes.size()) + " nodes");
  std::vector<int> domains = given;
  if (domains.empty())
    for (std::size_t n = 0; n < nodes.size(); ++n) domains.push_back(static_cast<int>(n));
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    bool shares = false, others = false;
    for (std::size_t m = 0; m < nodes.size(); ++m) {
      if (m == n) continue;
      (domains[m] == domains[n] ? shares : others) = true;
    }
    if (shares && !(nodes[n].nvlink_bandwidth.value() > 0.0))
      throw std::invalid_argument("cluster fabric: node " + std::to_string(n) +
                                  " shares a scale-up domain but has no NVLink (nvlink_bandwidth)");
    if (others && !(nodes[n].nic_bandwidth.value() > 0.0))
      throw std::invalid_argument("cluster fabric: node " + std::to_string(n) + " has no NIC (nic_bandwidth)");
  }
  return domains;
}

}  // namespace

ClusterFabric build_cluster_fabric(const std::vector<NodeFabricParams>& nodes, const std::vector<int>& given_domains) {
  const std::vector<int> domains = checked_domains(nodes, given_domains);
  ClusterFabric c;
  int gpus = 0;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    c.first_gpu.push_back(gpus);
    c.nodes.push_back(add_node_fabric(c.topology, nodes[n], node_prefix(n)));
    gpus += nodes[n].gpu_count;
  }
  const auto total = static_cast<std::size_t>(gpus);
  c.routes.assign(total, std::vector<RouteId>(total, kNoRoute));
  add_routes(c, domains);
  return c;
}

}  // namespace engramsim::fabric
