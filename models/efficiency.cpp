#include "models/efficiency.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace engramsim {
namespace {

// log2 of a positive normal double without libm, accurate to ~1e-15: the exponent from the bits,
// the mantissa against a 256-entry table of cell midpoints and a four-term series of log2(1 + r),
// |r| < 2^-9. The step model evaluates two curves per op per step; this keeps them cheap. The table
// is immutable and built once.
struct Log2Table {
  std::array<double, 256> inv_mid{};
  std::array<double, 256> log2_mid{};
  Log2Table() {
    for (int i = 0; i < 256; ++i) {
      const double mid = 1.0 + (i + 0.5) / 256.0;
      inv_mid[static_cast<std::size_t>(i)] = 1.0 / mid;
      log2_mid[static_cast<std::size_t>(i)] = std::log2(mid);
    }
  }
};

double fast_log2(double x) {
  static const Log2Table table;
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
  const auto cell = static_cast<std::size_t>(mantissa >> 44);
  const double m = std::bit_cast<double>(mantissa | 0x3ff0000000000000ULL);  // in [1, 2)
  const double r = m * table.inv_mid[cell] - 1.0;
  constexpr double inv_ln2 = 1.4426950408889634;
  const double series = r * (1.0 - r * (0.5 - r * (1.0 / 3.0 - r * 0.25)));
  return exponent + table.log2_mid[cell] + series * inv_ln2;
}

}  // namespace

EfficiencyCurve::EfficiencyCurve(double constant) : EfficiencyCurve({{1.0, constant}}) {}

EfficiencyCurve::EfficiencyCurve(std::vector<std::pair<double, double>> points)
    : points_(std::move(points)) {
  if (points_.empty()) throw std::invalid_argument("efficiency curve: no points");
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const auto [key, eff] = points_[i];
    if (!(key >= std::numeric_limits<double>::min()) || !std::isfinite(key))
      throw std::invalid_argument("efficiency curve: keys must be positive and finite");
    if (!(eff > 0.0) || eff > 1.0)
      throw std::invalid_argument("efficiency curve: efficiencies must be in (0, 1]");
    if (i > 0 && !(key > points_[i - 1].first))
      throw std::invalid_argument("efficiency curve: keys must be strictly increasing");
    log2_keys_.push_back(fast_log2(key));
  }
}

double EfficiencyCurve::at(double key) const {
  // Fast paths for constants and clamped ends keep the per-step evaluation cheap.
  if (points_.size() == 1 || !(key > points_.front().first)) return points_.front().second;
  if (key >= points_.back().first) return points_.back().second;
  // Curves hold a handful of points; a linear scan beats a binary search at this size.
  std::size_t hi = 1;
  while (points_[hi].first < key) ++hi;
  const double x = fast_log2(key);
  const double x0 = log2_keys_[hi - 1];
  const double x1 = log2_keys_[hi];
  const double y0 = points_[hi - 1].second;
  const double y1 = points_[hi].second;
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::gemm: return "gemm";
    case OpClass::grouped_gemm: return "grouped_gemm";
    case OpClass::attention_prefill: return "attention_prefill";
    case OpClass::attention_decode: return "attention_decode";
    case OpClass::indexer: return "indexer";
    case OpClass::elementwise: return "elementwise";
    case OpClass::embedding: return "embedding";
    case OpClass::engram_gather: return "engram_gather";
  }
  return "?";
}

