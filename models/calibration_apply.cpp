// Calibration profiles applied to the step model's options (models/calibration_apply.hpp).
#include "models/calibration_apply.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace engramsim {

namespace {

// Points (key, efficiency) from measurements: sorted, duplicate keys averaged, clamped into (0, 1].
EfficiencyCurve curve_from(const std::vector<std::pair<double, double>>& raw) {
  std::map<double, std::pair<double, int>> merged;
  for (const auto& [k, v] : raw) {
    if (!(k > 0.0) || !std::isfinite(v) || !(v > 0.0)) continue;
    auto& m = merged[k];
    m.first += v;
    m.second += 1;
  }
  std::vector<std::pair<double, double>> pts;
  for (const auto& [k, m] : merged) pts.emplace_back(k, std::clamp(m.first / m.second, 1e-4, 1.0));
  if (pts.empty()) throw std::invalid_argument("calibration: no usable points");
  return EfficiencyCurve(pts);
}

std::string range_of(const EfficiencyCurve& c) {
  double lo = 1.0, hi = 0.0;
  for (const auto& [k, v] : c.points()) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "%zu points, efficiency %.3f..%.3f", c.points().size(), lo, hi);
  return buf;
}

// ssd_mmap -> the page_cache path's fault latency: the p50 first touch at the fewest threads that
// reach the engine's faults in flight (one for vLLM, OMP_NUM_THREADS=1), else at the most threads.
void apply_ssd_mmap(const CalibrationProfile& p, RooflineOptions& o, CalibrationReport& r) {
  if (!p.ssd_mmap || p.ssd_mmap->points.empty()) return;
  const int want = std::max(1, o.host.engram_page_fault_concurrency);
  const SsdMmapPoint* pick = nullptr;
  for (const auto& pt : p.ssd_mmap->points) {
    const bool reaches = pt.threads >= want;
    const bool picked_reaches = pick != nullptr && pick->threads >= want;
    if (pick == nullptr || (reaches && (!picked_reaches || pt.threads < pick->threads)) ||
        (!reaches && !picked_reaches && pt.threads > pick->threads))
      pick = &pt;
  }
  o.engram.page_fault_latency = pick->latency.p50;
  char buf[160];
  std::snprintf(buf, sizeof buf, "ssd_mmap: page fault %.1f us (p50 at %d thread%s; the page_cache path's faults)",
                pick->latency.p50.micros(), pick->threads, pick->threads == 1 ? "" : "s");
  r.applied.push_back(buf);
}

// gemm -> the GEMM and grouped-GEMM FLOP curves by M, and each measured precision's share of them.
void apply_gemm(const CalibrationProfile& p, const GpuSpec& gpu, Efficiencies& e, CalibrationReport& r) {
  if (!p.gemm || p.gemm->points.empty()) return;
  const HardwareRates hw(gpu);
  // Every shape sets the dense-GEMM curve; the expert-sized ones (weight matrices under 48 M
  // elements: the catalog's routed-expert projections) also set the grouped-GEMM curve, keyed by
  // rows per expert: a GEMM of M rows against one expert's weights is that expert's share of a
  // grouped GEMM.
  constexpr double kExpertSizedElements = 48e6;
  std::map<double, std::vector<double>> by_m, expert_by_m;
  for (const auto& pt : p.gemm->points) {
    const double peak = hw.peak_flops(pt.precision);
    if (!(peak > 0.0) || pt.m <= 0) continue;
    const double eff = pt.achieved.value() / peak;
    by_m[static_cast<double>(pt.m)].push_back(eff);
    if (static_cast<double>(pt.n) * static_cast<double>(pt.k) < kExpertSizedElements)
      expert_by_m[static_cast<double>(pt.m)].push_back(eff);
  }
  const auto medians = [](std::map<double, std::vector<double>>& groups) {
    std::vector<std::pair<double, double>> pts;
    for (auto& [m, v] : groups) {
      std::sort(v.begin(), v.end());
      pts.emplace_back(m, v[v.size() / 2]);
    }
    return pts;
  };
  const auto pts = medians(by_m);
  if (!pts.empty()) {
    e.of(OpClass::gemm).flops = curve_from(pts);
    r.applied.push_back("gemm: FLOP efficiency by M, " + range_of(e.of(OpClass::gemm).flops));
    // Each measured precision's share of that curve (median over its points) replaces the GPU
    // preset's gemm_efficiency for it; precisions the sweep did not run keep the preset's.
    std::map<Precision, std::vector<double>> share;
    for (const auto& pt : p.gemm->points) {
      const double peak = hw.peak_flops(pt.precision);
      const double curve = e.of(OpClass::gemm).flops.at(static_cast<double>(pt.m));
      if (!(peak > 0.0) || pt.m <= 0 || !(curve > 0.0)) continue;
      share[hw.effective_precision(pt.precision)].push_back(pt.achieved.value() / peak / curve);
    }
    for (auto& [prec, v] : share) {
      std::sort(v.begin(), v.end());
      e.gemm_precision_scale[static_cast<std::size_t>(prec)] = v[v.size() / 2];
      char buf[96];
      std::snprintf(buf, sizeof buf, "gemm: %s reaches %.3f of that curve", to_string(prec), v[v.size() / 2]);
      r.applied.push_back(buf);
    }
  }
  const auto expert_pts = medians(expert_by_m);
  if (!expert_pts.empty()) {
    e.of(OpClass::grouped_gemm).flops = curve_from(expert_pts);
    r.applied.push_back("grouped_gemm: FLOP efficiency by rows per expert from the expert-sized GEMMs, " +
                        range_of(e.of(OpClass::grouped_gemm).flops));
  }
}

