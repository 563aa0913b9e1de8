// Achieved fractions of peak that the roofline step model applies per op class.
//
// A roofline op time is max(FLOPs / (peak * eff_flops), bytes / (bw * eff_bw)) + kernels * overhead.
// The efficiencies are curves over a shape key (interpolated piecewise-linearly in log2 of the key and
// clamped at both ends), because small GEMMs, short attention rows and small transfers reach a lower
// share of peak than large ones. What the key means depends on the op class:
//   gemm, grouped_gemm     flops key: M, the tokens (rows) one expert/projection multiplies
//   attention_prefill      flops key: query tokens per sequence chunk
//   attention_decode       flops key: query rows per KV head (heads per KV head x positions)
//   indexer, elementwise,
//   embedding              flops key: tokens
//   engram_gather          bandwidth key: row size in bytes (random rows waste part of each burst)
//   all other classes      bandwidth key: bytes the op moves to or from HBM
// The host-link gather and CPU gather curves are keyed by row size in bytes (Engram rows); the bulk
// copy curve by transfer size.
//
// Defaults are data files (models/data/default-efficiencies/) giving the source of every number (public
// kernel benchmarks) or marking it as an estimate; docs/cost-model.md discusses them. A calibration profile replaces
// any curve by measured points: every member is a plain value a loader can fill. Curves must be in (0, 1].
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "hardware/gpu_spec.hpp"

namespace engramsim {

class EfficiencyCurve {
 public:
  // A constant efficiency.
  explicit EfficiencyCurve(double constant = 1.0);
  // Points (key, efficiency) with key > 0 strictly increasing and efficiency in (0, 1].
  // Throws std::invalid_argument otherwise.
  explicit EfficiencyCurve(std::vector<std::pair<double, double>> points);

  // Efficiency at `key`; keys <= 0 clamp to the first point.
  double at(double key) const;
  const std::vector<std::pair<double, double>>& points() const { return points_; }
  // The highest efficiency on the curve (the kernels' full rate).
  double top() const;

 private:
  std::vector<std::pair<double, double>> points_;
  std::vector<double> log2_keys_;
};

enum class OpClass : std::size_t {
  gemm,               // dense projections (QKV/O, dense FFN, shared experts, LM head)
  grouped_gemm,       // routed-expert grouped GEMM
  attention_prefill,  // flash attention over prompt chunks
  attention_decode,   // paged decode attention (memory-bound at small query counts)
  indexer,            // sparse-attention indexer scoring (V4.x)
  elementwise,        // norms, activations, residual/mHC mixing, rotary, router softmax
  embedding,          // token-embedding row gather
  engram_gather,      // Engram row gather out of HBM
};
inline constexpr std::size_t kOpClassCount = 8;
inline constexpr EnumNames<OpClass, kOpClassCount> kOpClassNames{{{
    {OpClass::gemm, "gemm"},
    {OpClass::grouped_gemm, "grouped_gemm"},
    {OpClass::attention_prefill, "attention_prefill"},
    {OpClass::attention_decode, "attention_decode"},
    {OpClass::indexer, "indexer"},
    {OpClass::elementwise, "elementwise"},
    {OpClass::embedding, "embedding"},
    {OpClass::engram_gather, "engram_gather"},
}}};
const char* to_string(OpClass c);

struct OpEfficiency {
  EfficiencyCurve flops;      // by the class's flops key
  EfficiencyCurve bandwidth;  // by bytes moved
};

// One share per precision (indexed by Precision), each 1: a rate nothing has measured below its curve.
constexpr std::array<double, kPrecisionCount> unit_shares() {
  std::array<double, kPrecisionCount> a{};
  for (double& v : a) v = 1.0;
  return a;
}

// The shares of the grouped-GEMM bandwidth and FLOP rates a serving engine's routed-expert kernels
// reach, by expert precision, measured on the engine's own MoE module (engine preset
// `moe_bandwidth_share`, `moe_compute_share`; 1 where the preset states none).
struct MoeKernelShares {
  std::array<double, kPrecisionCount> bandwidth = unit_shares();
  std::array<double, kPrecisionCount> compute = unit_shares();
};

struct Efficiencies {
  std::array<OpEfficiency, kOpClassCount> by_class;
  // Fixed cost per kernel: the launch gap between kernels inside a CUDA graph.
  Time kernel_overhead = Time::ns(1500);
  // Shortest time a kernel runs, however little work it has (grid launch, one round of dependent
  // memory accesses, drain): an op of k kernels takes at least k times this before the gaps.
  Time kernel_min_duration = Time::ns(0);
  // Host link (PCIe / C2C) read by GPU threads from pinned host memory (UVA zero-copy), as a share of
  // the link's per-direction peak, by row size.
  EfficiencyCurve host_gather_by_row_bytes;
  // Bulk DMA copy (cudaMemcpyAsync from pinned memory), as a share of the per-direction peak, by
  // transfer size.
  EfficiencyCurve host_copy_by_bytes;
  // CPU gather of rows from host DRAM into a staging buffer, per GPU rank, as a share of the node's
  // DRAM bandwidth divided over its GPUs, by row size (random reads waste part of each cache line
  // burst and depend on CPU threads in flight).
  EfficiencyCurve cpu_gather_by_row_bytes;
  // Share of the GEMM curves (gemm, grouped_gemm) the GPU reaches at each precision (indexed by
  // Precision), as a calibration profile measured it; unset precisions use the GPU preset's
  // gemm_efficiency (hardware/gpu_spec.hpp).
  std::array<std::optional<double>, kPrecisionCount> gemm_precision_scale{};
  // True when a calibration profile measured the HBM bandwidth curves on the GPU (as shares of its
  // datasheet bandwidth); the GPU preset's hbm_efficiency then no longer applies.
  bool hbm_measured = false;
  // True when a calibration profile measured the decode-attention curve on the GPU; the GPU preset's
  // attention_decode_efficiency then no longer applies.
  bool attention_decode_measured = false;
  // The serving engine's routed-expert kernels (grouped-GEMM ops only); the step model copies them
  // from its engine preset.
  MoeKernelShares moe;
  // The serving engine's dense GEMMs on FP8 weights with 128x128 block scales walk K one scale block
  // at a time: each such op takes at least its K steps (OpWork::block_fp8_k_steps) times this (engine
  // preset `block_fp8_gemm_k_step`, which the step model copies; 0: no such floor).
  Time block_fp8_gemm_k_step = Time::zero();
  // Where these numbers came from ("defaults" or a calibration profile's name).
  std::string source = "defaults";

  const OpEfficiency& of(OpClass c) const { return by_class[static_cast<std::size_t>(c)]; }
  OpEfficiency& of(OpClass c) { return by_class[static_cast<std::size_t>(c)]; }
};

// The curve of `e` that `name` names, as models/data/default-efficiencies/curves.csv names them:
// "<op class>.flops" or "<op class>.bandwidth" (to_string(OpClass)), "host_gather_by_row_bytes",
// "host_copy_by_bytes" or "cpu_gather_by_row_bytes". Throws std::invalid_argument on any other name.
EfficiencyCurve& efficiency_curve(Efficiencies& e, std::string_view name);

// The defaults: models/data/default-efficiencies/, each number with its source, embedded at build
// time (docs/cost-model.md, "Default efficiencies").
Efficiencies default_efficiencies();

}  // namespace engramsim
