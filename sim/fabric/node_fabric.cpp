#include "sim/fabric/node_fabric.hpp"

#include <stdexcept>
#include <string>
#include <utility>

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
        throw std::invalid_argument(std::string("node fabric: ") + what + " " + std::to_string(m) + " out of range");
      if (owner[static_cast<std::size_t>(m)] >= 0)
        throw std::invalid_argument(std::string("node fabric: ") + what + " " + std::to_string(m) +
                                    " is in two groups");
      owner[static_cast<std::size_t>(m)] = static_cast<int>(g);
    }
  }
  for (int i = 0; i < n; ++i)
    if (owner[static_cast<std::size_t>(i)] < 0)
      throw std::invalid_argument(std::string("node fabric: ") + what + " " + std::to_string(i) + " is in no group");
  return owner;
}

int socket_of_group(std::size_t group, std::size_t groups, int sockets) {
  return static_cast<int>(group * static_cast<std::size_t>(sockets) / groups);
}

// Builds the topology in a fixed order (DRAM, host links, GPU routes, drives, NVLink, NICs), so
// resource and route ids are the same in every run. Every name starts with `prefix`.
class NodeFabricBuilder {
 public:
  NodeFabricBuilder(const NodeFabricParams& p, FabricTopology& t, std::string prefix)
      : p_(p), t_(t), prefix_(std::move(prefix)) {
    if (p.gpu_count < 0 || p.drive_count < 0) throw std::invalid_argument("node fabric: negative count");
    if (p.cpu_sockets < 1) throw std::invalid_argument("node fabric: cpu_sockets must be >= 1");
    gpu_group_ = group_of(p.gpu_groups, p.gpu_count, "GPU", gpu_groups_);
    drive_group_ = group_of(p.drive_groups, p.drive_count, "drive", drive_groups_);
    switched_ = p.host_attach == HostAttach::pcie_switch;
    shared_group_link_ = switched_ || p.switch_uplink_bandwidth.value() > 0.0;
  }

  NodeRoutes build() {
    add_dram();
    add_host_links();
    add_gpu_routes();
    add_drives();
    add_nvlink();
    add_nics();
    nf_.gpu_link = gpu_link_;
    return std::move(nf_);
  }

 private:
  std::size_t group_of_gpu(int g) const { return static_cast<std::size_t>(gpu_group_[static_cast<std::size_t>(g)]); }

  void add_dram() {
    for (int s = 0; s < p_.cpu_sockets; ++s)
      nf_.dram.push_back(t_.add_resource(prefix_ + "dram." + std::to_string(s), p_.host_dram_bandwidth / p_.cpu_sockets,
                                         p_.host_dram_latency, ResourceKind::dram));
  }

  // The link a GPU group shares on its way to host memory (the PCIe switch's uplink, or the CPU's
  // C2C port when the node states one), and each GPU's own link.
  void add_host_links() {
    if (shared_group_link_)
      for (std::size_t g = 0; g < gpu_groups_.size(); ++g)
        uplink_.push_back(
            t_.add_link(prefix_ + (switched_ ? "switch" : "cpu") + std::to_string(g) + (switched_ ? ".uplink" : ".c2c"),
                        p_.switch_uplink_bandwidth, p_.switch_uplink_latency, Duplex::full));
    for (int g = 0; g < p_.gpu_count; ++g)
      gpu_link_.push_back(t_.add_link(prefix_ + "gpu" + std::to_string(g) + ".link", p_.gpu_link_bandwidth,
                                      p_.gpu_link_latency, Duplex::full));
  }

  // Host-side hops from the root complex down to GPU g (excluding DRAM), in path order.
  std::vector<ResourceId> down_to_gpu(int g) const {
    std::vector<ResourceId> hops;
    if (shared_group_link_) hops.push_back(uplink_[group_of_gpu(g)].forward);
    hops.push_back(gpu_link_[static_cast<std::size_t>(g)].forward);
    return hops;
  }

  void add_gpu_routes() {
    for (int g = 0; g < p_.gpu_count; ++g) {
      const int socket = socket_of_group(group_of_gpu(g), gpu_groups_.size(), p_.cpu_sockets);
      nf_.gpu_socket.push_back(socket);
      const ResourceId dram = nf_.dram[static_cast<std::size_t>(socket)];
      std::vector<ResourceId> down{dram};
      for (const ResourceId r : down_to_gpu(g)) down.push_back(r);
      nf_.dram_to_gpu.push_back(t_.add_route(prefix_ + "dram->gpu" + std::to_string(g), down));
      std::vector<ResourceId> up{gpu_link_[static_cast<std::size_t>(g)].backward};
      if (shared_group_link_) up.push_back(uplink_[group_of_gpu(g)].backward);
      up.push_back(dram);
      nf_.gpu_to_dram.push_back(t_.add_route(prefix_ + "gpu" + std::to_string(g) + "->dram", up));
    }
  }

