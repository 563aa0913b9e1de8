#include "hardware/hardware_loader.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <type_traits>

#include "core/config_node.hpp"
#include "core/field_table.hpp"
#include "core/paths.hpp"
#include "hardware/gpu_reference.hpp"

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

// `dense_flops`: precision -> dense peak, bf16 required, narrower never slower.
void read_dense_flops(const ConfigNode& root, GpuSpec& g) {
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
}

// `gemm_efficiency`: precision -> share in (0, 1], only for precisions with a dense_flops rate.
void read_gemm_efficiency(const ConfigNode& root, GpuSpec& g) {
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

nlohmann::json precision_map_json(const auto& m) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [p, v] : m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>)
      out[to_string(p)] = v;
    else
      out[to_string(p)] = v.value();
  }
  return out;
}

void add_gpu_memory_keys(FieldTable<GpuSpec>& t) {
  t.text("name", &GpuSpec::name, "catalog key, equal to the file name").required();
  t.text("description", &GpuSpec::description, "one line for `engramsim list gpus`").required();
  t.custom(
       {"vendor", "`nvidia` \\| `amd`", "required", "the maker, for catalog listings"},
       [](const ConfigNode& m, GpuSpec& g) {
         g.vendor = m.one_of("vendor", {"nvidia", "amd"});
       },
       [](const GpuSpec& g) { return nlohmann::json(g.vendor); })
      .required();
  t.quantity("hbm_capacity", &GpuSpec::hbm_capacity, &ConfigNode::as_bytes, "size", 0x1p30, 0x1p50, "1 GiB to 1 PiB",
             "nominal HBM (write GiB: docs/hardware.md, \"HBM is written in GiB\")")
      .required();
  t.quantity("hbm_usable", &GpuSpec::hbm_usable, &ConfigNode::as_bytes, "size", 0x1p30, 0x1p50, "1 GiB to 1 PiB",
             "what the runtime can allocate, at most `hbm_capacity`; the footprint model starts from this")
      .required();
  t.quantity("hbm_bandwidth", &GpuSpec::hbm_bandwidth, &ConfigNode::as_bandwidth, "bandwidth", 1e10, 1e15,
             "10 GB/s to 1 PB/s", "peak HBM bandwidth")
      .required();
}

void add_gpu_compute_keys(FieldTable<GpuSpec>& t) {
  t.custom({"dense_flops", "map precision -> FLOP rate, 1 TFLOPS to 10 EFLOPS", "required",
            "dense peak (no 2:4 sparsity) per precision; keys `fp4`, `fp8`, `bf16` (required), `fp16`, `fp32`. A "
            "precision the part lacks is left out (A100 has no `fp8`; Hopper and CDNA3 have no `fp4`). A wider "
            "precision may not be faster than a narrower one (this catches TFLOPS/PFLOPS slips)"},
           read_dense_flops, [](const GpuSpec& g) { return precision_map_json(g.dense_flops); })
      .required();
  t.custom({"gemm_efficiency", "map precision -> number in (0, 1]", "none (1 for every precision)",
            "share of the default GEMM efficiency curves (drawn on Hopper FP8) that the part's GEMM kernels reach at "
            "that precision; multiplies the peak of the GEMM and grouped-GEMM ops only (docs/cost-model.md §2). Keys "
            "must have a `dense_flops` rate. The presets' figures and their benchmarks: \"Where the numbers come "
            "from\" below. A calibration profile's `gemm` section replaces it for the precisions it measured"},
           read_gemm_efficiency, [](const GpuSpec& g) { return precision_map_json(g.gemm_efficiency); });
  t.number_above("hbm_efficiency", &GpuSpec::hbm_efficiency, 0.0, 1.0,
                 "share of the default HBM bandwidth curves (drawn on Hopper: streaming kernels reach ~0.85-0.9 of "
                 "the datasheet there) that the part's memory reaches; multiplies the datasheet bandwidth for every "
                 "bandwidth-bound op and the HBM Engram gather (docs/cost-model.md §2). A calibration profile that "
                 "measures HBM (`hbm`, `attention_decode` or `hbm_gather`) replaces it");
  t.number_above(
      "attention_decode_efficiency", &GpuSpec::attention_decode_efficiency, 0.0, 1.0,
      "share of the default decode-attention bandwidth curve (drawn from FlashMLA and FlashAttention on "
      "Hopper) that the paged-decode attention kernels shipped for the part reach, on top of `hbm_efficiency`; "
      "multiplies the KV read rate of the decode-attention ops only (docs/cost-model.md §2). A calibration "
      "profile's `attention_decode` section replaces it");
  t.number_above(
      "gemm_bandwidth_efficiency", &GpuSpec::gemm_bandwidth_efficiency, 0.0, 1.0,
      "share of the default HBM bandwidth curves, on top of `hbm_efficiency`, at which the part's dense GEMM "
      "kernels stream their weights; multiplies the bandwidth of dense GEMM ops only (docs/cost-model.md §2). A "
      "calibration profile's `gemm` section replaces it for the precisions it measured");
  t.number("gemm_overlap", &GpuSpec::gemm_overlap, 0.0, 1.0,
           "share of a dense GEMM's math that the part's GEMM kernels hide behind streaming its weights: the op adds "
           "(1 - share) x the math while it is shorter than the weight stream, fading as stream^2 / math beyond "
           "(docs/cost-model.md §2). Dense GEMM ops only. A calibration profile's `gemm` section replaces it for the "
           "precisions it measured");
  t.number("gemm_k_overhead", &GpuSpec::gemm_k_overhead, 0.0, 65536.0,
           "fixed work per output tile of the part's dense GEMM kernels, in elements of the reduction depth K: "
           "their math runs at K / (K + this) of the curves' rate (docs/cost-model.md §2). Dense GEMM ops only. A "
           "calibration profile's `gemm` section replaces it for the precisions it measured");
}

