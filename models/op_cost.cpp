#include "models/op_cost.hpp"

#include <algorithm>

namespace engramsim {

const char* to_string(Bound b) { return kBoundNames.name(b); }

const char* to_string(CollectiveKind k) { return kCollectiveKindNames.name(k); }

HardwareRates::HardwareRates(const GpuSpec& gpu)
    : hbm_bw_(gpu.hbm_bandwidth.value()),
      hbm_eff_(gpu.hbm_efficiency),
      attn_decode_eff_(gpu.attention_decode_efficiency),
      gemm_bw_eff_(gpu.gemm_bandwidth_efficiency),
      gemm_overlap_(gpu.gemm_overlap),
      gemm_k_overhead_(gpu.gemm_k_overhead) {
  // A missing precision runs on the first rate the GPU lists along its chain: narrow to wide, and
  // FP16 at BF16's rate before FP32's (the tensor cores of these parts run FP16 and BF16 alike).
  struct Chain {
    Precision p;
    std::array<Precision, 4> then;
    std::size_t n;
  };
  constexpr std::array<Chain, 5> chains = {{
      {Precision::fp4, {Precision::fp8, Precision::bf16, Precision::fp16, Precision::fp32}, 4},
      {Precision::fp8, {Precision::bf16, Precision::fp16, Precision::fp32}, 3},
      {Precision::bf16, {Precision::fp16, Precision::fp32}, 2},
      {Precision::fp16, {Precision::bf16, Precision::fp32}, 2},
      {Precision::fp32, {}, 0},
  }};
  for (const Chain& c : chains) {
    const auto slot = static_cast<std::size_t>(c.p);
    effective_[slot] = c.p;
    peak_[slot] = 0.0;
    gemm_eff_[slot] = 1.0;
    for (std::size_t j = 0; j <= c.n; ++j) {
      const Precision q = j == 0 ? c.p : c.then[j - 1];
      auto it = gpu.dense_flops.find(q);
      if (it != gpu.dense_flops.end() && it->second.value() > 0.0) {
        peak_[slot] = it->second.value();
        effective_[slot] = q;
        const auto ge = gpu.gemm_efficiency.find(q);
        gemm_eff_[slot] = ge != gpu.gemm_efficiency.end() ? ge->second : 1.0;
        break;
      }
    }
  }
}

namespace {
// Whether a calibration profile measured the GEMM share at the precision `p` runs in.
bool gemm_measured(const HardwareRates& hw, const Efficiencies& eff, Precision p) {
  return eff.gemm_precision_scale[static_cast<std::size_t>(hw.effective_precision(p))].has_value();
}
}  // namespace

double gemm_share(const HardwareRates& hw, const Efficiencies& eff, Precision p) {
  const auto& measured = eff.gemm_precision_scale[static_cast<std::size_t>(hw.effective_precision(p))];
  return measured ? *measured : hw.gemm_efficiency(p);
}

double hbm_rate(const HardwareRates& hw, const Efficiencies& eff) {
  return eff.hbm_measured ? hw.hbm_bandwidth() : hw.hbm_bandwidth() * hw.hbm_efficiency();
}

double class_bandwidth_share(const HardwareRates& hw, const Efficiencies& eff, OpClass c, Precision p) {
  if (c == OpClass::grouped_gemm) return eff.moe.bandwidth[static_cast<std::size_t>(p)];
  if (c == OpClass::gemm) return gemm_measured(hw, eff, p) ? 1.0 : hw.gemm_bandwidth_efficiency();
  if (c != OpClass::attention_decode || eff.attention_decode_measured) return 1.0;
  return hw.attention_decode_efficiency();
}

double tensor_peak(const HardwareRates& hw, const Efficiencies& eff, Precision p, OpClass c) {
  const double peak = hw.peak_flops(p);
  if (c != OpClass::gemm && c != OpClass::grouped_gemm) return peak;
  const double engine = c == OpClass::grouped_gemm ? eff.moe.compute[static_cast<std::size_t>(p)] : 1.0;
  return peak * gemm_share(hw, eff, p) * engine;
}

double exposed_share(const HardwareRates& hw, const Efficiencies& eff, OpClass c, Precision p) {
  if (c != OpClass::gemm || gemm_measured(hw, eff, p)) return 0.0;
  return 1.0 - hw.gemm_overlap();
}

double k_depth_share(const HardwareRates& hw, const Efficiencies& eff, OpClass c, Precision p, double gemm_k) {
  const double k0 = hw.gemm_k_overhead();
  if (c != OpClass::gemm || !(k0 > 0.0) || !(gemm_k > 0.0) || gemm_measured(hw, eff, p)) return 1.0;
  return gemm_k / (gemm_k + k0);
}

double exposed_seconds(double math, double stream) {
  if (!(math > 0.0) || !(stream > 0.0)) return 0.0;
  return math <= stream ? math : stream * stream / math;
}

double op_floor_seconds(int kernels, double block_fp8_k_steps, const Efficiencies& eff) {
  return std::max(kernels * eff.kernel_min_duration.seconds(), block_fp8_k_steps * eff.block_fp8_gemm_k_step.seconds());
}

OpSeconds op_seconds(const OpWork& w, const HardwareRates& hw, const Efficiencies& eff, const CollectiveModel& net) {
  OpSeconds s;
  if (w.collective != CollectiveKind::none) {
    s.network =
        collective_seconds(w.collective, w.collective_bytes.value(), w.scale_up_bytes.value(), w.collective_ranks, net);
    s.total = s.network;
    s.bound = Bound::network;
    return s;
  }
  const OpEfficiency& e = eff.of(w.op_class);
  const double f = w.flops.value();
  const double bytes = w.hbm_bytes.value();
  // An op with no work this step (e.g. prefill attention in a decode-only step) is not launched.
  if (!(f > 0.0) && !(bytes > 0.0)) return s;
  // The FLOP rate before the class's curve: the peak with its GEMM shares, at the GEMM's depth.
  const double peak = f > 0.0 ? tensor_peak(hw, eff, w.precision, w.op_class) *
                                    k_depth_share(hw, eff, w.op_class, w.precision, w.gemm_k)
                              : 0.0;
  if (f > 0.0) {
    if (!(peak > 0.0))
      throw std::invalid_argument(std::string("the GPU lists no dense_flops rate for ") + to_string(w.precision) +
                                  " or any wider precision (a preset must list bf16)");
    s.compute = f / (peak * e.flops.at(w.flops_key));
  }
  if (bytes > 0.0) {
    const double key = w.bw_key > 0.0 ? w.bw_key : bytes;
    s.memory =
        bytes / (hbm_rate(hw, eff) * class_bandwidth_share(hw, eff, w.op_class, w.precision) * e.bandwidth.at(key));
  }
  s.overhead = w.kernels * eff.kernel_overhead.seconds();
  // What a GEMM's kernels fail to overlap: exposed_seconds() of its math at the kernels' full rate
  // (below the curve's top the FLOP term also stands for small-M latency, which overlaps) and its
  // weight stream (the activations' traffic is tiled and overlaps).
  const double exposed = exposed_share(hw, eff, w.op_class, w.precision);
  const double math = exposed > 0.0 && f > 0.0 ? f / (peak * e.flops.top()) : 0.0;
  const double stream = bytes > 0.0 ? s.memory * w.weight_bytes.value() / bytes : 0.0;
  const double work = std::max(s.compute, s.memory) + exposed * exposed_seconds(math, stream);
  const double floor = op_floor_seconds(w.kernels, w.block_fp8_k_steps, eff);
  s.total = std::max(work, floor) + s.overhead;
  // Overhead-bound: the kernels are too small to reach their own minimum duration, or the launch
  // gaps outweigh the work.
  if (work <= floor || s.overhead > work)
    s.bound = Bound::overhead;
  else
    s.bound = s.compute >= s.memory ? Bound::compute : Bound::memory;
  return s;
}

OpCost op_cost(const OpWork& w, const HardwareRates& hw, const Efficiencies& eff, const CollectiveModel& net) {
  const OpSeconds s = op_seconds(w, hw, eff, net);
  OpCost c;
  c.time = Time::from_seconds(s.total);
  c.bound = s.bound;
  c.compute = Time::from_seconds(s.compute);
  c.memory = Time::from_seconds(s.memory);
  c.network = Time::from_seconds(s.network);
  c.overhead = Time::from_seconds(s.overhead);
  return c;
}

}  // namespace engramsim
