// A GPU SKU as the cost models see it: memory, bandwidth, dense FLOP rates per precision, links.
//
// Loaded from hardware/gpus/NAME.yaml (see hardware_loader.hpp). Every number in those files
// carries its source. Rates are per GPU; FLOP rates are dense (no 2:4 sparsity).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "core/enum_names.hpp"
#include "core/units.hpp"

namespace engramsim {

// Numeric formats that weights, activations, KV cache and GEMMs use.
enum class Precision { fp4, fp8, bf16, fp16, fp32 };
inline constexpr std::size_t kPrecisionCount = 5;
// Their names, the one spelling every file and schema uses.
inline constexpr EnumNames<Precision, kPrecisionCount> kPrecisionNames{{{
    {Precision::fp4, "fp4"},
    {Precision::fp8, "fp8"},
    {Precision::bf16, "bf16"},
    {Precision::fp16, "fp16"},
    {Precision::fp32, "fp32"},
}}};

// "fp4" -> Precision::fp4 etc.; nullopt for an unknown name.
std::optional<Precision> precision_from_string(const std::string& s);
const char* to_string(Precision p);
// Storage bytes per element, excluding block scales (fp4 = 0.5).
double bytes_per_element(Precision p);

// pcie_gen4_x16 is for A100-era hosts.
enum class HostLinkKind { pcie_gen4_x16, pcie_gen5_x16, pcie_gen6_x16, nvlink_c2c, infinity_fabric };
inline constexpr EnumNames<HostLinkKind, 5> kHostLinkNames{{{
    {HostLinkKind::pcie_gen4_x16, "pcie_gen4_x16"},
    {HostLinkKind::pcie_gen5_x16, "pcie_gen5_x16"},
    {HostLinkKind::pcie_gen6_x16, "pcie_gen6_x16"},
    {HostLinkKind::nvlink_c2c, "nvlink_c2c"},
    {HostLinkKind::infinity_fabric, "infinity_fabric"},
}}};
std::optional<HostLinkKind> host_link_kind_from_string(const std::string& s);
const char* to_string(HostLinkKind k);

struct GpuSpec {
  std::string name;         // catalog key, e.g. "b300"
  std::string description;  // one line for `engramsim list gpus`
  std::string vendor;       // "nvidia" | "amd"
  Bytes hbm_capacity;       // nominal
  Bytes hbm_usable;         // what the runtime can allocate (<= nominal)
  Bandwidth hbm_bandwidth;
  // Dense peak per precision. A precision absent here is not supported natively (the step model
  // falls back to the next wider supported one).
  std::map<Precision, FlopRate> dense_flops;
  // Share of the default GEMM efficiency curves (models/efficiency.hpp, derived on Hopper) that this
  // GPU's shipping GEMM kernels reach at a precision, from public kernel benchmarks. Blackwell's
  // narrower formats reach a smaller share of their nominal peak than BF16 does. A precision absent
  // here reaches the curves as they are (1).
  std::map<Precision, double> gemm_efficiency;
  // Share of the default HBM bandwidth curves (models/efficiency.hpp, derived on Hopper) that this
  // GPU's memory reaches, from a streaming benchmark run on the same harness as on an H100. 1 when
  // the part matches Hopper's share of its datasheet bandwidth.
  double hbm_efficiency = 1.0;
  // Share of the default decode-attention bandwidth curve (drawn from FlashMLA / FlashAttention on
  // Hopper) that the paged-decode attention kernels the engines ship for this part reach, on top of
  // hbm_efficiency; measured end to end where a public table allows it. 1 when they match Hopper's.
  double attention_decode_efficiency = 1.0;
  // Share of the default HBM bandwidth curves (on top of hbm_efficiency) at which this GPU's shipped
  // dense GEMM kernels stream their weights, from a small-M kernel table where one exists. 1 when
  // they stream as fast as the part's other bandwidth-bound kernels.
  double gemm_bandwidth_efficiency = 1.0;
  // Share of the shorter of a dense GEMM's two terms (weight streaming, math) that its kernels hide
  // under the longer. 1 (the Hopper-drawn curves' assumption: time is the longer term) unless a
  // small-M kernel table shows the part's shipped GEMMs adding part of the shorter one.
  double gemm_overlap = 1.0;
  // Fixed work of each output tile of a dense GEMM (prologue, scale epilogue, store), in elements of
  // the reduction depth K it equals: the math runs at K / (K + this) of the curves' rate. 0 (the
  // Hopper-drawn curves' assumption: no dependence on K) unless a kernel table shows the part's
  // shipped GEMMs slowing at short K.
  double gemm_k_overhead = 0.0;
  Bandwidth scale_up_bandwidth;  // NVLink / Infinity Fabric, bidirectional per GPU
  HostLinkKind host_link = HostLinkKind::pcie_gen5_x16;
  Bandwidth host_link_bandwidth;  // per direction, peak
  double power_kw = 0.0;          // all-in per GPU, for throughput per MW
  // NVIDIA compute-capability family times ten (80 Ampere, 90 Hopper, 100 Blackwell, B300's 10.3
  // included); 0 for other vendors. Engines pick kernels and cache record layouts by it (vLLM's
  // V4.1 attention stores MXFP8 KV records on the 100 family only).
  int sm_family = 0;
};

}  // namespace engramsim
