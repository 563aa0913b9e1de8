// How the sizing report names and draws its configurations, and how it writes numbers in prose.
//
// A configuration's key stays its machine label (config_label: "tp=4 engram_tier=hbm"), which the
// validation set and the refinement rounds match on; the report shows a human name derived from the
// same assignments ("B200 · TP4 · Engram in HBM") and draws every configuration in a style of its
// own: the colour family says the GPU, the dash the parallel layout, the marker the Engram tier, and
// no two configurations share a colour.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/display_text.hpp"
#include "planner/report_data.hpp"
#include "report/svg_chart.hpp"

namespace engramsim::report {

// The human name of an assignment set, excluding curve_axis: the GPU (node or gpu key), then the
// layout (TP4, EP8, PP2, DP2), the Engram tier ("Engram in HBM", "Engram in DRAM", "Engram on
// SSD"), the fetch path, then any other swept key as "key=value" (last key component), joined by
// " · "; "base" when nothing varies.
std::string human_config_name(const nlohmann::json& assignments, const std::vector<std::string>& axes,
                              const std::string& curve_axis);

// Machine label -> human name for every configuration of `d`, its "TPn" read as the engines name
// the layout its results ran ("TP4", "TP4 + EP4", "DP4 attention + EP4"). Two configurations that
// would share a human name keep their machine labels, so every name stays unique.
std::map<std::string, std::string> display_names(const planner::ReportData& d);

// `text` with every machine label of `names` replaced by its human name (whole labels only,
// longest first), for prose written with machine labels.
std::string with_display_names(const std::string& text, const std::map<std::string, std::string>& names);

struct SeriesStyle {
  std::string color;
  std::string dash;  // stroke-dasharray; empty: solid
  MarkerShape marker = MarkerShape::circle;
};

// Machine label -> style for every configuration of `d`: configurations on one GPU share a hue
// family (shades of it), layouts differ by dash, Engram tiers by marker (HBM circle, DRAM square,
// SSD triangle, others diamond). With one GPU (or none named) the palette colours in order. Colours
// are distinct across all configurations.
std::map<std::string, SeriesStyle> series_styles(const planner::ReportData& d);

}  // namespace engramsim::report
