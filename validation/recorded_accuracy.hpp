// The accuracy the validation set has reached, as recorded in the repository
// (scenarios/validation/recorded-accuracy.yaml), and the ratchet that holds every later run to it:
// no metric kind's MAPE may rise above its recorded value and the list of known misses may not
// grow. When the model improves, the file is lowered (MAPE) or shortened (known misses) in the
// same change, so accuracy can only move one way.
//
// File format (strict; unknown keys are ConfigErrors naming file:line:col):
//   schema_version: 1
//   mape_percent: {step: 7.8, serving_throughput: 36.3, latency: 8.7}   # ceilings, in percent
//   known_misses: [case id, ...]                                        # cases outside tolerance
//   by_gpu:    {h200-sxm: {cases: 12, mape_percent: 26.9, lean_percent: 12.3}, ...}  # step, throughput
//                                                                                   # and latency cases
//   by_engine: {trtllm: {cases: 13, mape_percent: 40.1, lean_percent: 30.2}, ...}   # likewise, by engine
//   by_gpu_engine: {b200/vllm: {cases: 4, mape_percent: 7.0, lean_percent: 4.5,
//                               known_misses: [id, ...]}, ...}   # both together; known_misses optional
// Kind keys are kind_key() names. Every kind with a MAPE target (mape_target) must be recorded.
// The groups are what planning reports quote for the GPU and engine of each configuration
// (validation_accuracy_for); the ratchet holds their MAPE like the kinds'. A group's lean (its mean
// speed_error, > 0 optimistic) is not a ratchet: the record must state the run's, to a tenth.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "validation/validation_case.hpp"
#include "validation/validation_runner.hpp"

namespace engramsim::validation {

// "step", "serving_throughput", "latency", "engram_penalty", "ratio".
const char* kind_key(MetricKind k);

// One group of cases (a GPU, an engine, a GPU with an engine) as recorded.
struct RecordedGroup {
  int cases = 0;
  double mape = 0.0;  // ceiling, as a fraction
  double lean = 0.0;  // the run's mean speed_error, as a fraction (recorded to a tenth of a percent)
  // Its known misses (by_gpu_engine only): those among the cases the ratchet runs, and the sweep
  // cases' (run by validate-set only) on the same GPU and engine.
  std::vector<std::string> known_misses;
};

struct RecordedAccuracy {
  std::string file;
  std::map<MetricKind, double> mape;      // ceilings, as fractions
  std::vector<std::string> known_misses;  // case ids, in file order
  std::map<std::string, RecordedGroup> by_gpu;
  std::map<std::string, RecordedGroup> by_engine;
  std::map<std::string, RecordedGroup> by_gpu_engine;  // keyed gpu_engine_key()
};

// "MAPE 26.9 % over 12 validation cases, predicting 12.3 % faster than measured on average" for a
// recorded group, or nullopt when no case of the validation set ran on that GPU / engine.
std::optional<std::string> validation_accuracy_for(const std::map<std::string, RecordedGroup>& groups,
                                                   const std::string& name);

RecordedAccuracy recorded_accuracy_from_yaml(const std::string& text, const std::string& file_name);
RecordedAccuracy load_recorded_accuracy(const std::string& path);
// <data root>/scenarios/validation/recorded-accuracy.yaml
std::string default_recorded_accuracy_path();

struct RatchetResult {
  std::vector<std::string> problems;  // each one a reason the ratchet fails
  std::vector<std::string> notes;     // improvements that could be recorded (not failures)
  bool passed() const { return problems.empty(); }
};

// Holds a report of the whole set to the record: a case outside tolerance that is not a known
// miss, a failed run, a MAPE above its ceiling, a known miss not recorded, a recorded miss that is
// no longer one (record the improvement), a known miss now within tolerance, and a GPU, engine or
// GPU-with-engine group that is missing from the record, has another case count or a MAPE above
// its ceiling, or (GPU with engine) runs a known miss its record does not list or lists one the run
// holds and passes, are problems; a MAPE more than half a point below its ceiling is a note. A recorded known miss
// whose case the report does not hold (a run of part of the set, e.g. without the sweep cases) is not judged.
RatchetResult check_ratchet(const ValidationReport& report, const RecordedAccuracy& recorded);

}  // namespace engramsim::validation