// hbm -> every HBM bandwidth curve scaled to the measured large-transfer efficiency.
void apply_hbm(const CalibrationProfile& p, const GpuSpec& gpu, Efficiencies& e, CalibrationReport& r) {
  const double hbm_bw = gpu.hbm_bandwidth.value();
  if (!(p.hbm && hbm_bw > 0.0)) return;
  // Copy traffic counts reads and writes, as datasheet bandwidth does.
  const double measured = std::clamp(p.hbm->copy_traffic.value() / hbm_bw, 1e-4, 1.0);
  for (OpClass c : {OpClass::gemm, OpClass::grouped_gemm, OpClass::attention_prefill, OpClass::attention_decode,
                    OpClass::indexer, OpClass::elementwise, OpClass::embedding}) {
    EfficiencyCurve& curve = e.of(c).bandwidth;
    const double top = curve.points().back().second;
    std::vector<std::pair<double, double>> pts;
    for (const auto& [k, v] : curve.points()) pts.emplace_back(k, v * measured / top);
    curve = curve_from(pts);
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "hbm: large-transfer efficiency %.3f of %.2f TB/s", measured, hbm_bw * 1e-12);
  r.applied.push_back(buf);
}

// kernel_launch -> the launch gap and the minimum kernel duration.
void apply_kernel_launch(const CalibrationProfile& p, Efficiencies& e, CalibrationReport& r) {
  if (!p.kernel_launch) return;
  // An empty kernel's share of a graph is the launch gap; what a tiny kernel adds on top is the
  // minimum duration of a kernel with almost no work.
  const double gap = p.kernel_launch->empty_kernel.seconds();
  const double floor = std::max(0.0, p.kernel_launch->tiny_kernel.seconds() - gap);
  e.kernel_overhead = Time::from_seconds(gap);
  e.kernel_min_duration = Time::from_seconds(floor);
  char buf[112];
  std::snprintf(buf, sizeof buf, "kernel_launch: launch gap %.2f us, minimum kernel duration %.2f us", gap * 1e6,
                floor * 1e6);
  r.applied.push_back(buf);
}

// A gather section's uniform curves -> `target` by row size, as shares of `reference` bytes/s.
void apply_gather(const std::optional<GpuGatherSection>& sec, double reference, EfficiencyCurve& target,
                  const char* what, CalibrationReport& r) {
  if (!sec || reference <= 0.0) return;
  std::vector<std::pair<double, double>> pts;
  for (const auto& c : sec->curves)
    if (c.distribution == IndexDistribution::uniform && c.fit.beta.value() > 0.0)
      pts.emplace_back(c.row_size.value(), c.fit.beta.value() / reference);
  if (pts.empty()) return;
  target = curve_from(pts);
  r.applied.push_back(std::string(what) + ": by row size, " + range_of(target));
}

