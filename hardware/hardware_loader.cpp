#include "hardware/hardware_loader.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/config_node.hpp"
#include "core/paths.hpp"

namespace engramsim {
namespace {

namespace fs = std::filesystem;

// Reads `key` with `get` and rejects zero: a zero size, rate, latency or price is always a typo in
// a catalog file and would later turn into an infinite time or a free resource.
template <class Getter>
auto positive(const ConfigNode& map, const std::string& key, Getter get) {
  const ConfigNode c = map.child(key);
  const auto v = (c.*get)();
  if (!(v.value() > 0.0)) c.fail("must be greater than zero");
  return v;
}

// Reads `key` with `get` and rejects values outside [lo, hi]: bounds far wider than any real part
// (for instance 10 GB/s to 1 PB/s of HBM bandwidth), so what they catch is a unit slip ("3.35kB/s"
// for "3.35TB/s"), which would otherwise turn into hours-long steps or free work.
template <class Getter>
auto plausible(const ConfigNode& map, const std::string& key, Getter get, double lo, double hi, const char* range) {
  const ConfigNode c = map.child(key);
  const auto v = (c.*get)();
  if (!(v.value() > 0.0)) c.fail("must be greater than zero");
  if (!(v.value() >= lo && v.value() <= hi))
    c.fail(std::string("outside the plausible range ") + range + " (check the unit)");
  return v;
}

Time positive_time(const ConfigNode& map, const std::string& key) {
  const ConfigNode c = map.child(key);
  const Time t = c.as_time();
  if (t <= Time::zero()) c.fail("must be greater than zero");
  return t;
}

double positive_number(const ConfigNode& map, const std::string& key) {
  const ConfigNode c = map.child(key);
  const double v = c.as_number();
  if (!(v > 0.0)) c.fail("must be greater than zero");
  return v;
}

std::string non_empty(const ConfigNode& map, const std::string& key) {
  const ConfigNode c = map.child(key);
  std::string s = c.as_str();
  if (s.empty()) c.fail("must not be empty");
  return s;
}

// Element width orders precisions: a narrower format never runs slower than a wider one on any
// tensor core we model, so an inversion is almost always a unit slip (TFLOPS for PFLOPS).
void check_flops_ordering(const ConfigNode& flops, const std::map<Precision, FlopRate>& rates) {
  for (const auto& [wide, wide_rate] : rates) {
    for (const auto& [narrow, narrow_rate] : rates) {
      if (bytes_per_element(wide) > bytes_per_element(narrow) && wide_rate > narrow_rate) {
        std::ostringstream os;
        os << "dense " << to_string(wide) << " rate " << to_string(wide_rate) << " exceeds the narrower "
           << to_string(narrow) << " rate " << to_string(narrow_rate) << " (check the unit prefix)";
        flops.child(to_string(wide)).fail(os.str());
      }
    }
  }
}

// A size in GiB with its decimal reading beside it ("131.3 GiB = 141.0 GB").
std::string binary_and_decimal(Bytes b) {
  char buf[48];
  std::snprintf(buf, sizeof buf, " = %.1f GB", b.value() / 1e9);
  return to_string(b) + buf;
}

// hbm_usable above hbm_capacity. Decimal units are read as written (1 GB = 1e9 bytes): a capacity
// written in GB or TB below a usable size is most often a vendor's "GB" that means GiB, so the
// capacity's own line is blamed; otherwise the usable size's.
void check_usable_fits(const ConfigNode& root, const GpuSpec& g) {
  if (!(g.hbm_usable > g.hbm_capacity)) return;
  const std::string sizes = " (" + binary_and_decimal(g.hbm_usable) + " > " + binary_and_decimal(g.hbm_capacity) + ")";
  const ConfigNode capacity = root.child("hbm_capacity");
  const std::string text = capacity.as_str();
  if (text.find("iB") == std::string::npos)
    capacity.fail("is less than hbm_usable" + sizes + ": \"" + text +
                  "\" is decimal (1 GB = 1e9 bytes); write GiB for a binary size");
  root.child("hbm_usable").fail("exceeds hbm_capacity" + sizes);
}

GpuSpec parse_gpu(const ConfigNode& root) {
  GpuSpec g;
  g.name = non_empty(root, "name");
  g.description = non_empty(root, "description");
  g.vendor = root.one_of("vendor", {"nvidia", "amd"});
  g.hbm_capacity = plausible(root, "hbm_capacity", &ConfigNode::as_bytes, 0x1p30, 0x1p50, "1 GiB to 1 PiB");
  g.hbm_usable = plausible(root, "hbm_usable", &ConfigNode::as_bytes, 0x1p30, 0x1p50, "1 GiB to 1 PiB");
  check_usable_fits(root, g);
  g.hbm_bandwidth = plausible(root, "hbm_bandwidth", &ConfigNode::as_bandwidth, 1e10, 1e15, "10 GB/s to 1 PB/s");

  const ConfigNode flops = root.child("dense_flops");
  if (!flops.is_map()) flops.fail("expected a map of precision -> FLOP rate, e.g. bf16: \"2.25PFLOPS\"");
  for (const std::string& key : flops.keys()) {
    const auto p = precision_from_string(key);
    if (!p) flops.child(key).fail("unknown precision \"" + key + "\"; expected one of fp4, fp8, bf16, fp16, fp32");
    g.dense_flops[*p] = plausible(flops, key, &ConfigNode::as_flop_rate, 1e12, 1e19, "1 TFLOPS to 10 EFLOPS");
  }
  if (g.dense_flops.empty()) flops.fail("must list at least one precision");
  // Work in a precision the GPU does not list runs on the next wider one it does; BF16 (which FP32
  // work also runs at) ends that chain, so without it some work would cost no compute time.
  if (!g.dense_flops.count(Precision::bf16))
    flops.fail("must include bf16: narrower precisions without a rate, and FP32 work, run at it");
  check_flops_ordering(flops, g.dense_flops);
  flops.finish();

  if (root.has("gemm_efficiency")) {
    const ConfigNode ge = root.child("gemm_efficiency");
    if (!ge.is_map()) ge.fail("expected a map of precision -> share of the default GEMM curves, e.g. fp4: 0.53");
    for (const std::string& key : ge.keys()) {
      const ConfigNode c = ge.child(key);
      const auto p = precision_from_string(key);
      if (!p) c.fail("unknown precision \"" + key + "\"; expected one of fp4, fp8, bf16, fp16, fp32");
      if (!g.dense_flops.count(*p)) c.fail("precision " + key + " has no dense_flops rate on this GPU");
      const double v = c.as_number();
      if (!(v > 0.0 && v <= 1.0)) c.fail("must be in (0, 1]");
      g.gemm_efficiency[*p] = v;
    }
    ge.finish();
  }
  if (root.has("hbm_efficiency")) {
    const ConfigNode he = root.child("hbm_efficiency");
    const double v = he.as_number();
    if (!(v > 0.0 && v <= 1.0)) he.fail("must be in (0, 1]: the share of the default HBM bandwidth curves");
    g.hbm_efficiency = v;
  }

  g.scale_up_bandwidth = plausible(root, "scale_up_bandwidth", &ConfigNode::as_bandwidth, 1e9, 1e15, "1 GB/s to 1 PB/s");
  const std::string link = root.one_of(
      "host_link", {"pcie_gen4_x16", "pcie_gen5_x16", "pcie_gen6_x16", "nvlink_c2c", "infinity_fabric"});
  g.host_link = *host_link_kind_from_string(link);
  g.host_link_bandwidth = plausible(root, "host_link_bandwidth", &ConfigNode::as_bandwidth, 1e9, 1e14, "1 GB/s to 100 TB/s");
  g.power_kw = positive_number(root, "power_kw");
  root.finish();
  return g;
}

// Reads a list of index groups and checks that every index 0..count-1 appears in exactly one group.
std::vector<std::vector<int>> parse_groups(const ConfigNode& map, const std::string& key, int count,
                                           const std::string& what, const std::string& count_field) {
  const ConfigNode list = map.child(key);
  std::vector<std::vector<int>> groups;
  std::vector<int> owner(static_cast<std::size_t>(count), -1);
  const std::vector<ConfigNode> group_nodes = list.elements();
  for (std::size_t gi = 0; gi < group_nodes.size(); ++gi) {
    const ConfigNode& g = group_nodes[gi];
    std::vector<int> members;
    const std::vector<ConfigNode> items = g.elements();
    if (items.empty()) g.fail("empty group");
    for (const ConfigNode& item : items) {
      const std::int64_t idx = item.as_integer();
      if (idx < 0 || idx >= count) {
        item.fail(what + " index " + std::to_string(idx) + " out of range [0, " + std::to_string(count) + ") (" +
                  count_field + " is " + std::to_string(count) + ")");
      }
      const int i = static_cast<int>(idx);
      if (owner[static_cast<std::size_t>(i)] >= 0) {
        item.fail(what + " " + std::to_string(i) + " is already in group " +
                  std::to_string(owner[static_cast<std::size_t>(i)]));
      }
      owner[static_cast<std::size_t>(i)] = static_cast<int>(gi);
      members.push_back(i);
    }
    groups.push_back(std::move(members));
  }
  for (int i = 0; i < count; ++i) {
    if (owner[static_cast<std::size_t>(i)] < 0) list.fail(what + " " + std::to_string(i) + " is in no group");
  }
  return groups;
}

// A catalog name resolves under hardware/gpus; a relative path resolves beside the node file.
std::string resolve_gpu_reference(const std::string& ref, const std::string& node_file) {
  const std::string resolved = resolve_catalog_path("hardware/gpus", ref);
  if (resolved == ref && fs::path(ref).is_relative()) {
    return (fs::path(node_file).parent_path() / ref).lexically_normal().string();
  }
  return resolved;
}

NodeSpec parse_node(const ConfigNode& root) {
  NodeSpec n;
  n.name = non_empty(root, "name");
  n.description = non_empty(root, "description");

  const ConfigNode gpu_field = root.child("gpu");
  const std::string gpu_ref = gpu_field.as_str();
  if (gpu_ref.empty()) gpu_field.fail("must name a GPU from hardware/gpus or a GPU file");
  const std::string gpu_path = resolve_gpu_reference(gpu_ref, root.file());
  std::error_code ec;  // a name the file system refuses (one too long, say) is an unknown GPU too
  if (!fs::is_regular_file(gpu_path, ec)) gpu_field.fail("unknown GPU \"" + gpu_ref + "\" (no file " + gpu_path + ")");
  n.gpu = load_gpu(gpu_path);

  n.gpu_count = static_cast<int>(root.integer("gpu_count", 1, 1 << 20));
  n.scale_up_domain_gpus = static_cast<int>(root.integer("scale_up_domain_gpus", 1, 1 << 20));
  if (n.scale_up_domain_gpus < n.gpu_count) {
    root.child("scale_up_domain_gpus")
        .fail("smaller than gpu_count (" + std::to_string(n.scale_up_domain_gpus) + " < " +
              std::to_string(n.gpu_count) + ")");
  }
  if (root.has("scale_out_bandwidth"))
    n.scale_out_bandwidth = plausible(root, "scale_out_bandwidth", &ConfigNode::as_bandwidth, 1e8, 1e14, "100 MB/s to 100 TB/s");
  n.host_dram_capacity = plausible(root, "host_dram_capacity", &ConfigNode::as_bytes, 0x1p30, 0x1p50, "1 GiB to 1 PiB");
  n.host_dram_bandwidth = plausible(root, "host_dram_bandwidth", &ConfigNode::as_bandwidth, 1e9, 1e15, "1 GB/s to 1 PB/s");
  n.host_link_latency = positive_time(root, "host_link_latency");
  if (root.has("host_read_request"))
    n.host_read_request = plausible(root, "host_read_request", &ConfigNode::as_bytes, 16.0, 4096.0, "16 B to 4 KiB");
  if (root.has("host_max_outstanding_reads"))
    n.host_max_outstanding_reads = static_cast<int>(root.integer("host_max_outstanding_reads", 1, 65536));
  if ((n.host_read_request.value() > 0.0) != (n.host_max_outstanding_reads > 0))
    root.fail("host_read_request and host_max_outstanding_reads go together");

  // `nvme: {count: 0}`: a node without local drives (no ssd tier); the drive figures then stay unset.
  const ConfigNode nvme = root.child("nvme");
  n.nvme.count = static_cast<int>(nvme.integer("count", 0, 4096));
  if (n.nvme.count > 0) {
    n.nvme.capacity_per_drive = plausible(nvme, "capacity_per_drive", &ConfigNode::as_bytes, 1e9, 1e15, "1 GB to 1 PB");
    n.nvme.seq_read_per_drive =
        plausible(nvme, "seq_read_per_drive", &ConfigNode::as_bandwidth, 1e7, 1e12, "10 MB/s to 1 TB/s");
    n.nvme.random_read_iops_4k_per_drive = positive_number(nvme, "random_read_iops_4k_per_drive");
    n.nvme.read_latency = positive_time(nvme, "read_latency");
  }
  nvme.finish();

  const ConfigNode topo = root.child("topology");
  n.topology.cpu_sockets = static_cast<int>(topo.integer("cpu_sockets", 1, 64));
  n.topology.gpu_groups = parse_groups(topo, "gpu_groups", n.gpu_count, "GPU", "gpu_count");
  n.topology.switch_uplink_bandwidth = plausible(topo, "switch_uplink_bandwidth", &ConfigNode::as_bandwidth, 1e9, 1e14, "1 GB/s to 100 TB/s");
  if (n.nvme.count > 0 || topo.has("drive_groups"))
    n.topology.drive_groups = parse_groups(topo, "drive_groups", n.nvme.count, "drive", "nvme.count");
  topo.finish();

  const ConfigNode prices = root.child("prices");
  const ConfigNode tiers = prices.child("gpu_hour");
  n.gpu_hour.hyperscaler = positive(tiers, "hyperscaler", &ConfigNode::as_money_rate);
  n.gpu_hour.neocloud = positive(tiers, "neocloud", &ConfigNode::as_money_rate);
  n.gpu_hour.rental = positive(tiers, "rental", &ConfigNode::as_money_rate);
  tiers.finish();
  n.dram_price = positive(prices, "dram_capital", &ConfigNode::as_money_per_byte);
  n.ssd_price = positive(prices, "ssd_capital", &ConfigNode::as_money_per_byte);
  n.amortization_life = positive_time(prices, "amortization_life");
  prices.finish();

  root.finish();
  return n;
}

}  // namespace

GpuSpec load_gpu(const std::string& name_or_path) {
  return parse_gpu(ConfigNode::load_file(resolve_catalog_path("hardware/gpus", name_or_path)));
}

NodeSpec load_node(const std::string& name_or_path) {
  return parse_node(ConfigNode::load_file(resolve_catalog_path("hardware/nodes", name_or_path)));
}

std::vector<CatalogEntry> list_catalog(const std::string& kind_folder) {
  std::vector<CatalogEntry> out;
  const fs::path dir = fs::path(data_root()) / kind_folder;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    const ConfigNode root = ConfigNode::load_file(entry.path().string());
    if (!root.is_map()) root.fail("expected a map at the top of a catalog file");
    CatalogEntry e;
    e.name = root.str("name");
    e.description = root.has("description") ? root.str("description") : "";
    e.path = entry.path().string();
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const CatalogEntry& a, const CatalogEntry& b) {
    return a.name != b.name ? a.name < b.name : a.path < b.path;
  });
  return out;
}

}  // namespace engramsim