void add_gpu_link_keys(FieldTable<GpuSpec>& t) {
  t.quantity("scale_up_bandwidth", &GpuSpec::scale_up_bandwidth, &ConfigNode::as_bandwidth, "bandwidth", 1e9, 1e15,
             "1 GB/s to 1 PB/s", "NVLink / Infinity Fabric per GPU, bidirectional")
      .required();
  t.custom(
       {"host_link", "`pcie_gen4_x16` \\| `pcie_gen5_x16` \\| `pcie_gen6_x16` \\| `nvlink_c2c` \\| `infinity_fabric`",
        "required", "the GPU's link to host memory as the node uses it"},
       [](const ConfigNode& m, GpuSpec& g) {
         g.host_link = *host_link_kind_from_string(m.one_of("host_link", kHostLinkNames.names()));
       },
       [](const GpuSpec& g) { return nlohmann::json(to_string(g.host_link)); })
      .required();
  t.quantity("host_link_bandwidth", &GpuSpec::host_link_bandwidth, &ConfigNode::as_bandwidth, "bandwidth", 1e9, 1e14,
             "1 GB/s to 100 TB/s", "peak per direction")
      .required();
  t.number_above("power_kw", &GpuSpec::power_kw, 0.0, 1e300,
                 "all-in kW per GPU (server, network, cooling share), for throughput per MW")
      .required();
  t.integer(
      "sm_family", &GpuSpec::sm_family, 0, 200,
      "NVIDIA compute-capability family x 10 (80 Ampere, 90 Hopper, 100 Blackwell); 0 or absent for other vendors");
}