// host_link -> bulk copy efficiency by size (the fit's alpha taken off each time).
void apply_host_link(const CalibrationProfile& p, const GpuSpec& gpu, Efficiencies& e, CalibrationReport& r) {
  if (!p.host_link || p.host_link->h2d.empty() || !(gpu.host_link_bandwidth.value() > 0.0)) return;
  const double alpha = p.host_link->h2d_fit.alpha.seconds();
  std::vector<std::pair<double, double>> pts;
  for (const auto& pt : p.host_link->h2d) {
    const double t = pt.time.seconds() - alpha;
    if (t > 0.0) pts.emplace_back(pt.size.value(), pt.size.value() / t / gpu.host_link_bandwidth.value());
  }
  if (!pts.empty()) {
    e.host_copy_by_bytes = curve_from(pts);
    r.applied.push_back("host_link: bulk copy by size, " + range_of(e.host_copy_by_bytes));
  }
}

// attention_decode -> decode-attention bandwidth efficiency by KV bytes.
void apply_attention_decode(const CalibrationProfile& p, const GpuSpec& gpu, Efficiencies& e, CalibrationReport& r) {
  const double hbm_bw = gpu.hbm_bandwidth.value();
  if (!p.attention_decode || !(hbm_bw > 0.0)) return;
  std::vector<std::pair<double, double>> pts;
  for (const auto& pt : p.attention_decode->points)
    pts.emplace_back(pt.kv_bytes.value(), pt.bandwidth.value() / hbm_bw);
  if (!pts.empty()) {
    e.of(OpClass::attention_decode).bandwidth = curve_from(pts);
    e.attention_decode_measured = true;
    r.applied.push_back("attention_decode: bandwidth by KV bytes, " +
                        range_of(e.of(OpClass::attention_decode).bandwidth));
  }
}

// dram_gather -> CPU gather efficiency by row size (best thread count, per-GPU share of DRAM).
void apply_dram_gather(const CalibrationProfile& p, const NodeSpec& node, Efficiencies& e, CalibrationReport& r) {
  if (!p.dram_gather || !(node.host_dram_bandwidth.value() > 0.0)) return;
  const double share = node.host_dram_bandwidth.value() / std::max(1, node.gpu_count);
  std::map<double, double> best;
  for (const auto& pt : p.dram_gather->points)
    if (pt.distribution == IndexDistribution::uniform)
      best[pt.row_size.value()] = std::max(best[pt.row_size.value()], pt.bandwidth.value());
  std::vector<std::pair<double, double>> pts;
  for (const auto& [row, bw] : best) pts.emplace_back(row, bw / share);
  if (!pts.empty()) {
    e.cpu_gather_by_row_bytes = curve_from(pts);
    r.applied.push_back("dram_gather: CPU gather by row size, " + range_of(e.cpu_gather_by_row_bytes));
  }
}

// collectives -> the all-reduce fit at the profile's GPU count and the point-to-point fit.
void apply_collectives(const CalibrationProfile& p, const GpuSpec& gpu, CollectiveParams& c, CalibrationReport& r) {
  if (!p.collectives || p.collectives->gpus < 2 || !(c.reference_scale_up.value() > 0.0) ||
      !(gpu.scale_up_bandwidth.value() > 0.0))
    return;
  // Measured on this fabric; stored as if on the reference fabric so the model scales it back.
  const double to_reference = gpu.scale_up_bandwidth.value() / c.reference_scale_up.value();
  const auto& ar = p.collectives->all_reduce_fit;
  if (ar.beta.value() > 0.0) {
    AllReduceFit f{p.collectives->gpus, {ar.alpha.seconds(), 1.0 / ar.beta.value() * to_reference}};
    auto& fits = c.all_reduce;
    auto it = std::find_if(fits.begin(), fits.end(), [&](const AllReduceFit& x) { return x.ranks >= f.ranks; });
    if (it != fits.end() && it->ranks == f.ranks)
      *it = f;
    else
      fits.insert(it, f);
    r.applied.push_back("collectives: all-reduce fit at " + std::to_string(f.ranks) + " GPUs");
  }
  const auto& pp = p.collectives->p2p_fit;
  if (pp.beta.value() > 0.0) {
    c.point_to_point = {pp.alpha.seconds(), 1.0 / pp.beta.value() * to_reference};
    r.applied.push_back("collectives: point-to-point fit");
  }
  c.source += " + profile " + p.name;
}

