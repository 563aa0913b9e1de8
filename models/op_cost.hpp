// Roofline time of one op on one GPU rank.
//
//   compute  = FLOPs / (peak(precision) * eff_flops(class, flops_key))
//              (GEMM classes: peak(precision) * gemm_scale(precision), see tensor_peak below)
//   memory   = HBM bytes / (hbm_bw * eff_bw(class, bw_key))
//   time     = max(max(compute, memory) + exposed * exposed_seconds(math, weight stream),
//                  kernels * kernel_min_duration, block-FP8 K steps * k_step)
//              + kernels * kernel_overhead                                (GPU ops)
//              (exposed: dense GEMMs on a GPU whose kernels overlap less than fully, exposed_share;
//               math: the FLOPs at the curve's top; weight stream: memory x weight_bytes / hbm_bytes)
//   time     = alpha-beta collective time over the scale-up fabric       (collective ops)
// The bound is whichever term is largest (overhead when the kernels are shorter than their minimum
// duration or the launch gaps exceed the work); an op with no
// FLOPs and no bytes this step is not launched and costs nothing. A precision
// the GPU lacks falls back to the next wider one it has (fp4 -> fp8 -> bf16 -> fp16 -> fp32), as
// GpuSpec documents. Everything is per rank: the work decomposition (work.hpp) has already divided
// FLOPs and bytes by the parallel layout.
#pragma once

#include <array>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "hardware/gpu_spec.hpp"
#include "models/collectives.hpp"
#include "models/efficiency.hpp"

namespace engramsim {

// expert_normal / expert_low_latency: the EP dispatch or combine of a replica spanning scale-up
// domains, by DeepEP's normal or low-latency kernels (collectives.hpp, ScaleOutParams).
enum class CollectiveKind { none, all_reduce, all_to_all, expert_normal, expert_low_latency };
enum class Bound { compute, memory, network, overhead };
inline constexpr EnumNames<CollectiveKind, 5> kCollectiveKindNames{{{
    {CollectiveKind::none, "none"},
    {CollectiveKind::all_reduce, "all_reduce"},
    {CollectiveKind::all_to_all, "all_to_all"},
    {CollectiveKind::expert_normal, "expert_all_to_all_normal"},
    {CollectiveKind::expert_low_latency, "expert_all_to_all_low_latency"},
}}};
inline constexpr EnumNames<Bound, 4> kBoundNames{{{
    {Bound::compute, "compute"},
    {Bound::memory, "memory"},
    {Bound::network, "network"},
    {Bound::overhead, "overhead"},
}}};
const char* to_string(Bound b);
const char* to_string(CollectiveKind k);

// The work of one op on one rank.
struct OpWork {
  const char* name = "";  // static string, e.g. "attn.q_proj"
  OpClass op_class = OpClass::gemm;
  Precision precision = Precision::bf16;
  Flops flops;
  Bytes hbm_bytes;
  Bytes weight_bytes;      // the part of hbm_bytes read once per op whatever the batch (GEMM weights)
  double flops_key = 1.0;  // see efficiency.hpp for what the key means per class
  double bw_key = 0.0;     // 0 = use hbm_bytes
  int kernels = 1;
  CollectiveKind collective = CollectiveKind::none;
  Bytes collective_bytes;  // all-reduce: message per rank; all-to-all: bytes each rank sends;
                           // expert_*: bytes each rank sends over its scale-out NIC
  Bytes scale_up_bytes;    // expert_*: bytes each rank sends over the scale-up fabric
  int collective_ranks = 1;
  // Dense GEMM: the reduction depth K of its GEMMs on one rank (for an op of several GEMMs, the
  // FLOP-weighted harmonic mean); 0 for every other op and where unknown.
  double gemm_k = 0.0;
  // Dense GEMM on FP8 weights with block scales, outside the MoE block: the 128-deep K blocks its
  // kernels walk on one rank (0 for every other op; Efficiencies::block_fp8_gemm_k_step).
  double block_fp8_k_steps = 0.0;
};

struct OpCost {
  Time time;
  Bound bound = Bound::overhead;
  Time compute;
  Time memory;
  Time network;
  Time overhead;
};

// Peak rates of one GPU with the precision fallback resolved once.
class HardwareRates {
 public:
  explicit HardwareRates(const GpuSpec& gpu);
  // FLOP/s at `p`, or at the next wider precision the GPU supports; 0 if none.
  double peak_flops(Precision p) const { return peak_[static_cast<std::size_t>(p)]; }
  Precision effective_precision(Precision p) const { return effective_[static_cast<std::size_t>(p)]; }
  // The GPU preset's gemm_efficiency at the precision `p` runs in (after the fallback); 1 if unset.
  double gemm_efficiency(Precision p) const { return gemm_eff_[static_cast<std::size_t>(p)]; }
  // Datasheet HBM bandwidth, and the preset's hbm_efficiency (1 if unset).
  double hbm_bandwidth() const { return hbm_bw_; }
  double hbm_efficiency() const { return hbm_eff_; }
  // The preset's attention_decode_efficiency (1 if unset).
  double attention_decode_efficiency() const { return attn_decode_eff_; }
  // The preset's gemm_bandwidth_efficiency and gemm_overlap (1 if unset).
  double gemm_bandwidth_efficiency() const { return gemm_bw_eff_; }
  double gemm_overlap() const { return gemm_overlap_; }
  // The preset's gemm_k_overhead (0 if unset).
  double gemm_k_overhead() const { return gemm_k_overhead_; }

