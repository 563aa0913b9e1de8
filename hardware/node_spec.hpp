// A server node (or a compute tray inside a rack-scale domain): its GPUs, host memory, host links,
// PCIe switch topology, NVMe drives and prices.
//
// Loaded from hardware/nodes/NAME.yaml. The GPU is resolved from hardware/gpus/ by name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "hardware/gpu_spec.hpp"

namespace engramsim {

struct NvmeSpec {
  int count = 0;  // drives in the node
  Bytes capacity_per_drive;
  Bandwidth seq_read_per_drive;
  double random_read_iops_4k_per_drive = 0.0;  // 4 KiB random-read IOPS at high queue depth
  Time read_latency;                           // 4 KiB read latency at queue depth 1
};

// The three SemiAnalysis/InferenceX cost tiers, USD per GPU-hour.
struct PriceTiers {
  MoneyRate hyperscaler;  // owned, 4-year life ("costh")
  MoneyRate neocloud;     // owned by a neocloud giant ("costn")
  MoneyRate rental;       // 3-year rental contract ("costr")
};
enum class PriceTier { hyperscaler, neocloud, rental };
inline constexpr EnumNames<PriceTier, 3> kPriceTierNames{{{
    {PriceTier::hyperscaler, "hyperscaler"},
    {PriceTier::neocloud, "neocloud"},
    {PriceTier::rental, "rental"},
}}};
std::optional<PriceTier> price_tier_from_string(const std::string& s);
const char* to_string(PriceTier t);
MoneyRate gpu_hour_price(const PriceTiers& p, PriceTier t);

// Which GPUs share one upstream PCIe switch (or Grace CPU for C2C parts), and which drives hang
// off which root complex. Indices are GPU ordinals 0..gpu_count-1 and drive ordinals.
struct HostTopology {
  std::vector<std::vector<int>> gpu_groups;    // GPUs behind one switch / CPU link
  Bandwidth switch_uplink_bandwidth;           // per group, per direction, to the root complex
  std::vector<std::vector<int>> drive_groups;  // drives behind each root complex / switch
  int cpu_sockets = 2;
};

struct NodeSpec {
  std::string name;         // catalog key, e.g. "hgx-b300"
  std::string description;  // one line for `engramsim list nodes`
  GpuSpec gpu;              // resolved from `gpu:` by name
  int gpu_count = 0;
  int scale_up_domain_gpus = 0;  // GPUs reachable over the scale-up fabric (8 for HGX, 72 for NVL72)
  // Scale-out NIC bandwidth of one GPU, per direction (0 = not stated: a replica must fit in one
  // scale-up domain). With it, an expert-parallel replica under data-parallel attention may span
  // several scale-up domains; the EP all-to-all then crosses this link (models/collectives.hpp).
  Bandwidth scale_out_bandwidth;
  Bytes host_dram_capacity;
  Bandwidth host_dram_bandwidth;  // aggregate, all sockets
  Time host_link_latency;         // one small read over the host link (PCIe / C2C round trip)
  // Small reads of pinned host memory by a GPU kernel (UVA): the read request size and how many
  // non-posted reads one GPU keeps in flight. 0 = not stated (no Little's-law bound).
  Bytes host_read_request;
  int host_max_outstanding_reads = 0;
  HostTopology topology;
  NvmeSpec nvme;
  PriceTiers gpu_hour;
  MoneyPerByte dram_price;  // capital cost of host DRAM per byte
  MoneyPerByte ssd_price;   // capital cost of NVMe capacity per byte
  Time amortization_life;   // over which DRAM/SSD capital is spread into an hourly cost
};

}  // namespace engramsim
