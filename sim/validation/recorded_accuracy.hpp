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
// Kind keys are kind_key() names. Every kind with a MAPE target (mape_target) must be recorded.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/validation/validation_case.hpp"
#include "sim/validation/validation_runner.hpp"

namespace engramsim::validation {

// "step", "serving_throughput", "latency", "engram_penalty", "ratio".
const char* kind_key(MetricKind k);

struct RecordedAccuracy {
  std::string file;
  std::map<MetricKind, double> mape;     // ceilings, as fractions
  std::vector<std::string> known_misses;  // case ids, in file order
};

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
// no longer one (record the improvement) and a known miss now within tolerance are problems; a MAPE
// more than half a point below its ceiling is a note.
RatchetResult check_ratchet(const ValidationReport& report, const RecordedAccuracy& recorded);

}  // namespace engramsim::validation
