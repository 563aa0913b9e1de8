// Efficiency curves and the roofline op time, against hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "models/efficiency.hpp"
#include "models/op_cost.hpp"

namespace engramsim {
namespace {

GpuSpec toy_gpu() {
  GpuSpec g;
  g.name = "toy";
  g.hbm_bandwidth = Bandwidth(1e12);  // 1 TB/s
  g.dense_flops[Precision::bf16] = FlopRate(100e12);
  g.dense_flops[Precision::fp8] = FlopRate(200e12);
  g.scale_up_bandwidth = Bandwidth::gb_per_s(900);
  return g;
}

Efficiencies flat(double flops_eff, double bw_eff, Time overhead) {
  Efficiencies e = default_efficiencies();
  for (auto& c : e.by_class) c = {EfficiencyCurve(flops_eff), EfficiencyCurve(bw_eff)};
  e.kernel_overhead = overhead;
  e.kernel_min_duration = Time::ns(0);
  return e;
}

TEST(EfficiencyCurve, InterpolatesInLog2AndClamps) {
  const EfficiencyCurve c({{16, 0.2}, {256, 0.6}});
  EXPECT_DOUBLE_EQ(c.at(1), 0.2);  // clamped below
  EXPECT_DOUBLE_EQ(c.at(16), 0.2);
  // 64 is halfway between 16 and 256 in log2 (4 -> 6 -> 8): 0.2 + 0.5 x 0.4 = 0.4.
  EXPECT_NEAR(c.at(64), 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(c.at(256), 0.6);
  EXPECT_DOUBLE_EQ(c.at(1e9), 0.6);  // clamped above
  EXPECT_DOUBLE_EQ(EfficiencyCurve(0.3).at(12345), 0.3);
}

TEST(EfficiencyCurve, RejectsBadPoints) {
  using P = std::vector<std::pair<double, double>>;
  EXPECT_THROW(EfficiencyCurve(P{}), std::invalid_argument);
  EXPECT_THROW(EfficiencyCurve(P{{0, 0.5}}), std::invalid_argument);
  EXPECT_THROW(EfficiencyCurve(P{{1, 1.5}}), std::invalid_argument);
  EXPECT_THROW(EfficiencyCurve(P{{1, 0.0}}), std::invalid_argument);
  EXPECT_THROW(EfficiencyCurve(P{{4, 0.5}, {2, 0.6}}), std::invalid_argument);
}

TEST(EfficiencyDefaults, AreFractionsAndGrowWithShape) {
  const Efficiencies e = default_efficiencies();
  for (const auto& c : e.by_class) {
    for (const auto& [k, v] : c.flops.points()) EXPECT_TRUE(v > 0 && v <= 1) << k;
    for (const auto& [k, v] : c.bandwidth.points()) EXPECT_TRUE(v > 0 && v <= 1) << k;
  }
  // Large GEMMs run closer to peak than skinny ones; big transfers closer than small ones.
  EXPECT_LT(e.of(OpClass::gemm).flops.at(8), e.of(OpClass::gemm).flops.at(4096));
  EXPECT_LT(e.host_gather_by_row_bytes.at(64), e.host_gather_by_row_bytes.at(1024));
  EXPECT_LT(e.host_copy_by_bytes.at(4096), e.host_copy_by_bytes.at(64e6));
}

// 64 MB read by one bf16 kernel of class `c`, no FLOPs: bound by bandwidth alone.
OpWork memory_op(OpClass c) {
  OpWork w;
  w.name = "x";
  w.op_class = c;
  w.precision = Precision::bf16;
  w.hbm_bytes = Bytes(64e6);
  w.kernels = 1;
  return w;
}

TEST(HardwareRates, FallsBackToNextWiderPrecision) {
  const HardwareRates hw(toy_gpu());
  EXPECT_DOUBLE_EQ(hw.peak_flops(Precision::fp8), 200e12);
  // No fp4 on this GPU: runs at the fp8 rate.
  EXPECT_DOUBLE_EQ(hw.peak_flops(Precision::fp4), 200e12);
  EXPECT_EQ(hw.effective_precision(Precision::fp4), Precision::fp8);
  // No fp16 rate: fp16 runs at bf16's (the tensor cores run both at one rate), not for free.
  EXPECT_DOUBLE_EQ(hw.peak_flops(Precision::fp16), 100e12);
  EXPECT_EQ(hw.effective_precision(Precision::fp16), Precision::bf16);
  // No fp32 rate and nothing wider: none (the loaders require bf16, which FP32 work runs at).
  EXPECT_DOUBLE_EQ(hw.peak_flops(Precision::fp32), 0.0);
}

TEST(OpCost, MemoryBoundGemm) {
  // Compute: 2 x 64 tokens x 4096 x 4096 = 2.147e9 FLOP at 100 TFLOPS x 0.5 = 42.9 us.
  // Memory: 64 MB at 1 TB/s x 0.8 = 80 us. Overhead: 2 kernels x 2 us = 4 us.
  // Time = max(42.9, 80) + 4 = 84 us, memory-bound.
  const HardwareRates hw(toy_gpu());
  const Efficiencies eff = flat(0.5, 0.8, Time::us(2));
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  OpWork w;
  w.name = "x";
  w.op_class = OpClass::gemm;
  w.precision = Precision::bf16;
  w.flops = Flops(2.0 * 64 * 4096 * 4096);
  w.hbm_bytes = Bytes(64e6);
  w.kernels = 2;
  const OpCost c = op_cost(w, hw, eff, net);
  EXPECT_EQ(c.bound, Bound::memory);
  EXPECT_NEAR(c.memory.seconds(), 64e6 / 0.8e12, 1e-9);
  EXPECT_NEAR(c.compute.seconds(), 2.0 * 64 * 4096 * 4096 / 50e12, 1e-9);
  EXPECT_NEAR(c.time.seconds(), 80e-6 + 4e-6, 1e-9);
}

TEST(OpCost, HbmEfficiencyScalesTheBandwidthUnlessMeasured) {
  // The preset's share multiplies the datasheet bandwidth: 64 MB at 1 TB/s x 0.88 x 0.8 = 90.9 us.
  GpuSpec gpu = toy_gpu();
  gpu.hbm_efficiency = 0.88;
  const HardwareRates hw(gpu);
  Efficiencies eff = flat(0.5, 0.8, Time::ns(0));
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  const OpWork w = memory_op(OpClass::elementwise);
  EXPECT_DOUBLE_EQ(hbm_rate(hw, eff), 0.88e12);
  EXPECT_NEAR(op_seconds(w, hw, eff, net).memory, 64e6 / (0.88e12 * 0.8), 1e-12);
  // Curves a calibration profile measured on the GPU already hold its share.
  eff.hbm_measured = true;
  EXPECT_DOUBLE_EQ(hbm_rate(hw, eff), 1e12);
  EXPECT_NEAR(op_seconds(w, hw, eff, net).memory, 64e6 / 0.8e12, 1e-12);
}

TEST(OpCost, ExposedSecondsIsTheMathUpToTheBalancePointThenFades) {
  EXPECT_DOUBLE_EQ(exposed_seconds(0.0, 5.0), 0.0);
  EXPECT_DOUBLE_EQ(exposed_seconds(5.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(exposed_seconds(2.0, 5.0), 2.0);   // waits on every weight tile: the math adds
  EXPECT_DOUBLE_EQ(exposed_seconds(5.0, 5.0), 5.0);   // continuous at the balance point
  EXPECT_DOUBLE_EQ(exposed_seconds(10.0, 5.0), 2.5);  // more math per tile than load time hides loads
  EXPECT_LT(exposed_seconds(1000.0, 5.0), 0.03);
}

// A dense FP8 GEMM of 12.8 TFLOP: 128 us at 0.5 x the toy GPU's 200 TF/s, with `bytes` of traffic,
// `weights` of them its weights.
OpWork dense_fp8_gemm(Bytes bytes, Bytes weights) {
  OpWork w;
  w.op_class = OpClass::gemm;
  w.precision = Precision::fp8;
  w.flops = Flops(0.5 * 200e12 * 128e-6);
  w.hbm_bytes = bytes;
  w.weight_bytes = weights;
  w.kernels = 1;
  return w;
}

TEST(OpCost, GemmOverlapAndStreamShareApplyToDenseGemmsUnlessMeasured) {
  // A dense FP8 GEMM of 64 MB of weights (of 80 MB of traffic) and 12.8 TFLOP: at 1 TB/s x 0.8 the
  // traffic takes 100 us; the math 0.5 x 200 TF/s -> 128 us; at the flat curve's top (0.5) the same.
  GpuSpec gpu = toy_gpu();
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  Efficiencies eff = flat(0.5, 0.8, Time::ns(0));
  const OpWork w = dense_fp8_gemm(Bytes(80e6), Bytes(64e6));
  EXPECT_NEAR(op_seconds(w, HardwareRates(gpu), eff, net).total, 128e-6, 1e-12);  // the presets' default
  gpu.gemm_bandwidth_efficiency = 0.5;  // traffic 200 us, of which the weights 160 us
  EXPECT_NEAR(op_seconds(w, HardwareRates(gpu), eff, net).total, 200e-6, 1e-12);
  gpu.gemm_overlap = 0.0;  // + exposed_seconds(128, 160) = 128 us
  EXPECT_NEAR(op_seconds(w, HardwareRates(gpu), eff, net).total, 328e-6, 1e-12);
  gpu.gemm_overlap = 0.25;  // + 0.75 x 128 us
  EXPECT_NEAR(op_seconds(w, HardwareRates(gpu), eff, net).total, 296e-6, 1e-12);
  const HardwareRates hw(gpu);
  EXPECT_DOUBLE_EQ(exposed_share(hw, eff, OpClass::gemm, Precision::fp8), 0.75);
  EXPECT_DOUBLE_EQ(class_bandwidth_share(hw, eff, OpClass::gemm, Precision::fp8), 0.5);
  // Other classes keep full overlap and the plain bandwidth.
  for (OpClass c : {OpClass::grouped_gemm, OpClass::attention_decode, OpClass::elementwise}) {
    EXPECT_DOUBLE_EQ(exposed_share(hw, eff, c, Precision::fp8), 0.0) << to_string(c);
  }
  EXPECT_DOUBLE_EQ(class_bandwidth_share(hw, eff, OpClass::elementwise, Precision::fp8), 1.0);
  // A calibration profile that measured the GEMM share at FP8 already holds both.
  eff.gemm_precision_scale[static_cast<std::size_t>(Precision::fp8)] = 1.0;
  EXPECT_DOUBLE_EQ(exposed_share(hw, eff, OpClass::gemm, Precision::fp8), 0.0);
  EXPECT_DOUBLE_EQ(class_bandwidth_share(hw, eff, OpClass::gemm, Precision::fp8), 1.0);
  EXPECT_NEAR(op_seconds(w, hw, eff, net).total, 128e-6, 1e-12);
}

TEST(OpCost, GemmKOverheadSlowsTheMathOfShallowDenseGemmsUnlessMeasured) {
  // A compute-bound dense FP8 GEMM: 0.5 x 200 TF/s -> 128 us at any depth without the preset key; with
  // 1,024 elements of K of fixed work per tile, K = 1,024 halves the rate (256 us), K = 3,072 keeps 3/4.
  GpuSpec gpu = toy_gpu();
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  Efficiencies eff = flat(0.5, 0.8, Time::ns(0));
  OpWork w = dense_fp8_gemm(Bytes(1e6), Bytes(1e6));
  w.gemm_k = 1024;
  EXPECT_NEAR(op_seconds(w, HardwareRates(gpu), eff, net).total, 128e-6, 1e-12);
  gpu.gemm_k_overhead = 1024;
  const HardwareRates hw(gpu);
  EXPECT_NEAR(op_seconds(w, hw, eff, net).total, 256e-6, 1e-12);
  w.gemm_k = 3072;
  EXPECT_NEAR(op_seconds(w, hw, eff, net).total, 128e-6 / 0.75, 1e-12);
  EXPECT_DOUBLE_EQ(k_depth_share(hw, eff, OpClass::gemm, Precision::fp8, 3072), 0.75);
  // Unknown depth, other classes, and a measured GEMM share: no change.
  EXPECT_DOUBLE_EQ(k_depth_share(hw, eff, OpClass::gemm, Precision::fp8, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(k_depth_share(hw, eff, OpClass::grouped_gemm, Precision::fp8, 3072), 1.0);
  eff.gemm_precision_scale[static_cast<std::size_t>(Precision::fp8)] = 1.0;
  EXPECT_DOUBLE_EQ(k_depth_share(hw, eff, OpClass::gemm, Precision::fp8, 3072), 1.0);
  EXPECT_NEAR(op_seconds(w, hw, eff, net).total, 128e-6, 1e-12);
}

TEST(OpCost, DecodeAttentionShareScalesOnlyDecodeAttentionUnlessMeasured) {
  // 64 MB of KV at 1 TB/s x 0.5 x 0.8 = 160 us; the same bytes in any other class stay at 80 us.
  GpuSpec gpu = toy_gpu();
  gpu.attention_decode_efficiency = 0.5;
  const HardwareRates hw(gpu);
  Efficiencies eff = flat(0.5, 0.8, Time::ns(0));
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  OpWork w = memory_op(OpClass::attention_decode);
  EXPECT_DOUBLE_EQ(class_bandwidth_share(hw, eff, OpClass::attention_decode, Precision::bf16), 0.5);
  EXPECT_NEAR(op_seconds(w, hw, eff, net).memory, 64e6 / (1e12 * 0.5 * 0.8), 1e-12);
  for (OpClass c : {OpClass::gemm, OpClass::attention_prefill, OpClass::elementwise, OpClass::engram_gather}) {
    EXPECT_DOUBLE_EQ(class_bandwidth_share(hw, eff, c, Precision::bf16), 1.0) << to_string(c);
    w.op_class = c;
    EXPECT_NEAR(op_seconds(w, hw, eff, net).memory, 64e6 / 0.8e12, 1e-12) << to_string(c);
  }
  // A decode-attention curve a calibration profile measured on the GPU already holds its share.
  eff.attention_decode_measured = true;
  w.op_class = OpClass::attention_decode;
  EXPECT_DOUBLE_EQ(class_bandwidth_share(hw, eff, OpClass::attention_decode, Precision::bf16), 1.0);
  EXPECT_NEAR(op_seconds(w, hw, eff, net).memory, 64e6 / 0.8e12, 1e-12);
}

TEST(OpCost, BlockFp8KStepsFloorAnOpOnlyWithTheEngineStepTime) {
  // A 1 MB block-scaled FP8 GEMM that walks 56 K steps: 1.25 us of bytes at 1 TB/s x 0.8 leave it at
  // the 4 us kernel floor; at 2 us a step the walk sets it (112 us + the launch gap).
  const HardwareRates hw(toy_gpu());
  Efficiencies eff = flat(0.5, 0.8, Time::ns(500));
  eff.kernel_min_duration = Time::us(4);
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  OpWork w = memory_op(OpClass::gemm);
  w.hbm_bytes = Bytes(1e6);
  w.block_fp8_k_steps = 56;
  const double gap = eff.kernel_overhead.seconds();
  EXPECT_NEAR(op_seconds(w, hw, eff, net).total, 4e-6 + gap, 1e-12);
  eff.block_fp8_gemm_k_step = Time::us(2);
  EXPECT_DOUBLE_EQ(op_floor_seconds(1, 56, eff), 112e-6);
  EXPECT_DOUBLE_EQ(op_floor_seconds(1, 0, eff), 4e-6);
  const OpCost c = op_cost(w, hw, eff, net);
  EXPECT_NEAR(c.time.seconds(), 112e-6 + gap, 1e-12);
  EXPECT_EQ(c.bound, Bound::overhead);
  // An op with no K steps (every op but block-scaled FP8 dense GEMMs) keeps the kernel floor.
  w.block_fp8_k_steps = 0;
  EXPECT_NEAR(op_seconds(w, hw, eff, net).total, 4e-6 + gap, 1e-12);
}

TEST(OpCost, ComputeBoundUsesPrecisionPeak) {
  // 1e12 FLOP in fp8 at 200 TFLOPS x 0.5 = 10 ms; 1 MB at 0.8 TB/s = 1.25 us.
  const HardwareRates hw(toy_gpu());
  const Efficiencies eff = flat(0.5, 0.8, Time::ns(0));
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  OpWork w;
  w.precision = Precision::fp8;
  w.flops = Flops(1e12);
  w.hbm_bytes = Bytes(1e6);
  const OpCost c = op_cost(w, hw, eff, net);
  EXPECT_EQ(c.bound, Bound::compute);
  EXPECT_NEAR(c.time.seconds(), 1e12 / 100e12, 1e-9);
}

TEST(OpCost, OverheadBoundTinyOp) {
  // 1 kB at 1 TB/s = 1 ns < 3 us launch: overhead-bound.
  const HardwareRates hw(toy_gpu());
  const Efficiencies eff = flat(1.0, 1.0, Time::us(3));
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  OpWork w;
  w.hbm_bytes = Bytes(1e3);
  const OpCost c = op_cost(w, hw, eff, net);
  EXPECT_EQ(c.bound, Bound::overhead);
  EXPECT_NEAR(c.time.seconds(), 3e-6 + 1e-9, 1e-10);
}

TEST(OpCost, MinimumKernelDurationFloorsTinyOpsOnly) {
  // Two kernels of at least 3 us each, then a 1.5 us gap each: a 1 kB op takes 2 x 3 + 2 x 1.5 us.
  const HardwareRates hw(toy_gpu());
  Efficiencies eff = flat(1.0, 1.0, Time::ns(1500));
  eff.kernel_min_duration = Time::us(3);
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  OpWork w;
  w.kernels = 2;
  w.hbm_bytes = Bytes(1e3);
  const OpCost tiny = op_cost(w, hw, eff, net);
  EXPECT_EQ(tiny.bound, Bound::overhead);
  EXPECT_NEAR(tiny.time.seconds(), 6e-6 + 3e-6, 1e-12);
  // 100 MB at 1 TB/s = 100 us: the floor does not apply, only the gaps add.
  w.hbm_bytes = Bytes(1e8);
  const OpCost big = op_cost(w, hw, eff, net);
  EXPECT_EQ(big.bound, Bound::memory);
  EXPECT_NEAR(big.time.seconds(), 100e-6 + 3e-6, 1e-12);
}

TEST(OpCost, EfficiencyKeyedByShape) {
  // Flops key 16 vs 4096 with the default GEMM curve: 0.18 vs 0.76 of peak.
  const HardwareRates hw(toy_gpu());
  Efficiencies eff = default_efficiencies();
  eff.kernel_overhead = Time::ns(0);
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  OpWork w;
  w.flops = Flops(1e12);
  w.flops_key = 16;
  EXPECT_NEAR(op_cost(w, hw, eff, net).time.seconds(), 1e12 / (100e12 * 0.18), 1e-9);
  w.flops_key = 4096;
  EXPECT_NEAR(op_cost(w, hw, eff, net).time.seconds(), 1e12 / (100e12 * 0.76), 1e-9);
}

TEST(OpCost, CollectiveIsNetworkBound) {
  const HardwareRates hw(toy_gpu());
  const Efficiencies eff = default_efficiencies();
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  OpWork w;
  w.collective = CollectiveKind::all_reduce;
  w.collective_bytes = Bytes(1048576.0);
  w.collective_ranks = 2;
  const OpCost c = op_cost(w, hw, eff, net);
  EXPECT_EQ(c.bound, Bound::network);
  EXPECT_NEAR(c.time.seconds(), net.all_reduce_seconds(1048576.0, 2), 1e-9);
}

}  // namespace
}  // namespace engramsim