// ssd_random_read -> NVMe IOPS per drive (best point) and QD1 read latency (p50).
void apply_ssd_random_read(const CalibrationProfile& p, RooflineOptions& o, CalibrationReport& r) {
  if (!p.ssd_random_read || p.ssd_random_read->points.empty()) return;
  const auto& pts = p.ssd_random_read->points;
  const auto qd1 = std::min_element(pts.begin(), pts.end(),
                                    [](const auto& a, const auto& b) { return a.queue_depth < b.queue_depth; });
  double iops = 0.0;
  for (const auto& pt : pts) iops = std::max(iops, pt.iops);
  o.engram.ssd_read_latency = qd1->latency.p50;
  o.engram.ssd_iops_per_drive = iops;
  char buf[128];
  std::snprintf(buf, sizeof buf, "ssd_random_read: %.0f IOPS per drive, %.1f us at QD%d", iops,
                qd1->latency.p50.micros(), qd1->queue_depth);
  r.applied.push_back(buf);
}

// Sections measured for reference only, and sections not measured: said, so that "measured" is never
// read as "used".
void note_reference_sections(const CalibrationProfile& p, CalibrationReport& r) {
  if (p.memcpy)
    r.notes.push_back(
        "memcpy: measured, not an input (a reference for the host figures; the staged path is priced "
        "from dram_gather and host_link)");
  if (p.staged_gather)
    r.notes.push_back(
        "staged_gather: measured, not an input (the staged path end to end, a check on dram_gather and "
        "host_link, which price it)");
  if (p.ssd_sequential)
    r.notes.push_back("ssd_sequential: measured, not an input (the SSD tier reads rows at random: ssd_random_read)");
  for (const auto& [name, reason] : p.not_measured) r.kept.push_back(name + ": not measured (" + reason + ")");
}

// Which machine the host sections describe, and whether the GPU sections may apply to this node.
void check_sections(const CalibrationProfile& p, const NodeSpec& node, CalibrationReport& r) {
  // Host sections describe the machine they were measured on, whatever node is modelled: say which.
  bool host_sections = false;
  for (const auto& name : calibration_section_names())
    if (!is_gpu_section(name) && has_section_data(p, name)) host_sections = true;
  if (host_sections)
    r.notes.push_back("host sections measured on " +
                      (p.provenance.host.empty() ? std::string("an unnamed host") : p.provenance.host) + " (" +
                      std::to_string(p.provenance.cpu_threads) + " CPU threads) stand in for " + node.name +
                      "'s host DRAM and NVMe figures");
  bool gpu_sections = false;
  for (const auto& name : calibration_section_names())
    if (is_gpu_section(name) && has_section_data(p, name)) gpu_sections = true;
  if (gpu_sections) {
    const ProfileMatch m = check_profile_matches(p, node.gpu.name);
    if (m.severity == MatchSeverity::error) throw std::invalid_argument("calibration profile: " + m.message);
    if (m.severity == MatchSeverity::warning) r.kept.push_back("warning: " + m.message);
  }
}

}  // namespace

CalibrationReport apply_calibration_profile(const CalibrationProfile& p, const NodeSpec& node, RooflineOptions& o) {
  CalibrationReport r;
  check_sections(p, node, r);
  Efficiencies& e = o.efficiencies;
  // Curves measured as shares of the datasheet bandwidth replace the preset's hbm_efficiency.
  if ((p.hbm || p.attention_decode || p.hbm_gather) && node.gpu.hbm_bandwidth.value() > 0.0) e.hbm_measured = true;
  apply_gemm(p, node.gpu, e, r);
  apply_hbm(p, node.gpu, e, r);
  apply_kernel_launch(p, e, r);
  apply_gather(p.hbm_gather, node.gpu.hbm_bandwidth.value(), e.of(OpClass::engram_gather).bandwidth, "hbm_gather", r);
  apply_gather(p.uva_gather, node.gpu.host_link_bandwidth.value(), e.host_gather_by_row_bytes, "uva_gather", r);
  apply_host_link(p, node.gpu, e, r);
  apply_attention_decode(p, node.gpu, e, r);
  apply_dram_gather(p, node, e, r);
  apply_collectives(p, node.gpu, o.collectives, r);
  apply_ssd_random_read(p, o, r);
  apply_ssd_mmap(p, o, r);
  note_reference_sections(p, r);
  if (!r.applied.empty()) e.source = "calibration profile " + p.name;
  return r;
}

}  // namespace engramsim
