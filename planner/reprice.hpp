// Re-pricing finished results: the same simulated points under another GPU-hour price.
//
// A point's all-in price per GPU used is (GPU-hour price + the Engram DRAM/SSD capital per
// GPU-hour) x the GPUs paid per GPU used (whole nodes), as scenario/build/scenario_build.hpp prices a run.
// Only the GPU-hour price depends on the tier or price file; the Engram capital and the whole-node
// factor come from the point's own result (extra.engram_capacity_usd_per_gpu_hour,
// extra.paid_gpus_per_used_gpu), and throughput, latency and power stay as simulated. Tokens per
// dollar and every $/M figure follow from the new price. Pure: the caller supplies the price of a
// node's GPU (tools/engramsim/cmd_report.cpp reads the catalog or a price file).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "planner/report_data.hpp"

namespace engramsim::planner {

// The node a point ran on: its assignments' `node` when the sweep varies it, else the node its
// result names (extra.node); nullopt when neither says.
std::optional<std::string> point_node(const ReportPoint& p);

// The GPU-hour price (USD) of the GPU of a node, by node name; throws to refuse a node.
using GpuHourPrice = std::function<double(const std::string& node)>;

// The point at `gpu_hour_usd`: its metrics' GPU-hour and all-in prices, extra.tokens_per_dollar,
// usd_per_gpu_hour and tokens_per_dollar. A point that did not run is returned unchanged.
ReportPoint reprice_point(ReportPoint p, double gpu_hour_usd);

// Every ok point of `d` at `price_of(its node)`, nodes without one taking `fallback_node`; the
// context then names `tier` (and `price_file`, when given) and says in a note that the figures are
// re-priced, not re-simulated. Throws std::runtime_error naming the point when a point's node is
// unknown and there is no fallback.
ReportData reprice(ReportData d, const GpuHourPrice& price_of, const std::string& tier, const std::string& price_file,
                   const std::optional<std::string>& fallback_node);

}  // namespace engramsim::planner
