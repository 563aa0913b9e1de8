// Applying a calibration profile's measured sections to the step model's defaults.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.hpp"
#include "models/calibration_apply.hpp"
#include "models/roofline_step_model.hpp"

namespace engramsim {
namespace {

CalibrationProfile h100_profile() {
  CalibrationProfile p;
  p.name = "test-h100";
  p.provenance.gpu = "NVIDIA H100 80GB HBM3";
  GemmSection g;
  // Two shapes at M = 16 and one at M = 1024, BF16 (peak 989 TFLOPS on h100-sxm).
  g.points.push_back({Precision::bf16, 16, 4096, 4096, Time::us(10), FlopRate::tflops(98.9)});
  g.points.push_back({Precision::bf16, 16, 8192, 8192, Time::us(20), FlopRate::tflops(197.8)});
  g.points.push_back({Precision::bf16, 1024, 8192, 8192, Time::us(200), FlopRate::tflops(692.3)});
  p.gemm = g;
  GpuGatherSection uva;
  GpuGatherCurve c;
  c.row_size = Bytes(256);
  c.distribution = IndexDistribution::uniform;
  c.fit.alpha = Time::us(5);
  c.fit.beta = Bandwidth::gb_per_s(25.6);  // 0.4 of the 64 GB/s link
  uva.curves.push_back(c);
  p.uva_gather = uva;
  CollectivesSection coll;
  coll.gpus = 8;
  coll.all_reduce_fit.alpha = Time::us(12);
  coll.all_reduce_fit.beta = Bandwidth::gb_per_s(250);
  coll.p2p_fit.alpha = Time::us(5);
  coll.p2p_fit.beta = Bandwidth::gb_per_s(300);
  p.collectives = coll;
  SsdRandomReadSection ssd;
  ssd.points.push_back({1, 12000.0, {Time::us(80), Time::us(90), Time::us(120)}});
  ssd.points.push_back({128, 900000.0, {Time::us(140), Time::us(200), Time::us(400)}});
  p.ssd_random_read = ssd;
  p.not_measured["hbm"] = "no GPU timer";
  return p;
}

TEST(CalibrationApply, ReplacesMeasuredSectionsOnly) {
  const NodeSpec node = load_node("hgx-h100");
  RooflineOptions o;
  const Efficiencies defaults = o.efficiencies;
  const CalibrationReport r = apply_calibration_profile(h100_profile(), node, o);
  // GEMM: median of 0.1 and 0.2 at M = 16 -> the upper middle element 0.2; 0.7 at M = 1024.
  EXPECT_NEAR(o.efficiencies.of(OpClass::gemm).flops.at(16), 0.2, 1e-9);
  EXPECT_NEAR(o.efficiencies.of(OpClass::gemm).flops.at(1024), 0.7, 1e-9);
  // UVA gather at 256 B rows: 25.6 / 64 GB/s = 0.4 (a single point: constant).
  EXPECT_NEAR(o.efficiencies.host_gather_by_row_bytes.at(256), 0.4, 1e-9);
  EXPECT_NEAR(o.efficiencies.host_gather_by_row_bytes.at(64), 0.4, 1e-9);
  // Grouped GEMM: only the expert-sized shape (4096 x 4096, under 48 M elements) counts: 0.1 at
  // 16 rows, a single point, so constant.
  EXPECT_NEAR(o.efficiencies.of(OpClass::grouped_gemm).flops.at(16), 0.1, 1e-9);
  EXPECT_NEAR(o.efficiencies.of(OpClass::grouped_gemm).flops.at(1024), 0.1, 1e-9);
  // Untouched: prefill attention and bulk copies keep their defaults.
  EXPECT_DOUBLE_EQ(o.efficiencies.of(OpClass::attention_prefill).flops.at(1024),
                   defaults.of(OpClass::attention_prefill).flops.at(1024));
  EXPECT_DOUBLE_EQ(o.efficiencies.host_copy_by_bytes.at(1e6), defaults.host_copy_by_bytes.at(1e6));
  // Collectives: the 8-GPU fit is replaced. H100's 900 GB/s is the reference fabric, so it is stored
  // as measured: 12 us + S / 250 GB/s.
  const auto& fits = o.collectives.all_reduce;
  auto it = std::find_if(fits.begin(), fits.end(), [](const AllReduceFit& f) { return f.ranks == 8; });
  ASSERT_NE(it, fits.end());
  EXPECT_NEAR(it->model.alpha_s, 12e-6, 1e-12);
  EXPECT_NEAR(it->model.beta().gb_per_s(), 250.0, 1e-6);
  // SSD: best IOPS and the QD1 median latency.
  EXPECT_DOUBLE_EQ(o.engram.ssd_iops_per_drive, 900000.0);
  EXPECT_EQ(o.engram.ssd_read_latency, Time::us(80));
  EXPECT_EQ(o.efficiencies.source, "calibration profile test-h100");
  // BF16's share of that curve: 0.1/0.2, 0.2/0.2 at M 16 and 0.7/0.7 at M 1024, median 1.
  ASSERT_TRUE(o.efficiencies.gemm_precision_scale[static_cast<std::size_t>(Precision::bf16)].has_value());
  EXPECT_NEAR(*o.efficiencies.gemm_precision_scale[static_cast<std::size_t>(Precision::bf16)], 1.0, 1e-9);
  EXPECT_FALSE(o.efficiencies.gemm_precision_scale[static_cast<std::size_t>(Precision::fp8)].has_value());
  // gemm, its bf16 share, grouped_gemm, uva_gather, all-reduce, point-to-point, ssd
  EXPECT_EQ(r.applied.size(), 7u);
  ASSERT_EQ(r.kept.size(), 1u);
  EXPECT_NE(r.kept[0].find("no GPU timer"), std::string::npos);
}

TEST(CalibrationApply, GemmSharePerMeasuredPrecisionReplacesThePresets) {
  // B200: the preset says BF16 0.83, FP8 0.73, FP4 0.53 of the curves. A profile that measured BF16
  // at 0.6 and FP8 at 0.3 of peak at M 1024 sets the curve to their median and each precision's
  // share of it; FP4, not measured, keeps the preset's share.
  const NodeSpec node = load_node("hgx-b200");
  CalibrationProfile p;
  p.name = "b200";
  p.provenance.gpu = "NVIDIA B200";
  GemmSection g;
  g.points.push_back({Precision::bf16, 1024, 8192, 8192, Time::us(100), FlopRate::tflops(0.6 * 2250)});
  g.points.push_back({Precision::fp8, 1024, 8192, 8192, Time::us(100), FlopRate::tflops(0.3 * 4500)});
  p.gemm = g;
  RooflineOptions o;
  apply_calibration_profile(p, node, o);
  const double curve = o.efficiencies.of(OpClass::gemm).flops.at(1024);
  EXPECT_NEAR(curve, 0.6, 1e-9);  // the upper middle of {0.3, 0.6}
  const HardwareRates hw(node.gpu);
  EXPECT_NEAR(tensor_peak(hw, o.efficiencies, Precision::bf16, OpClass::gemm) * curve, 0.6 * 2250e12, 1e3);
  EXPECT_NEAR(tensor_peak(hw, o.efficiencies, Precision::fp8, OpClass::gemm) * curve, 0.3 * 4500e12, 1e3);
  EXPECT_NEAR(tensor_peak(hw, o.efficiencies, Precision::fp4, OpClass::grouped_gemm), 0.53 * 9000e12, 1e3);
  // Attention and other classes run at the nominal peak.
  EXPECT_NEAR(tensor_peak(hw, o.efficiencies, Precision::fp8, OpClass::attention_prefill), 4500e12, 1e3);
}

// A profile of an MI300X that measured nothing yet, and the options it leaves.
CalibrationProfile empty_mi300x_profile() {
  CalibrationProfile p;
  p.name = "mi300x";
  p.provenance.gpu = "AMD Instinct MI300X";
  return p;
}

RooflineOptions applied(const CalibrationProfile& p, const NodeSpec& node) {
  RooflineOptions o;
  apply_calibration_profile(p, node, o);
  return o;
}

TEST(CalibrationApply, MeasuredHbmReplacesThePresetsHbmShare) {
  // MI300X's preset charges the bandwidth curves at 0.88 of 5.3 TB/s. A profile that measured a copy
  // at 4.24 TB/s (0.8 of the datasheet) rescales the curves to it, and the preset's share no longer
  // applies on top; a profile without HBM sections keeps it.
  const NodeSpec node = load_node("mi300x-8");
  const HardwareRates hw(node.gpu);
  CalibrationProfile p = empty_mi300x_profile();
  const RooflineOptions without = applied(p, node);
  EXPECT_FALSE(without.efficiencies.hbm_measured);
  EXPECT_NEAR(hbm_rate(hw, without.efficiencies), 0.88 * 5.3e12, 1e6);
  p.hbm = HbmSection{Bytes(1e9), Bandwidth(4.24e12)};
  const RooflineOptions with = applied(p, node);
  EXPECT_TRUE(with.efficiencies.hbm_measured);
  EXPECT_NEAR(hbm_rate(hw, with.efficiencies) * with.efficiencies.of(OpClass::elementwise).bandwidth.at(1e12), 4.24e12,
              1e6);
}

TEST(CalibrationApply, MeasuredDecodeAttentionReplacesThePresetsShare) {
  // MI300X's preset charges decode attention at 0.45 of its curve. A profile that measured the
  // decode-attention read rate on the GPU replaces the curve, and the preset's share no longer
  // applies on top; a profile without that section keeps it.
  const NodeSpec node = load_node("mi300x-8");
  const HardwareRates hw(node.gpu);
  CalibrationProfile p = empty_mi300x_profile();
  const RooflineOptions without = applied(p, node);
  EXPECT_FALSE(without.efficiencies.attention_decode_measured);
  EXPECT_DOUBLE_EQ(class_bandwidth_share(hw, without.efficiencies, OpClass::attention_decode, Precision::bf16), 0.45);
  AttentionDecodeSection a;
  a.kernel = "proxy";
  a.kv_heads = 8;
  a.q_heads_per_kv = 8;
  a.head_dim = 128;
  a.points.push_back({32, 1024, Bytes(64e6), Time::us(40), Bandwidth(1.6e12), 0.3});
  p.attention_decode = a;
  const RooflineOptions with = applied(p, node);
  EXPECT_TRUE(with.efficiencies.attention_decode_measured);
  EXPECT_DOUBLE_EQ(class_bandwidth_share(hw, with.efficiencies, OpClass::attention_decode, Precision::bf16), 1.0);
  EXPECT_NEAR(hbm_rate(hw, with.efficiencies) * with.efficiencies.of(OpClass::attention_decode).bandwidth.at(64e6),
              1.6e12, 1e6);
}

TEST(CalibrationApply, KernelLaunchSetsTheGapAndTheMinimumDuration) {
  const NodeSpec node = load_node("hgx-h100");
  CalibrationProfile p;
  p.name = "launch";
  p.provenance.gpu = "NVIDIA H100 80GB HBM3";
  p.kernel_launch = KernelLaunchSection{200, Bytes::kib(16), Time::ns(1800), Time::ns(4300)};
  RooflineOptions o;
  const CalibrationReport r = apply_calibration_profile(p, node, o);
  EXPECT_EQ(o.efficiencies.kernel_overhead, Time::ns(1800));
  EXPECT_EQ(o.efficiencies.kernel_min_duration, Time::ns(2500));
  ASSERT_EQ(r.applied.size(), 1u);
  EXPECT_NE(r.applied[0].find("minimum kernel duration 2.50 us"), std::string::npos) << r.applied[0];
  // A tiny kernel measured no slower than an empty one leaves no floor, never a negative one.
  p.kernel_launch->tiny_kernel = Time::ns(1700);
  RooflineOptions o2;
  apply_calibration_profile(p, node, o2);
  EXPECT_EQ(o2.efficiencies.kernel_min_duration, Time::ns(0));
}

TEST(CalibrationApply, RejectsAnotherGpusProfile) {
  const NodeSpec node = load_node("hgx-b300");
  RooflineOptions o;
  EXPECT_THROW(apply_calibration_profile(h100_profile(), node, o), std::invalid_argument);
}

ModelCard toy_engram_card() {
  ModelCard card;
  card.name = "toy";
  card.num_layers = 2;
  card.hidden_size = 1024;
  card.vocab_size = 1000;
  card.max_context = 4096;
  card.dense_intermediate = 4096;
  card.attention.num_heads = 8;
  card.attention.num_kv_heads = 8;
  card.attention.head_dim = 128;
  EngramSpec e;
  e.layers = {1};
  e.max_order = 3;
  e.heads_per_order = 8;
  e.head_dim = 128;
  e.row_bytes = Bytes(256);
  e.table_rows = {100000000};
  card.engram = e;
  return card;
}

TEST(CalibrationApply, MeasuredSsdChangesTheFetch) {
  const NodeSpec node = load_node("hgx-h100");
  const ModelCard card = toy_engram_card();
  RooflineOptions o;
  o.engram.tier = EngramTier::ssd;
  const RooflineStepModel before(card, node, o);
  apply_calibration_profile(h100_profile(), node, o);
  const RooflineStepModel after(card, node, o);
  // 900k measured vs 1M datasheet IOPS, 80 us vs 90 us latency: different SSD times.
  const auto a = before.engram_fetch()[0].cost(256);
  const auto b = after.engram_fetch()[0].cost(256);
  EXPECT_NE(a.ssd_time, b.ssd_time);
}

// ssd_mmap prices the page_cache path's faults: the p50 at the fewest threads that reach the
// engine's faults in flight (here 1), and the fault time scales with it.
TEST(CalibrationApply, SsdMmapSetsThePageFaultLatency) {
  const NodeSpec node = load_node("hgx-h100");
  const ModelCard card = toy_engram_card();
  RooflineOptions o;
  o.engram.tier = EngramTier::ssd;
  o.engram.ssd_path = SsdPath::page_cache;
  o.engram.page_cache = Bytes::gib(1);  // a small cache: most pages fault
  o.host.engram_ssd_path = SsdPath::page_cache;
  o.host.engram_page_fault_concurrency = 1;
  CalibrationProfile p = h100_profile();
  p.ssd_random_read.reset();
  SsdMmapSection mm;
  mm.points.push_back({4, 40000.0, {Time::us(300), Time::us(400), Time::us(900)}});
  mm.points.push_back({1, 5000.0, {Time::us(200), Time::us(250), Time::us(600)}});
  p.ssd_mmap = mm;
  const RooflineStepModel before(card, node, o);
  const CalibrationReport r = apply_calibration_profile(p, node, o);
  EXPECT_EQ(o.engram.page_fault_latency, Time::us(200));
  bool said = false;
  for (const auto& line : r.applied) said = said || line.rfind("ssd_mmap: page fault 200.0 us", 0) == 0;
  EXPECT_TRUE(said);
  const RooflineStepModel after(card, node, o);
  const auto a = before.engram_fetch()[0].cost(256);
  const auto b = after.engram_fetch()[0].cost(256);
  ASSERT_GT(a.ssd_time, Time::zero());
  // The node's datasheet read latency -> the measured 200 us fault.
  EXPECT_NEAR(b.ssd_time.seconds() / a.ssd_time.seconds(), 200e-6 / node.nvme.read_latency.seconds(), 1e-6);
  // No point reaches 8 faults in flight: the one with the most threads.
  o.host.engram_page_fault_concurrency = 8;
  apply_calibration_profile(p, node, o);
  EXPECT_EQ(o.engram.page_fault_latency, Time::us(300));
}

}  // namespace
}  // namespace engramsim