 private:
  std::array<double, kPrecisionCount> peak_{};
  std::array<double, kPrecisionCount> gemm_eff_{};
  std::array<Precision, kPrecisionCount> effective_{};
  double hbm_bw_ = 0.0;
  double hbm_eff_ = 1.0;
  double attn_decode_eff_ = 1.0;
  double gemm_bw_eff_ = 1.0;
  double gemm_overlap_ = 1.0;
  double gemm_k_overhead_ = 0.0;
};

// The FLOP rate an op of class `c` at precision `p` is charged against, before the class's
// efficiency curve: the dense peak, and for the GEMM classes (gemm, grouped_gemm) times the share of
// the curves this GPU's GEMM kernels reach at that precision: a calibration profile's measured share
// (Efficiencies::gemm_precision_scale) where it has one, else the GPU preset's gemm_efficiency; for
// grouped GEMMs also times the engine's moe_compute_share at `p`.
double tensor_peak(const HardwareRates& hw, const Efficiencies& eff, Precision p, OpClass c);
// The share of the GEMM curves that tensor_peak applies at precision `p` (after the fallback).
double gemm_share(const HardwareRates& hw, const Efficiencies& eff, Precision p);
// The HBM bandwidth the bandwidth curves are charged against: the datasheet figure times the GPU
// preset's hbm_efficiency, or the datasheet figure alone where a calibration profile measured the
// curves on the GPU (Efficiencies::hbm_measured).
double hbm_rate(const HardwareRates& hw, const Efficiencies& eff);
// The share of the class's bandwidth curve the kernels of class `c` at precision `p` reach beyond
// hbm_rate(): the GPU preset's attention_decode_efficiency for decode attention unless a calibration
// profile measured that curve on the GPU (Efficiencies::attention_decode_measured); the engine's
// moe_bandwidth_share at `p` for grouped GEMMs; the preset's gemm_bandwidth_efficiency for dense
// GEMMs unless a calibration profile measured the GEMM share at `p`; 1 for every other class.
double class_bandwidth_share(const HardwareRates& hw, const Efficiencies& eff, OpClass c, Precision p);

// The share of the shorter of an op's compute and memory terms that adds to the longer: for dense
// GEMMs 1 - the GPU preset's gemm_overlap at precision `p`, unless a calibration profile measured the
// GEMM share at `p` on the GPU (its curves then already hold what overlap the kernels reach); 0 for
// every other class.
double exposed_share(const HardwareRates& hw, const Efficiencies& eff, OpClass c, Precision p);

// The share of the FLOP rate a dense GEMM of reduction depth `gemm_k` keeps after its kernels' fixed
// work per output tile: K / (K + the GPU preset's gemm_k_overhead); 1 for every other class, for an
// unknown depth (0), and where a calibration profile measured the GEMM share at `p`.
double k_depth_share(const HardwareRates& hw, const Efficiencies& eff, OpClass c, Precision p, double gemm_k);

// The part of a dense GEMM's math (`math`, at the kernels' full rate) and weight stream (`stream`)
// that does not overlap when none of it is hidden: the math while it is the shorter (the kernel waits
// for each weight tile, then computes on it), and stream x stream / math beyond the balance point (a
// K loop with more math per tile than load time hides the loads behind the math). Continuous at
// math = stream; 0 when either is 0.
double exposed_seconds(double math, double stream);

// The shortest time an op of `kernels` kernels runs: each kernel's minimum duration, or, for a dense
// GEMM on block-scaled FP8 weights, its K steps times the engine's time per step, whichever is longer.
double op_floor_seconds(int kernels, double block_fp8_k_steps, const Efficiencies& eff);

// Seconds for the compute/memory/overhead parts and the bound, without allocation (hot path).
struct OpSeconds {
  double total = 0.0;
  double compute = 0.0;
  double memory = 0.0;
  double network = 0.0;
  double overhead = 0.0;
  Bound bound = Bound::overhead;
};
// Network seconds of a collective op (kind != none).
inline double collective_seconds(CollectiveKind kind, double bytes, double scale_up_bytes, int ranks,
                                 const CollectiveModel& net) {
  switch (kind) {
    case CollectiveKind::all_reduce:
      return net.all_reduce_seconds(bytes, ranks);
    case CollectiveKind::all_to_all:
      return net.all_to_all_seconds(bytes, ranks);
    case CollectiveKind::expert_normal:
      return net.expert_all_to_all_seconds(bytes, scale_up_bytes, ExpertKernels::normal);
    case CollectiveKind::expert_low_latency:
      return net.expert_all_to_all_seconds(bytes, scale_up_bytes, ExpertKernels::low_latency);
    case CollectiveKind::none:
      break;
  }
  return 0.0;
}

OpSeconds op_seconds(const OpWork& w, const HardwareRates& hw, const Efficiencies& eff, const CollectiveModel& net);

OpCost op_cost(const OpWork& w, const HardwareRates& hw, const Efficiencies& eff, const CollectiveModel& net);

}  // namespace engramsim
