// What a sizing report shows, as plain data, and the analyses behind it.
//
// ReportData is built from a sweep output folder (load_results: DIR/results.jsonl, DIR/sweep.json,
// DIR/context.json) or directly from result lines (make_report_data), so `engramsim report DIR`
// can rebuild a report at any time from the files alone. The context (the question, SLO, target
// interactivity, model card, presets, calibration profile and the provenance of every figure) is
// written by whoever runs the sweep (write_context) and is optional: a report without it still
// shows every chart and table, with the assumptions section saying what is unknown.
//
// Configuration: a point's assignments without the curve axis (default workload.concurrency), so
// each configuration traces one throughput/interactivity curve as concurrency varies.
#pragma once

#include <cstddef>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/kv_wall.hpp"
#include "planner/pareto.hpp"
#include "planner/point_metrics.hpp"
#include "planner/results_file.hpp"

namespace engramsim::planner {

// Where a figure comes from, as the assumptions section reports it.
struct Assumption {
  std::string figure;  // "B300 HBM bandwidth"
  std::string value;   // "8 TB/s"
  std::string source;  // file, URL or measurement id
  std::string kind;    // measured | datasheet | derived | assumed
};

struct Slo {
  std::optional<double> min_interactivity;  // tok/s/user
  std::optional<double> max_ttft_p99_ms;
  std::optional<double> max_tpot_p99_ms;
};

// A table for the report; also written as tables/<name>.csv and tables/<name>.json.
struct Table {
  std::string name;  // file stem: [a-z0-9_]+
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// The validation set's MAPE (fractions) for the GPUs and engines a sweep runs
// (scenarios/validation/recorded-accuracy.yaml), and the whole set's serving-throughput MAPE, which
// stands for a configuration whose GPU and engine have no case. A recommendation whose margin is
// inside the error of the configurations it compares is a tie.
struct ValidationGroup {
  int cases = 0;
  double mape = 0.0;  // mean |relative error|, a fraction
  double lean = 0.0;  // mean speed error, a fraction: > 0 the model predicts faster than measured
  std::vector<std::string> known_misses;
};
struct ValidationErrors {
  std::map<std::string, double> by_gpu;
  std::map<std::string, double> by_engine;
  std::map<std::string, ValidationGroup> by_gpu_engine;  // "gpu/engine": the cases on both at once
  std::optional<double> serving_throughput;
};

struct ReportContext {
  std::string title = "engramsim sizing report";
  std::string question;  // the what-if question, one or two sentences
  std::string scenario;  // scenario file
  std::string model_card;
  std::vector<std::string> presets;  // hardware presets used (GPU, node, prices)
  std::string calibration_profile;   // empty: datasheet defaults only
  std::string price_tier;            // hyperscaler | neocloud | rental
  std::string curve_axis = "workload.concurrency";
  std::optional<double> target_interactivity;  // tok/s/user at which configurations are compared
  Slo slo;
  std::vector<Assumption> assumptions;
  std::vector<std::string> notes;   // free text (e.g. the fleet-sizing summary)
  std::vector<Table> extra_tables;  // e.g. fleet plans from plan_search
  ValidationErrors validation;
  std::string tool;                    // "engramsim 0.1.0 (commit 1a2b3c4)"; empty: the library's version
  std::vector<std::string> overrides;  // the command line's --set key=value, as run

