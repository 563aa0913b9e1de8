// Writes the sizing report of a sweep folder:
//   DIR/report.html   self-contained: inline CSS, SVG and one small script, no network references
//   DIR/report.md     the same sections as Markdown, charts linked from charts/
//   DIR/charts/*.svg  every chart as a standalone file
//   DIR/tables/*.csv and *.json  every table (JSON: an array of row objects; cells that are
//                     plain numbers become JSON numbers)
// Sections: question, recommendation (with the comparison at the target interactivity), Pareto
// chart (throughput/GPU vs tok/s/user), tokens per dollar vs tok/s/user, HBM footprint per
// configuration, TTFT and TPOT CDFs, Engram stall share, every point, assumptions.
// Output is a pure function of the ReportData (no timestamps), so rebuilding a report from the
// same folder gives the same bytes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "planner/report_data.hpp"

namespace engramsim::report {

struct Chart {
  std::string id;  // file stem and data-chart attribute
  std::string title;
  std::string caption;
  std::string svg;
  std::string svg_log;  // the same chart with a logarithmic x axis (the report's toggle); empty: none
};

// The charts, in report order: pareto, tokens_per_dollar, hbm_footprint, ttft_cdf, tpot_cdf,
// engram_stall.
std::vector<Chart> report_charts(const planner::ReportData& d);
// The tables: points, frontier_throughput, frontier_tokens_per_dollar, comparison (when a target
// interactivity is set), footprint, assumptions, then the context's extra tables.
std::vector<planner::Table> report_tables(const planner::ReportData& d);

std::string render_html(const planner::ReportData& d);
std::string render_markdown(const planner::ReportData& d);
std::string table_to_csv(const planner::Table& t);
// Rows as objects keyed by json_key() of each column title, cells as typed numbers where they parse.
nlohmann::json table_to_json(const planner::Table& t);
// A column title as a JSON identifier: lower case, "/" as "_per_", "$" as "usd", "%" as "pct", every
// other run of non-alphanumerics as one "_" ("max req/s per replica" -> "max_req_per_s_per_replica",
// "$/M tokens" -> "usd_per_m_tokens"); a leading digit gets "c_".
std::string json_key(const std::string& title);

// Writes every file listed in the header; returns their paths.
std::vector<std::filesystem::path> write_report(const planner::ReportData& d, const std::filesystem::path& dir);

// Removes what write_report writes (report.html, report.md, charts/, tables/) and the recommended
// engine command line (serve-command.sh) from `dir`, for when the results no longer match them (a
// partial merge); returns the paths that were there.
std::vector<std::filesystem::path> remove_report(const std::filesystem::path& dir);

}  // namespace engramsim::report
