// Evaluates a validation set: each supported case is reproduced with the default efficiencies of
// its GPU (no per-case knob), or with the calibration profile given for that GPU, and its
// prediction compared with the published value under the case's tolerance.
//
//   step cases     build a RooflineStepModel for the case's card (precision overrides applied, the
//                  drafter removed unless spec_decode), node and layout, and evaluate the exact
//                  published batch. Metrics: *_step_time_s = StepCost::total; layer_linear_ops_time_s
//                  = sum of the named ops of one layer (StepTimeModel::breakdown);
//                  input/output_tput_per_node = tokens per GPU in the step / step time x the node's
//                  GPU count.
//   serving cases  read the scenario file, expand its compare variants with the caller's override
//                  function (apply the case's `set:` first), parse, replace card precisions, build,
//                  then run the simulator (a decode pool served alone through DecodePoolStepModel;
//                  a disaggregated scenario whole, its throughputs per GPU of the pool `pool:`
//                  names; a target interactivity picks the closed-loop concurrency on the step
//                  model first). Metrics come from the run's Summary, or with `span: loaded` from
//                  the requests that finish between the first measured arrival and the last
//                  arrival; a penalty or ratio compares two variants.
//   sweep cases    run a sweep scenario through EvalOptions::evaluate_sweep and read the
//                  configurations' frontiers (tokens per dollar or throughput at an interactivity,
//                  their ratio, or the largest frontier ratio over the overlap).
//   footprint cases compute one replica's HBM footprint: KV pool or weights per GPU in GiB (a KV
//                  pool below zero is the shortfall of a deployment that does not fit), or fits (1/0).
//                  Runs are shared between cases with the same reproduction and spread over `jobs`
//                  threads (results do not depend on it).
// Tolerances are those of the metric kind (kind_tolerance) unless the case states a narrower one; a
// case outside it is `known_miss` when the cases file lists it with a reason, `fail` otherwise.
// Errors: relative (predicted - published) / published for every case, absolute for abs and abs_pp
// tolerances. MAPE per kind (known misses included) = mean |relative error| over the evaluated cases of that kind; the
// Engram penalty kind also reports the mean absolute error in percentage points.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hardware/calibration_profile.hpp"
#include "hardware/node_spec.hpp"
#include "scenario/schema/scenario_document.hpp"
#include "validation/validation_case.hpp"

