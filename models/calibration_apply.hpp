// Applying a calibration profile (engramsim calibrate) to the step model's options: each measured
// section replaces the defaults it measures. One function per section kind.
#pragma once

#include <string>
#include <vector>

#include "hardware/calibration_profile.hpp"
#include "hardware/node_spec.hpp"
#include "models/roofline_step_model.hpp"

namespace engramsim {

// Replaces defaults in `options` by what a calibration profile measured on `node`'s GPU and host:
//   gemm             -> gemm FLOP efficiency by M (median of achieved / peak over the profile's
//                       shapes at each M, per the precision's peak)
//   hbm              -> all HBM bandwidth curves scaled so their large-transfer efficiency equals the
//                       measured copy traffic / datasheet bandwidth (shape kept)
//   hbm_gather       -> Engram HBM gather efficiency by row size (uniform curves: beta / HBM bandwidth)
//   uva_gather       -> host-link zero-copy gather efficiency by row size (beta / host-link bandwidth)
//   host_link        -> bulk copy efficiency by size (h2d points, the fit's alpha taken off each time)
//   attention_decode -> decode-attention bandwidth efficiency by KV bytes
//   dram_gather      -> CPU gather efficiency by row size (best thread count, per GPU share of DRAM)
//   collectives      -> the all-reduce fit at the profile's GPU count and the point-to-point fit,
//                       converted to the reference fabric (they scale back to this node's)
//   ssd_random_read  -> NVMe 4 KiB IOPS per drive (best point) and QD1 read latency (p50)
// Sections not measured keep their defaults. GPU sections apply only when the profile's GPU
// matches the node's (check_profile_matches); otherwise std::invalid_argument is thrown.
struct CalibrationReport {
  std::vector<std::string> applied;  // "gemm: 12 points, eff 0.41..0.78 by M"
  std::vector<std::string> kept;     // sections left at defaults, with why
  std::vector<std::string> notes;    // where the measurements come from, when it matters
};
CalibrationReport apply_calibration_profile(const CalibrationProfile& profile, const NodeSpec& node,
                                            RooflineOptions& options);

}  // namespace engramsim
