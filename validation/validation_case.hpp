// The validation set (scenarios/validation/cases.yaml) as validated structs: one published
// measurement per case, how engramsim reproduces it, and the tolerance the prediction must meet.
//
// A case records what was published (`published`, `source`, `config` as the source states it) and,
// added for the accuracy gate:
//   reproduce:   how to rebuild the measurement, one of
//                  step:    {model, node, tp, ep, attention, engine, precision, spec_decode,
//                            decode: {seqs, context}, prefill: {chunks, tokens, cached}, ops, layer}
//                           the step model on the exact published batch (ops: sum those ops of one
//                           layer instead of the whole step);
//                  serving: {scenario, variant, baseline, set, precision, pool, span,
//                            cached_input_fraction, target_interactivity}
//                           a scenario file run through the simulator;
//                  sweep:   {scenario, set, config, baseline, at_interactivity}
//                           a sweep scenario run through the planner (docs/planning.md), read off
//                           the configurations' frontiers: `config` (and `baseline` for ratios)
//                           name configurations as the report labels them ("tier=dram fetch=zero_copy");
//                  footprint: {model, node, tp, ep, attention, tier, max_num_batched_tokens,
//                           max_num_seqs, max_model_len, gpu_memory_utilization, block_size}
//                           the HBM footprint of one replica (level footprint);
//                  same_as: <case id>  (another case's reproduction; its run is shared)
//   published.range: [lo, hi]  where the source states a bound or a range ("up to 1.6x", "2-4x
//                worse") instead of a value: the range is the tolerance (no `tolerance:` then), and
//                `value` is the central reading the error is measured from;
//   tolerance:   optional {rel | abs | abs_pp: X, why: "one line"}: only narrower than the tolerance
//                of the case's metric kind (kind_tolerance), never wider; the gate holds every case
//                to its kind's tolerance otherwise, stated here once and never taken from the
//                error a case achieves (docs/validation.md);
//   known_miss:  "reason": the case is known to lie outside its tolerance, and why. It still counts
//                in the MAPE; the gate fails on a miss that is not listed, and reports a listed one
//                that has come within tolerance so the entry can be removed;
//   unsupported: "reason"  instead of reproduce and tolerance, when engramsim cannot represent the
//                measurement at all.
// Every case has exactly one of reproduce or unsupported. `config` and `also_published` are the
// sources' free-form records and are not interpreted (config.model and config.gpu are read for the
// coverage report); every other key is read strictly: unknown keys, wrong types and bad values are
// ConfigErrors naming file:line:col and the field path. The keys are declared once, in
// validation/case_schema.hpp, whose table docs/validation.md shows ("Case keys").
//
// Metric units: *_time_s in seconds and *_ms in milliseconds (published as unit strings such as
// "91.9ms"); throughputs in tokens/s; throughput_penalty_pct in percent; ratios plain.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "hardware/gpu_spec.hpp"
#include "models/expert_balance.hpp"
#include "models/model_card.hpp"
#include "scenario/schema/scenario_document.hpp"