namespace engramsim::validation {

// What a sweep case read off its sweep (EvalOptions::evaluate_sweep).
struct SweepReading {
  double value = 0.0;  // the case's metric
  std::string engine;  // the engine preset of the configuration read
  std::string detail;  // what ran
};
// Runs (or reuses) the case's sweep and reads its metric; ConfigError on bad input, another
// exception when the value cannot be read (a configuration missing, the interactivity out of range).
using SweepEvalFn = std::function<SweepReading(const ValidationCase&, int jobs)>;

// A calibration profile given to the evaluation, with the path it was read from.
struct EvalOptions {
  int jobs = 1;                   // threads for serving runs
  std::vector<std::string> only;  // case ids to evaluate; empty = all
  // Measured profiles (engramsim calibrate). A case uses the one choose_calibration picks for its
  // node's GPU (measured on it, else on a variant of its chip, else host sections only); cases on
  // other GPUs keep the default efficiencies. Tolerances stay those of the default efficiencies.
  std::vector<CalibrationCandidate> calibrations;
  // Sweep cases (reproduce.sweep): study/validation_sweep.hpp supplies it; without it those
  // cases are errors.
  SweepEvalFn evaluate_sweep;
};

// The profile of `options` that applies to a case on `node`, or null.
const CalibrationCandidate* calibration_for(const EvalOptions& options, const NodeSpec& node);

// known_miss: outside its tolerance and listed as such in the cases file (with its reason).
enum class CaseStatus { pass, fail, known_miss, unsupported, error };
// How reports show a status (not parsed).
inline constexpr EnumNames<CaseStatus, 5> kCaseStatusNames{{{
    {CaseStatus::pass, "pass"},
    {CaseStatus::fail, "FAIL"},
    {CaseStatus::known_miss, "known miss"},
    {CaseStatus::unsupported, "unsupported"},
    {CaseStatus::error, "ERROR"},
}}};
const char* to_string(CaseStatus s);

struct CaseResult {
  std::string id;
  CaseLevel level = CaseLevel::step;
  std::string metric;
  MetricKind kind = MetricKind::step;
  std::string unit;
  double published = 0.0;
  double predicted = 0.0;  // NaN unless evaluated
  double rel_error = 0.0;  // (predicted - published) / published; NaN unless evaluated
  double abs_error = 0.0;  // predicted - published
  std::optional<Tolerance> tolerance;
  std::string known_miss;  // the case file's reason, when listed as a known miss
  CaseStatus status = CaseStatus::unsupported;
  std::string source;
  std::string gpu;
  std::string model;
  std::string engine;       // the engine preset the reproduction ran (its name); empty unless evaluated
                            // and for operator-level step cases, which involve no engine
  std::string batch;        // batch_regime of the step or run; empty for footprint and sweep cases
  std::string detail;       // what ran: layout, batch or workload, simulated time
  std::string calibration;  // path of the profile applied; empty: default efficiencies
  std::string message;      // unsupported reason or error
  double wall_s = 0.0;      // host time of the case's own runs
};

struct KindSummary {
  MetricKind kind = MetricKind::step;
  int cases = 0;
  int failed = 0;  // outside tolerance and not a known miss
  int known_misses = 0;
  double mape = 0.0;          // mean |relative error|, as a fraction
  double mean_abs_error = 0;  // metric units (percentage points for the penalty)
  double lean = 0.0;          // mean speed error (speed_error), as a fraction; step, throughput, latency only
};

// MAPE of one group of cases (a source, a GPU) over the metric kinds whose error is relative
// (step-level, serving throughput, serving latency), with the case furthest off.
struct GroupSummary {
  std::string group;
  int cases = 0;
  double mape = 0.0;                      // mean |relative error|, as a fraction
  double lean = 0.0;                      // mean speed error (speed_error), as a fraction: > 0 the model is optimistic
  std::string worst_id;                   // the case with the largest |relative error|
  double worst_rel = 0.0;                 // its signed relative error
  std::vector<std::string> known_misses;  // its cases run as known misses, in result order
};

// A case's relative error signed by what it says of speed: > 0 when the model predicts the
// deployment faster than measured (a throughput above it, a step time or latency below it), < 0
// when slower. Its mean over a group is the group's lean: how optimistic a plan on that GPU or
// engine is. 0 for the kinds that are neither a rate nor a time (penalty, ratio, footprint, traffic).
double speed_error(MetricKind kind, double rel_error);
// Step-level, serving throughput and latency: the kinds whose cases measure a speed.
bool is_speed_kind(MetricKind kind);

// The batch a case ran at, for grouping: "decode 1-8", "decode 9-64", "decode 65-256" or
// "decode 257+" by the decode rows of a step (a step case's decode sequences, a serving run's mean
// decode rows per step of a replica), "prefill" for a step or pool with none.
std::string batch_regime(double decode_rows_per_step);

struct ValidationReport {
  std::string file;
  std::vector<CaseResult> results;  // in file order
  std::vector<KindSummary> kinds;   // kinds with at least one evaluated case, in enum order
  int evaluated() const;            // pass, fail or known miss
  int failed() const;               // fail or error
  int known_misses() const;
  bool all_within_tolerance() const { return failed() == 0; }
  // Known misses that have come within tolerance (status pass): their entries can be removed.
  std::vector<std::string> stale_known_misses() const;
  // Kinds whose MAPE is above mape_target (known misses included).
  std::vector<MetricKind> targets_missed() const;
  // The gate: every case within tolerance or a known miss, and every MAPE target met.
  bool gate_passed() const { return all_within_tolerance() && targets_missed().empty(); }
};

ValidationReport evaluate_set(const ValidationSet& set, const EvalOptions& options);

// Per-kind MAPE over evaluated results (used by evaluate_set; exposed for tests).
std::vector<KindSummary> summarize_kinds(const std::vector<CaseResult>& results);

// Per-group MAPE over the evaluated step-level, serving-throughput and latency results, grouped by
// a field of the result (e.g. &CaseResult::source, &CaseResult::gpu, &CaseResult::engine); groups
// in name order, except &CaseResult::batch, from the smallest decode batch to prefill; results whose
// field is empty are left out.
std::vector<GroupSummary> summarize_by(const std::vector<CaseResult>& results, std::string CaseResult::*field);
// The same by GPU and engine together, grouped as "gpu/engine" (gpu_engine_key); cases without both
// are left out. What a recommendation quotes as its configuration's own validation.
std::vector<GroupSummary> summarize_by_gpu_engine(const std::vector<CaseResult>& results);
std::string gpu_engine_key(const std::string& gpu, const std::string& engine);

}  // namespace engramsim::validation