GpuSpec parse_gpu(const ConfigNode& root) {
  GpuSpec g;
  gpu_schema().read(root, g);
  check_usable_fits(root, g);
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

// `gpu:` a catalog name or a GPU file beside the node file, loaded.
void read_node_gpu(const ConfigNode& root, NodeSpec& n) {
  const ConfigNode gpu_field = root.child("gpu");
  const std::string gpu_ref = gpu_field.as_str();
  if (gpu_ref.empty()) gpu_field.fail("must name a GPU from hardware/gpus or a GPU file");
  const std::string gpu_path = resolve_gpu_reference(gpu_ref, root.file());
  std::error_code ec;  // a name the file system refuses (one too long, say) is an unknown GPU too
  if (!fs::is_regular_file(gpu_path, ec)) gpu_field.fail("unknown GPU \"" + gpu_ref + "\" (no file " + gpu_path + ")");
  n.gpu = load_gpu(gpu_path);
}

FieldTable<NodeSpec> nvme_keys() {
  FieldTable<NodeSpec> t("nvme");
  t.integer(
       "count", [](auto& n) -> auto& { return n.nvme.count; }, 0, 4096,
       "local drives; 0 is a node without drives: the other `nvme` keys are then omitted, and a scenario "
       "asking for the ssd tier on it is an error at `deployment.engram.tier`")
      .required();
  t.quantity(
       "capacity_per_drive", [](auto& n) -> auto& { return n.nvme.capacity_per_drive; }, &ConfigNode::as_bytes, "size",
       1e9, 1e15, "1 GB to 1 PB", "per drive")
      .default_words("required when `count` > 0");
  t.quantity(
       "seq_read_per_drive", [](auto& n) -> auto& { return n.nvme.seq_read_per_drive; }, &ConfigNode::as_bandwidth,
       "bandwidth", 1e7, 1e12, "10 MB/s to 1 TB/s", "sequential read per drive")
      .default_words("required when `count` > 0");
  t.number_above(
       "random_read_iops_4k_per_drive", [](auto& n) -> auto& { return n.nvme.random_read_iops_4k_per_drive; }, 0.0,
       1e300, "4 KiB random-read IOPS per drive at high queue depth")
      .default_words("required when `count` > 0");
  t.custom(
      {"read_latency", "time > 0", "required when `count` > 0", "4 KiB read latency at queue depth 1"},
      [](const ConfigNode& m, NodeSpec& n) { n.nvme.read_latency = positive_time(m, "read_latency"); },
      [](const NodeSpec& n) { return nlohmann::json(n.nvme.read_latency.seconds()); });
  return t;
}

FieldTable<NodeSpec> topology_keys() {
  FieldTable<NodeSpec> t("topology");
  t.integer(
       "cpu_sockets", [](auto& n) -> auto& { return n.topology.cpu_sockets; }, 1, 64, "CPU sockets of the host")
      .required();
  t.custom({"gpu_groups", "list of lists of GPU indices", "required",
            "GPUs behind one PCIe switch (HGX) or one Grace CPU (C2C). Each index `0..gpu_count-1` in exactly one "
            "group"},
           [](const ConfigNode& m, NodeSpec& n) {
             n.topology.gpu_groups = parse_groups(m, "gpu_groups", n.gpu_count, "GPU", "gpu_count");
           })
      .required();
  t.quantity(
       "switch_uplink_bandwidth", [](auto& n) -> auto& { return n.topology.switch_uplink_bandwidth; },
       &ConfigNode::as_bandwidth, "bandwidth", 1e9, 1e14, "1 GB/s to 100 TB/s",
       "per group, per direction, to the root complex: what the group's GPUs share for host-memory traffic")
      .required();
  t.custom({"drive_groups", "list of lists of drive indices", "required when `nvme.count` > 0",
            "drives behind each switch / root complex; each index `0..nvme.count-1` in exactly one group; omitted "
            "when `nvme.count` is 0"},
           [](const ConfigNode& m, NodeSpec& n) {
             n.topology.drive_groups = parse_groups(m, "drive_groups", n.nvme.count, "drive", "nvme.count");
           });
  return t;
}

FieldTable<NodeSpec> price_keys() {
  FieldTable<NodeSpec> tiers("gpu_hour");
  const char* what[] = {"InferenceX `costh`: owned by a hyperscaler, 4-year life",
                        "InferenceX `costn`: owned by a neocloud giant", "InferenceX `costr`: 3-year rental contract"};
  tiers
      .custom({"hyperscaler", "price per hour > 0", "required", what[0]},
              [](const ConfigNode& m, NodeSpec& n) {
                n.gpu_hour.hyperscaler = positive(m, "hyperscaler", &ConfigNode::as_money_rate);
              })
      .required();
  tiers
      .custom({"neocloud", "price per hour > 0", "required", what[1]},
              [](const ConfigNode& m, NodeSpec& n) {
                n.gpu_hour.neocloud = positive(m, "neocloud", &ConfigNode::as_money_rate);
              })
      .required();
  tiers
      .custom({"rental", "price per hour > 0", "required", what[2]},
              [](const ConfigNode& m, NodeSpec& n) {
                n.gpu_hour.rental = positive(m, "rental", &ConfigNode::as_money_rate);
              })
      .required();
  FieldTable<NodeSpec> t("prices");
  t.section("gpu_hour", tiers, "USD per GPU-hour in the three InferenceX tiers").required();
  t.custom({"dram_capital", "price per capacity > 0", "required", "capital cost of host DRAM"}, [](const ConfigNode& m,
                                                                                                   NodeSpec& n) {
     n.dram_price = positive(m, "dram_capital", &ConfigNode::as_money_per_byte);
   }).required();
  t.custom({"ssd_capital", "price per capacity > 0", "required", "capital cost of NVMe capacity"},
           [](const ConfigNode& m, NodeSpec& n) {
             n.ssd_price = positive(m, "ssd_capital", &ConfigNode::as_money_per_byte);
           })
      .required();
  t.custom({"amortization_life", "time > 0", "required", "over which DRAM/SSD capital becomes an hourly cost"},
           [](const ConfigNode& m, NodeSpec& n) { n.amortization_life = positive_time(m, "amortization_life"); })
      .required();
  return t;
}

void add_node_keys(FieldTable<NodeSpec>& t) {
  t.text("name", &NodeSpec::name, "catalog key, equal to the file name").required();
  t.text("description", &NodeSpec::description, "one line for `engramsim list nodes`").required();
  t.custom({"gpu", "catalog name or path", "required",
            "the GPU; a name resolves under `hardware/gpus`, a relative path beside the node file"},
           read_node_gpu, [](const NodeSpec& n) { return nlohmann::json(n.gpu.name); })
      .required();
  t.integer("gpu_count", &NodeSpec::gpu_count, 1, 1 << 20, "GPUs in the node").required();
  t.integer("scale_up_domain_gpus", &NodeSpec::scale_up_domain_gpus, 1, 1 << 20,
            "GPUs reachable over the scale-up fabric (8 for HGX, 72 for NVL72), at least `gpu_count`")
      .required();
  t.quantity("scale_out_bandwidth", &NodeSpec::scale_out_bandwidth, &ConfigNode::as_bandwidth, "bandwidth", 1e8, 1e14,
             "100 MB/s to 100 TB/s",
             "one GPU's scale-out NIC, per direction (400 Gb/s ConnectX-7 = 50 GB/s). Without it a replica must fit "
             "in one scale-up domain; with it an expert-parallel replica with data-parallel attention may span "
             "domains and its all-to-all crosses the NIC (docs/cost-model.md, \"Expert all-to-all across domains\")")
      .default_words("none");
}

void add_host_keys(FieldTable<NodeSpec>& t) {
  t.quantity("host_dram_capacity", &NodeSpec::host_dram_capacity, &ConfigNode::as_bytes, "size", 0x1p30, 0x1p50,
             "1 GiB to 1 PiB", "host memory, all sockets")
      .required();
  t.quantity("host_dram_bandwidth", &NodeSpec::host_dram_bandwidth, &ConfigNode::as_bandwidth, "bandwidth", 1e9, 1e15,
             "1 GB/s to 1 PB/s", "aggregate, all sockets")
      .required();
  t.custom(
       {"host_link_latency", "time > 0", "required",
        "one small GPU read of host memory (PCIe or C2C round trip); a placeholder until calibrated"},
       [](const ConfigNode& m, NodeSpec& n) { n.host_link_latency = positive_time(m, "host_link_latency"); },
       [](const NodeSpec& n) { return nlohmann::json(n.host_link_latency.seconds()); })
      .required();
  t.quantity("host_read_request", &NodeSpec::host_read_request, &ConfigNode::as_bytes, "size", 16.0, 4096.0,
             "16 B to 4 KiB",
             "the read request size of a GPU kernel's small reads of pinned host memory; with "
             "`host_max_outstanding_reads` it bounds them by Little's law")
      .default_words("none");
  t.integer("host_max_outstanding_reads", &NodeSpec::host_max_outstanding_reads, 1, 65536,
            "non-posted reads one GPU keeps in flight; goes with `host_read_request`")
      .default_words("none");
  t.section("nvme", nvme_keys(), "").required();  // before topology: drive_groups reads nvme.count
  t.section("topology", topology_keys(), "").required();
  t.section("prices", price_keys(), "").required();
}

// Keys that go together or depend on another key's value.
void check_node(const ConfigNode& root, const NodeSpec& n) {
  if (n.scale_up_domain_gpus < n.gpu_count)
    root.child("scale_up_domain_gpus")
        .fail("smaller than gpu_count (" + std::to_string(n.scale_up_domain_gpus) + " < " +
              std::to_string(n.gpu_count) + ")");
  if ((n.host_read_request.value() > 0.0) != (n.host_max_outstanding_reads > 0))
    root.fail("host_read_request and host_max_outstanding_reads go together");
  const ConfigNode nvme = root.child("nvme");
  for (const char* key :
       {"capacity_per_drive", "seq_read_per_drive", "random_read_iops_4k_per_drive", "read_latency"}) {
    if (n.nvme.count > 0)
      nvme.child(key);  // required: throws when absent
    else if (nvme.has(key))
      nvme.fail_key(key, "a node without drives (count: 0) states no drive figures");
  }
  if (n.nvme.count > 0 && n.topology.drive_groups.empty()) root.child("topology").child("drive_groups");
}

NodeSpec parse_node(const ConfigNode& root) {
  NodeSpec n;
  node_schema().read(root, n);
  check_node(root, n);
  root.finish();
  return n;
}

}  // namespace

const FieldTable<NodeSpec>& node_schema() {
  static const FieldTable<NodeSpec> table = [] {
    FieldTable<NodeSpec> t("node preset");
    add_node_keys(t);
    add_host_keys(t);
    return t;
  }();
  return table;
}

const FieldTable<GpuSpec>& gpu_schema() {
  static const FieldTable<GpuSpec> table = [] {
    FieldTable<GpuSpec> t("GPU preset");
    add_gpu_memory_keys(t);
    add_gpu_compute_keys(t);
    add_gpu_link_keys(t);
    return t;
  }();
  return table;
}

std::string resolve_gpu_reference(const std::string& ref, const std::string& node_file) {
  const std::string resolved = resolve_catalog_path("hardware/gpus", ref);
  if (resolved == ref && std::filesystem::path(ref).is_relative()) {
    return (std::filesystem::path(node_file).parent_path() / ref).lexically_normal().string();
  }
  return resolved;
}

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