namespace engramsim::validation {

enum class CaseLevel { step, serving, footprint };
inline constexpr EnumNames<CaseLevel, 3> kCaseLevelNames{{{
    {CaseLevel::step, "step"},
    {CaseLevel::serving, "serving"},
    {CaseLevel::footprint, "footprint"},
}}};
const char* to_string(CaseLevel l);

// How errors are grouped for MAPE: the three kinds plus the Engram offload penalty (in
// percentage points), ratios between two runs, the HBM footprint and the traffic a replay sends
// and the prefix cache serves (mean input per request, prefix hit rate).
enum class MetricKind { step, serving_throughput, latency, engram_penalty, ratio, footprint, traffic };
// Two spellings: the words reports show (to_string), and the keys a recorded-accuracy file
// uses (recorded_accuracy.hpp kind_key; parsed there).
inline constexpr EnumNames<MetricKind, 7> kMetricKindNames{{{
    {MetricKind::step, "step-level"},
    {MetricKind::serving_throughput, "serving throughput"},
    {MetricKind::latency, "serving latency"},
    {MetricKind::engram_penalty, "Engram offload penalty"},
    {MetricKind::ratio, "ratio of two runs"},
    {MetricKind::footprint, "HBM footprint"},
    {MetricKind::traffic, "replayed traffic"},
}}};
inline constexpr EnumNames<MetricKind, 7> kMetricKindKeys{{{
    {MetricKind::step, "step"},
    {MetricKind::serving_throughput, "serving_throughput"},
    {MetricKind::latency, "latency"},
    {MetricKind::engram_penalty, "engram_penalty"},
    {MetricKind::ratio, "ratio"},
    {MetricKind::footprint, "footprint"},
    {MetricKind::traffic, "traffic"},
}}};
const char* to_string(MetricKind k);

enum class ToleranceType { rel, abs, abs_pp, range };
inline constexpr EnumNames<ToleranceType, 4> kToleranceTypeNames{{{
    {ToleranceType::rel, "rel"},
    {ToleranceType::abs, "abs"},
    {ToleranceType::abs_pp, "abs_pp"},
    {ToleranceType::range, "range"},
}}};

struct Tolerance {
  ToleranceType type = ToleranceType::rel;
  double value = 0.0;  // rel: fraction of the published value; abs / abs_pp: metric units
  std::string why;
  double lo = 0.0, hi = 0.0;  // range: the published range, inclusive
  // Whether an error (relative for rel, absolute otherwise) is within the tolerance.
  bool holds(double predicted, double published) const;
  std::string describe() const;  // "±12%", "±0.05", "±1.5 pp", "[1.3, 1.65]"
};

// Card precisions replaced for a run (quantised checkpoints the card does not describe).
struct PrecisionOverrides {
  std::optional<Precision> attention, dense_ffn, experts, embedding, lm_head, kv_cache;
  std::optional<double> attention_scale_bytes_per_element, dense_ffn_scale_bytes_per_element,
      experts_scale_bytes_per_element;
  bool any() const;
  void apply(ModelCard& card) const;
  std::string describe() const;  // "attention fp8, dense_ffn fp8, kv fp8"
};

struct StepReproduction {
  std::string model;  // card name or path (resolved against cases.yaml's folder)
  std::string node;   // node name or path (likewise)
  int tp = 1;
  int ep = 1;
  bool dp_attention = false;
  ExpertBalance expert_balance{ExpertPlacement::static_order, 0};  // as a scenario's deployment
  std::string engine = "vllm";  // an engine preset: catalog name, or a file resolved beside the cases file
  PrecisionOverrides precision;
  bool spec_decode = false;  // off: the card's drafter removed
  int decode_seqs = 0;       // per replica
  int decode_context = 0;
  int prefill_chunks = 0;  // per replica
  int prefill_tokens = 0;  // per chunk
  int prefill_cached = 0;
  std::vector<std::string> ops;  // non-empty: sum these ops of `layer` instead of the step
  int layer = 0;
};

// One pool of a PD-disaggregated deployment. On a colocated scenario the pool is served alone:
// `prefill` runs prompts only (the scenario gives one output token); `decode` charges only decode
// sequences (prompt KV arrives from the prefill pool, its transfer hidden). On a disaggregated
// scenario the whole deployment runs and the pool names whose GPUs the per-GPU and per-node
// throughputs are counted over: the prefill pool's for input, the decode pool's for output.
// `colocated` is the scenario as written, its throughputs over all its GPUs.
enum class Pool { colocated, prefill, decode };
inline constexpr EnumNames<Pool, 3> kPoolNames{{{
    {Pool::colocated, "colocated"},
    {Pool::prefill, "prefill"},
    {Pool::decode, "decode"},
}}};
const char* to_string(Pool p);

// The span a serving case reads its throughputs over. `measured`: the run summary's (first arrival,
// or first measured arrival after a warm-up, to the last measured finish), which holds the ramp at
// the start and the drain at the end of a closed loop. `loaded`: from the first measured arrival to
// the last arrival, while every client keeps a request in flight, counting the tokens of the
// requests that finish within it: the steady rate a serving log shows at full load, for figures
// published that way.
enum class Span { measured, loaded };
inline constexpr EnumNames<Span, 2> kSpanNames{{{
    {Span::measured, "measured"},
    {Span::loaded, "loaded"},
}}};
const char* to_string(Span s);

struct ServingReproduction {
  std::string scenario;                    // resolved path
  std::string variant;                     // compare variant to read; empty: the scenario has no compare list
  std::string baseline;                    // second variant for penalty and ratio metrics
  std::vector<scenario::SetArgument> set;  // overrides (e.g. fewer requests for CI), in file order
  // Overrides applied after `set` for the second run of a penalty or ratio (the same variant, or
  // `baseline`): two load points of one scenario, such as two concurrencies.
  std::vector<scenario::SetArgument> baseline_set;
  PrecisionOverrides precision;
  Pool pool = Pool::colocated;
  Span span = Span::measured;
  // Published share of input tokens served from a KV cache engramsim does not model (DeepSeek's
  // on-disk context cache): the computed input rate is divided by (1 - fraction).
  double cached_input_fraction = 0.0;
  // > 0: closed loop at the concurrency whose steady decode step gives this many tok/s per user
  // (found on the step model at the workload's mean context), for operating points published by
  // interactivity rather than by concurrency. On a disaggregated scenario that batch is the decode
  // pool's running limit, and the clients exceed it by the prefill pool's running limit, so that
  // requests on their way through the prefill pool do not leave the decode pool short.
  double target_interactivity = 0.0;
};

// A sweep read off the planner's frontiers (docs/planning.md §4). The CLI and the tests supply the
// evaluation (EvalOptions::evaluate_sweep), since the simulator library does not link the planner.
struct SweepReproduction {
  std::string scenario;                    // resolved path
  std::vector<scenario::SetArgument> set;  // overrides applied to the file before it is expanded
  std::string config;                      // the configuration read
  std::string baseline;                    // the second configuration of a ratio
  double at_interactivity = 0.0;           // tok/s/user (P90 E2E-normalised under AgentX); 0 for frontier_ratio_max
};

// One replica's HBM footprint (models/footprint.hpp), with the scenario keys' defaults.
struct FootprintReproduction {
  std::string model;  // card name or path
  std::string node;   // node name or path
  int tp = 1;
  int ep = 1;
  bool dp_attention = false;
  std::string tier = "dram";  // hbm | dram | ssd | none
  std::int64_t max_num_batched_tokens = 8192;
  std::int64_t max_num_seqs = 256;
  std::int64_t max_model_len = 0;
  double gpu_memory_utilization = 0.9;
  int block_size = 16;
  std::string engine = "vllm";                  // engine preset: its start-up memory profile terms
  std::int64_t max_cudagraph_capture_size = 0;  // tokens; 0: no capture-size term
};

struct ValidationCase {
  std::string id;
  SourceLocation where;
  CaseLevel level = CaseLevel::step;
  std::string metric;
  MetricKind kind = MetricKind::step;
  double published = 0.0;      // in the metric's unit (see above)
  std::string published_text;  // as written, for reports
  std::string unit;            // display unit of the metric
  std::string source;          // source.name
  std::string source_url;
  std::string model;           // config.model (the config.same_as case's when the config is shared)
  std::string gpu;             // config.gpu (likewise)
  std::string config_same_as;  // config.same_as: the case whose published setup this one shares
  std::string representable;   // full | partial | no
  std::string notes;
  std::optional<StepReproduction> step;
  std::optional<ServingReproduction> serving;
  std::optional<SweepReproduction> sweep;
  std::optional<FootprintReproduction> footprint;
  std::string same_as;                 // reproduce.same_as, resolved into step/serving by the loader
  std::optional<Tolerance> tolerance;  // the kind's, or the case's narrower one; none if unsupported
  std::string known_miss;              // reason; non-empty: expected outside its tolerance
  std::string unsupported;             // reason; non-empty: not evaluated
  bool supported() const { return unsupported.empty(); }
};

struct ValidationSet {
  std::string file;
  std::vector<ValidationCase> cases;  // in file order
  const ValidationCase* find(const std::string& id) const;
};

ValidationSet load_validation_set(const std::string& path);
// `file_name` stands in for the file in messages; relative paths resolve against `base_dir`.
ValidationSet validation_set_from_yaml(const std::string& text, const std::string& file_name,
                                       const std::string& base_dir);

// The shipped set: <data root>/scenarios/validation/cases.yaml.
std::string default_validation_set_path();

// The tolerance every case of a metric kind is held to (serving throughput ±20 %, serving latency
// ±15 %, step ±10 %, Engram penalty ±1.5 pp, ratio of two runs ±0.05, footprint ±20 %, replayed
// traffic ±15 %), declared before any run.
Tolerance kind_tolerance(MetricKind k);

// The acceptance target on a kind's MAPE (fraction: step 0.10, serving throughput 0.15, latency
// 0.15); NaN for kinds without one.
double mape_target(MetricKind k);

// Whether a serving reproduction has a second run (a baseline variant or baseline overrides), and
// that run: `r` with `baseline_set` appended to `set`, reading `baseline` (else `variant`).
bool has_baseline(const ServingReproduction& r);
ServingReproduction baseline_run(const ServingReproduction& r);

// Metric -> kind and display unit; nullopt for a metric the evaluator cannot compute.
std::optional<MetricKind> metric_kind(const std::string& metric, CaseLevel level);
std::string metric_unit(const std::string& metric);

}  // namespace engramsim::validation
