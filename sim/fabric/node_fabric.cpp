#include "sim/fabric/node_fabric.hpp"

#include <stdexcept>
#include <string>

namespace engramsim::fabric {
namespace {

// Checks that `groups` partitions 0..n-1 and returns each member's group; one group of all
// members when `groups` is empty.
std::vector<int> group_of(const std::vector<std::vector<int>>& groups, int n, const char* what,
                          std::vector<std::vector<int>>& resolved) {
  resolved = groups;
  if (resolved.empty() && n > 0) {
    resolved.emplace_back();
    for (int i = 0; i < n; ++i) resolved.back().push_back(i);
  }
  std::vector<int> owner(static_cast<std::size_t>(n), -1);
  for (std::size_t g = 0; g < resolved.size(); ++g) {
    if (resolved[g].empty()) throw std::invalid_argument(std::string("node fabric: empty ") + what + " group");
    for (const int m : resolved[g]) {
      if (m < 0 || m >= n)
        throw std::invalid_argument(std::string("node fabric: ") + what + " " + std::to_string(m) +
                                    " out of range");
      if (owner[static_cast<std::size_t>(m)] >= 0)
        throw std::invalid_argument(std::string("node fabric: ") + what + " " + std::to_string(m) +
                                    " is in two groups");
      owner[static_cast<std::size_t>(m)] = static_cast<int>(g);
    }
  }
  for (int i = 0; i < n; ++i)
    if (owner[static_cast<std::size_t>(i)] < 0)
      throw std::invalid_argument(std::string("node fabric: ") + what + " " + std::to_string(i) +
                                  " is in no group");
  return owner;
}

int socket_of_group(std::size_t group, std::size_t groups, int sockets) {
  return static_cast<int>(group * static_cast<std::size_t>(sockets) / groups);
}

}  // namespace

NodeFabric build_node_fabric(const NodeFabricParams& p) {
  if (p.gpu_count < 0 || p.drive_count < 0) throw std::invalid_argument("node fabric: negative count");
  if (p.cpu_sockets < 1) throw std::invalid_argument("node fabric: cpu_sockets must be >= 1");
  NodeFabric nf;
  FabricTopology& t = nf.topology;

  std::vector<std::vector<int>> gpu_groups, drive_groups;
  const std::vector<int> gpu_group = group_of(p.gpu_groups, p.gpu_count, "GPU", gpu_groups);
  const std::vector<int> drive_group = group_of(p.drive_groups, p.drive_count, "drive", drive_groups);

  for (int s = 0; s < p.cpu_sockets; ++s)
    nf.dram.push_back(t.add_resource("dram." + std::to_string(s), p.host_dram_bandwidth / p.cpu_sockets,
                                     p.host_dram_latency, ResourceKind::dram));

  // The link a GPU group shares on its way to host memory: the PCIe switch's uplink, or the CPU's
  // C2C port when the node states one.
  const bool switched = p.host_attach == HostAttach::pcie_switch;
  const bool shared_group_link = switched || p.switch_uplink_bandwidth.value() > 0.0;
  std::vector<FabricTopology::LinkEnds> uplink;
  if (shared_group_link)
    for (std::size_t g = 0; g < gpu_groups.size(); ++g)
      uplink.push_back(t.add_link((switched ? "switch" : "cpu") + std::to_string(g) + (switched ? ".uplink" : ".c2c"),
                                  p.switch_uplink_bandwidth, p.switch_uplink_latency, Duplex::full));
  std::vector<FabricTopology::LinkEnds> gpu_link;
  for (int g = 0; g < p.gpu_count; ++g)
    gpu_link.push_back(t.add_link("gpu" + std::to_string(g) + ".link", p.gpu_link_bandwidth,
                                  p.gpu_link_latency, Duplex::full));

  // Host-side hops from the root complex down to GPU g (excluding DRAM), in path order.
  const auto down_to_gpu = [&](int g) {
    std::vector<ResourceId> hops;
    if (shared_group_link)
      hops.push_back(uplink[static_cast<std::size_t>(gpu_group[static_cast<std::size_t>(g)])].forward);
    hops.push_back(gpu_link[static_cast<std::size_t>(g)].forward);
    return hops;
  };

  for (int g = 0; g < p.gpu_count; ++g) {
    const int socket = socket_of_group(static_cast<std::size_t>(gpu_group[static_cast<std::size_t>(g)]),
                                       gpu_groups.size(), p.cpu_sockets);
    nf.gpu_socket.push_back(socket);
    const ResourceId dram = nf.dram[static_cast<std::size_t>(socket)];
    std::vector<ResourceId> down{dram};
    for (const ResourceId r : down_to_gpu(g)) down.push_back(r);
    nf.dram_to_gpu.push_back(t.add_route("dram->gpu" + std::to_string(g), down));
    std::vector<ResourceId> up{gpu_link[static_cast<std::size_t>(g)].backward};
    if (shared_group_link)
      up.push_back(uplink[static_cast<std::size_t>(gpu_group[static_cast<std::size_t>(g)])].backward);
    up.push_back(dram);
    nf.gpu_to_dram.push_back(t.add_route("gpu" + std::to_string(g) + "->dram", up));
  }

  const bool on_gpu_switch = p.drive_attach == DriveAttach::gpu_switch && p.drive_count > 0;
  if (on_gpu_switch && (p.host_attach != HostAttach::pcie_switch || drive_groups.size() != gpu_groups.size()))
    throw std::invalid_argument("node fabric: drives on GPU switches need a pcie_switch node and one drive "
                                "group per GPU group");
  std::vector<FabricTopology::LinkEnds> drive_uplink;
  if (!on_gpu_switch && p.drive_group_uplink_bandwidth.value() > 0.0)
    for (std::size_t k = 0; k < drive_groups.size(); ++k)
      drive_uplink.push_back(t.add_link("drives" + std::to_string(k) + ".uplink", p.drive_group_uplink_bandwidth,
                                        p.drive_group_uplink_latency, Duplex::full));
  for (int d = 0; d < p.drive_count; ++d) {
    const auto nvme = t.add_nvme("nvme" + std::to_string(d), p.drive);
    const auto k = static_cast<std::size_t>(drive_group[static_cast<std::size_t>(d)]);
    // Hops from the drive up to the root complex.
    std::vector<ResourceId> up{nvme.iops, nvme.bandwidth};
    if (on_gpu_switch) up.push_back(uplink[k].backward);
    if (!drive_uplink.empty()) up.push_back(drive_uplink[k].backward);
    std::vector<ResourceId> to_dram = up;
    to_dram.push_back(nf.dram[static_cast<std::size_t>(socket_of_group(k, drive_groups.size(), p.cpu_sockets))]);
    nf.drive_to_dram.push_back(t.add_route("nvme" + std::to_string(d) + "->dram", to_dram));
    std::vector<RouteId> to_gpus;
    for (int g = 0; g < p.gpu_count; ++g) {
      std::vector<ResourceId> hops;
      if (on_gpu_switch && static_cast<std::size_t>(gpu_group[static_cast<std::size_t>(g)]) == k) {
        hops = {nvme.iops, nvme.bandwidth, gpu_link[static_cast<std::size_t>(g)].forward};
      } else {
        hops = up;
        for (const ResourceId r : down_to_gpu(g)) hops.push_back(r);
      }
      to_gpus.push_back(t.add_route("nvme" + std::to_string(d) + "->gpu" + std::to_string(g), hops));
    }
    nf.drive_to_gpu.push_back(std::move(to_gpus));
  }

  nf.gpu_to_gpu.assign(static_cast<std::size_t>(p.gpu_count),
                       std::vector<RouteId>(static_cast<std::size_t>(p.gpu_count), kNoRoute));
  if (p.nvlink_bandwidth.value() > 0.0) {
    std::vector<FabricTopology::LinkEnds> port;
    for (int g = 0; g < p.gpu_count; ++g)
      port.push_back(t.add_link("gpu" + std::to_string(g) + ".nvlink", p.nvlink_bandwidth, p.nvlink_latency,
                                Duplex::full));
    for (int a = 0; a < p.gpu_count; ++a)
      for (int b = 0; b < p.gpu_count; ++b)
        if (a != b)
          nf.gpu_to_gpu[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] =
              t.add_route("gpu" + std::to_string(a) + "->gpu" + std::to_string(b),
                          {port[static_cast<std::size_t>(a)].forward, port[static_cast<std::size_t>(b)].backward});
  }
  return nf;
}

}  // namespace engramsim::fabric