  nlohmann::json to_json() const;
  static ReportContext from_json(const nlohmann::json& j);
};

struct ReportPoint {
  std::size_t index = 0;
  std::string id;
  nlohmann::json assignments;
  std::string config;        // label of the configuration
  double concurrency = 0.0;  // the curve axis value (or metrics.concurrency)
  PointStatus status = PointStatus::ok;
  std::string reason;              // infeasible reason or error message
  PointMetrics metrics;            // status ok only
  double usd_per_gpu_hour = 0.0;   // all-in if given, else the GPU price; NaN when unknown
  double tokens_per_dollar = 0.0;  // NaN when the price is unknown
};

// A number the point's run put in its metrics' `extra`; `fallback` when it is absent or not a number.
double extra_number(const ReportPoint& p, const char* key, double fallback = std::numeric_limits<double>::quiet_NaN());

struct ReportData {
  ReportContext context;
  std::vector<std::string> axes;    // sweep axes in order (from sweep.json; else from the lines)
  std::size_t total_points = 0;     // in the sweep (sweep.json), >= points.size()
  std::vector<ReportPoint> points;  // ascending index
};

// Builds ReportData from result lines (any order). Pure.
ReportData make_report_data(ReportContext context, std::vector<ResultLine> lines, std::vector<std::string> axes = {},
                            std::optional<std::size_t> total_points = std::nullopt);
// Reads DIR/results.jsonl (required; a torn last line is ignored), DIR/sweep.json and
// DIR/context.json (both optional). Throws std::runtime_error naming the file on bad input.
// DIR/results.jsonl, then the refinement rounds DIR/refine/round-N/results.jsonl (N = 1, 2, ...
// while present), whose points are numbered after the grid's; the host_memory table is added to the
// context's extra tables when the results carry its figures.
ReportData load_results(const std::filesystem::path& dir);
// As load_results, with the refinement rounds 1..last_round only (0: the grid alone): what the
// sweep knew before round last_round + 1, however many later rounds an interrupted run left.
ReportData load_results_through_round(const std::filesystem::path& dir, int last_round);
std::filesystem::path refine_round_dir(const std::filesystem::path& dir, int round);
void write_context(const std::filesystem::path& dir, const ReportContext& context);
std::optional<ReportContext> read_context(const std::filesystem::path& dir);

// Configuration label of an assignment set: "tp=2 engram_tier=dram" (last key component, or the
// whole key when two axes share it), excluding curve_axis; "base" when nothing else varies.
std::string config_label(const nlohmann::json& assignments, const std::vector<std::string>& axes,
                         const std::string& curve_axis);

// (interactivity, throughput per GPU) of every ok point, tagged with its configuration.
std::vector<CurvePoint> throughput_points(const ReportData& d);
// (interactivity, tokens per dollar) of every ok point with a known price.
std::vector<CurvePoint> tokens_per_dollar_points(const ReportData& d);

bool meets_slo(const ReportPoint& p, const Slo& slo);

// The KV-wall figures of a point (planner/kv_wall.hpp) from its result: the load is its curve-axis
// value; recomputed_tokens, computed tokens (total_input_tokens - cached_input_tokens +
// total_output_tokens + recomputed_tokens), prefix_cache_hit_rate, ideal_prefix_hit_rate and
// kv_evictions from `extra`, NaN where the result does not carry them.
KvWallPoint kv_wall_point(const ReportPoint& p);
// Every configuration's KV wall over the ok points (docs/planning.md "The KV wall").
KvWallAnalysis kv_walls(const ReportData& d);

struct ConfigComparison {
  std::string config;
  std::optional<double> throughput_per_gpu;  // at the target interactivity (Steffen on its frontier)
  std::optional<double> tokens_per_dollar;
  std::optional<double> ratio_to_best;  // tokens per dollar / the first configuration's
  bool past_wall = false;               // read off points past its KV wall: its points within do not reach it
  bool at_least = false;                // every point is faster than the target: read at its best one
  // Read at_least within its wall, but all its points (past the wall too) bracket the target and read
  // more there: that reading, for the verdict to name.
  std::optional<double> past_wall_tokens_per_dollar;
  double interpolation_error = 0.0;  // relative, of the tokens-per-dollar reading (pareto.hpp)
};

// Every configuration at `interactivity`, read off the frontier of its points within its KV wall,
// else (marked past_wall) off the frontier of all its points. A configuration whose every point is
// faster than the target is read at its best point (at_least): it meets the target there, so no
// configuration is ranked above one whose own simulated point beats it on both axes. Those read
// within their wall come first, then those read past it, each best tokens per dollar first;
// unknown values last.
std::vector<ConfigComparison> compare_at(const ReportData& d, double interactivity);

// A configuration the comparison at the target could not place, and why.
struct OutOfRange {
  std::string config;
  std::string why;  // "its frontier spans 77.6..141 tok/s/user, below the target"
};

struct Recommendation {
  bool found = false;
  std::string config;
  bool past_wall = false;                     // the recommended reading lies past its configuration's KV wall
  std::string runner_up;                      // the configuration `margin` is measured to
  std::vector<std::string> past_wall_better;  // read more tokens per dollar, but only past their KV wall
  std::vector<std::string> tied;              // within the validation error of `config` (best first)
  std::optional<double> margin;               // best / next best tokens per dollar, minus 1
  std::optional<double> error_bound;          // the largest relative half-width of an interval it overlaps
  double low = 0.0, high = 0.0;               // the winner's tokens-per-dollar interval (see recommend)
  std::vector<OutOfRange> out_of_range;       // configurations the target's comparison leaves out
  std::optional<std::size_t> point_index;     // the chosen point (point-based rule)
  double tokens_per_dollar = 0.0;
  double interactivity = 0.0;
  std::string text;  // one paragraph for the report
};

// With a target interactivity: the configuration with the most tokens per dollar there (Steffen on
// each configuration's frontier), like the InferenceX calculator. Each reading carries an interval,
// value x (1 +/- (config_error + interpolation error)); configurations whose interval overlaps the
// winner's are a tie and named, and those whose frontier does not reach the target are named with
// the range they cover. Otherwise: the ok point meeting
// the SLO with the most tokens per dollar. Deterministic (ties: lower point index / config order).
// The KV wall (compare_at): a configuration reaching the target within its wall always wins over one
// reaching it only past its wall, which is named when it reads more (past_wall_better); when none
// reaches it within, the best past the wall is recommended with past_wall set and the text says so.
// The point rule prefers points within their wall the same way.
Recommendation recommend(const ReportData& d);

// The validation error (a fraction) of a configuration: the MAPE of the cases on its GPU with its
// engine where the set has any, else the larger MAPE of its GPU and engine where the set has cases
// for them, else the set's serving-throughput MAPE; nullopt when none is known.
std::optional<double> config_error(const ReportData& d, const std::string& config);
// The same rule for a configuration known by its GPU and engine (one not simulated yet).
std::optional<double> validation_error(const ValidationErrors& v, const std::string& gpu, const std::string& engine);

// How far to trust a configuration's figures, from its own validation cases: "its own validation:
// 4 cases on B200 with vllm, mean error 7.0 % (MAPE, not a bound), predicting 4.5 % slower than
// measured on average; known misses there: ID (-20.8 %)", or "no validation case on B200 with
// vllm" and what the set says of the GPU and the engine apart.
std::string own_validation_text(const ReportData& d, const std::string& config);

// The calibration the report's points ran with: "none (datasheet figures and default
// efficiencies)", or each profile followed by the sections its points applied ("PROFILE: applied
// gemm: 12 points ...; hbm: ...") from their results (extra.calibration), distinct, in point order,
// each prefixed by its GPU when the points span several; the context's profile names alone for
// results that do not list their sections.
std::string calibration_text(const ReportData& d);

// Host DRAM of one node by use for each configuration (its results' extra.host_memory_per_node_gib,
// at the point nearest the target interactivity, else its first ok point): the "host_memory" table.
// Empty when no result carries the figures.
Table host_memory_table(const ReportData& d);

// How a rate plan's candidate that runs but meets the SLO at no probed rate begins its reason
// (its status is infeasible too, but nothing keeps it from fitting).
inline constexpr const char* kSloMissReason = "never meets the SLO";
// How a plan's candidate that was not simulated because its upper bound cannot beat a simulated one
// begins its reason (planner/bound_prune.hpp; its status is infeasible too, though it may fit).
inline constexpr const char* kBoundPrunedReason = "pruned";

// When every point is infeasible (none ran ok, none failed otherwise, none is an SLO miss): one
// paragraph, the answer first, naming each configuration with the reason (the term) that keeps it
// out; nullopt otherwise. Infeasible is not an SLO miss: callers exit with exit_code::infeasible,
// as `footprint` does.
std::optional<std::string> nothing_fits(const ReportData& d);

// Configurations whose curve does not reach `interactivity`, with the range they cover.
std::vector<OutOfRange> out_of_range_at(const ReportData& d, double interactivity);

}  // namespace engramsim::planner
