// Sweep cases of the validation set (scenarios/validation/cases.yaml, reproduce.sweep): the planner's
// half of validation::EvalOptions::evaluate_sweep. A case's sweep scenario is loaded with its `set:`
// overrides (as `engramsim sweep --set`), every point is evaluated in-process over `jobs` threads
// (nothing written), and the case's metric is read off the configurations' frontiers exactly as the
// report reads them (docs/planning.md §4):
//   total_tokens_per_dollar, total_tput_per_gpu   `config` at `at_interactivity` (compare_at)
//   tokens_per_dollar_ratio, tput_ratio_at_interactivity   config / baseline at `at_interactivity`
//   frontier_ratio_max   the largest throughput-frontier ratio config / baseline over their overlap
// A configuration is named by its report label (config_label: the swept keys but the curve axis,
// "tier=dram fetch=zero_copy"). Each distinct (scenario, set) sweep runs once per evaluator; cases
// sharing it read the same results. A label the sweep does not have is a ConfigError listing the
// labels it has; an interactivity outside a frontier's range is a runtime_error (the case errors).
#pragma once

#include "validation/validation_runner.hpp"

namespace engramsim::study {

validation::SweepEvalFn make_validation_sweep_evaluator();

}  // namespace engramsim::study