// Every number below is explained, with its source or the reasoning behind an estimate, in
// docs/cost-model.md ("Default efficiencies"). Keep the two in step.
Efficiencies default_efficiencies() {
  constexpr double KiB = 1024.0;
  constexpr double MiB = 1024.0 * 1024.0;
  Efficiencies e;
  // Tensor-core GEMM: large shapes reach ~0.75-0.78 of dense peak (DeepGEMM and TileLang FP8 GEMM
  // results on H800); a GEMM with M rows below the 64-row MMA tile wastes the rest of the tile.
  e.of(OpClass::gemm) = {
      EfficiencyCurve({{1, 0.012}, {16, 0.18}, {64, 0.5}, {256, 0.65}, {1024, 0.72}, {4096, 0.76}}),
      EfficiencyCurve({{256 * KiB, 0.3}, {2 * MiB, 0.6}, {16 * MiB, 0.8}, {128 * MiB, 0.85}})};
  // Grouped expert GEMM: keyed by tokens per active expert; a few points below the dense GEMM
  // (per-expert tiles, ragged groups).
  e.of(OpClass::grouped_gemm) = {
      EfficiencyCurve({{1, 0.01}, {16, 0.15}, {64, 0.45}, {256, 0.6}, {1024, 0.68}}),
      EfficiencyCurve({{256 * KiB, 0.3}, {2 * MiB, 0.55}, {16 * MiB, 0.75}, {128 * MiB, 0.8}})};
  // Flash attention forward: FlashAttention-3 reports up to 75% of BF16 peak on H100 for long
  // sequences; FlashMLA's compute-bound kernel 580-660 TFLOPS on H800 (0.59-0.67).
  e.of(OpClass::attention_prefill) = {
      EfficiencyCurve({{64, 0.2}, {256, 0.4}, {1024, 0.55}, {4096, 0.65}, {16384, 0.7}}),
      EfficiencyCurve({{1 * MiB, 0.5}, {16 * MiB, 0.8}})};
  // Paged decode attention: FlashMLA reaches 3000 GB/s of 3.35 TB/s (0.9) memory-bound; small KV
  // reads per step pay ramp-up. Compute side keyed by query rows per KV head.
  e.of(OpClass::attention_decode) = {
      EfficiencyCurve({{1, 0.05}, {16, 0.25}, {64, 0.5}, {128, 0.6}}),
      EfficiencyCurve({{1 * MiB, 0.4}, {8 * MiB, 0.7}, {64 * MiB, 0.85}})};
  // Indexer: FP8 dot products of a few query heads against all compressed keys, then top-k.
  e.of(OpClass::indexer) = {
      EfficiencyCurve({{1, 0.05}, {64, 0.3}, {1024, 0.5}}),
      EfficiencyCurve({{1 * MiB, 0.4}, {8 * MiB, 0.7}, {64 * MiB, 0.8}})};
  // Elementwise kernels run on CUDA cores: FP32 non-tensor peak is ~7% of the BF16 tensor peak on
  // H100 (67 of 989 TFLOPS), so their FLOPs are charged at 0.06 of the tensor peak.
  e.of(OpClass::elementwise) = {
      EfficiencyCurve(0.06),
      EfficiencyCurve({{64 * KiB, 0.2}, {1 * MiB, 0.5}, {16 * MiB, 0.8}, {128 * MiB, 0.85}})};
  e.of(OpClass::embedding) = {
      EfficiencyCurve(0.06),
      EfficiencyCurve({{64 * KiB, 0.15}, {1 * MiB, 0.4}, {16 * MiB, 0.6}})};
  // HBM row gather keyed by row size: 32-byte sectors and 64-byte bursts make short random rows
  // fetch more than they use (estimate).
  e.of(OpClass::engram_gather) = {
      EfficiencyCurve(0.06),
      EfficiencyCurve({{32, 0.1}, {64, 0.2}, {128, 0.35}, {256, 0.5}, {512, 0.6}, {2048, 0.75}})};
  // Zero-copy UVA reads over PCIe: every read request returns completions with ~24 B of TLP
  // overhead and short rows straddle 32-byte sectors; EMOGI (VLDB 2021) found 128-byte aligned
  // requests far more efficient than 32-byte ones (shape from there, values estimated).
  e.host_gather_by_row_bytes = EfficiencyCurve(
      {{32, 0.15}, {64, 0.28}, {128, 0.5}, {256, 0.6}, {512, 0.7}, {1024, 0.78}, {4096, 0.82}});
  // Bulk DMA: ~55 of 64 GB/s per direction on PCIe Gen5 x16 for large copies (0.85); small copies
  // are dominated by setup (the fixed latency is charged separately).
  e.host_copy_by_bytes =
      EfficiencyCurve({{4 * KiB, 0.05}, {64 * KiB, 0.35}, {1 * MiB, 0.75}, {16 * MiB, 0.85}});
  // CPU threads gathering random rows from DRAM (estimate; calibrate with `engramsim calibrate`).
  e.cpu_gather_by_row_bytes = EfficiencyCurve({{64, 0.1}, {256, 0.25}, {1024, 0.4}, {4096, 0.5}});
  e.kernel_overhead = Time::ns(1500);
  // Vidur's H100 profiles at one token: the elementwise operators (embedding, both RMSNorms, RoPE,
  // activation, residual add; TP1 and TP8 rows) take 1-15 us each, median 3 us (docs/cost-model.md).
  e.kernel_min_duration = Time::ns(3000);
  e.source = "defaults";
  return e;
}

}  // namespace engramsim