  void add_drives() {
    on_gpu_switch_ = p_.drive_attach == DriveAttach::gpu_switch && p_.drive_count > 0;
    if (on_gpu_switch_ && (p_.host_attach != HostAttach::pcie_switch || drive_groups_.size() != gpu_groups_.size()))
      throw std::invalid_argument(
          "node fabric: drives on GPU switches need a pcie_switch node and one drive "
          "group per GPU group");
    if (!on_gpu_switch_ && p_.drive_group_uplink_bandwidth.value() > 0.0)
      for (std::size_t k = 0; k < drive_groups_.size(); ++k)
        drive_uplink_.push_back(t_.add_link(prefix_ + "drives" + std::to_string(k) + ".uplink",
                                            p_.drive_group_uplink_bandwidth, p_.drive_group_uplink_latency,
                                            Duplex::full));
    for (int d = 0; d < p_.drive_count; ++d) add_drive(d);
  }

  void add_drive(int d) {
    const auto nvme = t_.add_nvme(prefix_ + "nvme" + std::to_string(d), p_.drive);
    const auto k = static_cast<std::size_t>(drive_group_[static_cast<std::size_t>(d)]);
    // Hops from the drive up to the root complex.
    std::vector<ResourceId> up{nvme.iops, nvme.bandwidth};
    if (on_gpu_switch_) up.push_back(uplink_[k].backward);
    if (!drive_uplink_.empty()) up.push_back(drive_uplink_[k].backward);
    std::vector<ResourceId> to_dram = up;
    to_dram.push_back(nf_.dram[static_cast<std::size_t>(socket_of_group(k, drive_groups_.size(), p_.cpu_sockets))]);
    nf_.drive_to_dram.push_back(t_.add_route(prefix_ + "nvme" + std::to_string(d) + "->dram", to_dram));
    std::vector<RouteId> to_gpus;
    for (int g = 0; g < p_.gpu_count; ++g) {
      std::vector<ResourceId> hops;
      if (on_gpu_switch_ && group_of_gpu(g) == k) {
        hops = {nvme.iops, nvme.bandwidth, gpu_link_[static_cast<std::size_t>(g)].forward};
      } else {
        hops = up;
        for (const ResourceId r : down_to_gpu(g)) hops.push_back(r);
      }
      to_gpus.push_back(t_.add_route(prefix_ + "nvme" + std::to_string(d) + "->gpu" + std::to_string(g), hops));
    }
    nf_.drive_to_gpu.push_back(std::move(to_gpus));
  }

  void add_nvlink() {
    const auto n = static_cast<std::size_t>(p_.gpu_count);
    nf_.gpu_to_gpu.assign(n, std::vector<RouteId>(n, kNoRoute));
    if (!(p_.nvlink_bandwidth.value() > 0.0)) return;
    std::vector<FabricTopology::LinkEnds>& port = nf_.nvlink;
    for (int g = 0; g < p_.gpu_count; ++g)
      port.push_back(t_.add_link(prefix_ + "gpu" + std::to_string(g) + ".nvlink", p_.nvlink_bandwidth,
                                 p_.nvlink_latency, Duplex::full));
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b)
        if (a != b)
          nf_.gpu_to_gpu[a][b] = t_.add_route(prefix_ + "gpu" + std::to_string(a) + "->gpu" + std::to_string(b),
                                              {port[a].forward, port[b].backward});
  }

  void add_nics() {
    if (!(p_.nic_bandwidth.value() > 0.0)) return;
    for (int g = 0; g < p_.gpu_count; ++g)
      nf_.nic.push_back(
          t_.add_link(prefix_ + "gpu" + std::to_string(g) + ".nic", p_.nic_bandwidth, p_.nic_latency, Duplex::full));
  }

  const NodeFabricParams& p_;
  NodeRoutes nf_;
  FabricTopology& t_;
  std::string prefix_;
  std::vector<std::vector<int>> gpu_groups_, drive_groups_;
  std::vector<int> gpu_group_, drive_group_;
  bool switched_ = false;
  bool shared_group_link_ = false;
  bool on_gpu_switch_ = false;
  std::vector<FabricTopology::LinkEnds> uplink_, gpu_link_, drive_uplink_;
};

}  // namespace

NodeFabric build_node_fabric(const NodeFabricParams& p) {
  NodeFabric nf;
  static_cast<NodeRoutes&>(nf) = NodeFabricBuilder(p, nf.topology, "").build();
  return nf;
}

NodeRoutes add_node_fabric(FabricTopology& topology, const NodeFabricParams& p, const std::string& prefix) {
  return NodeFabricBuilder(p, topology, prefix).build();
}

}  // namespace engramsim::fabric
