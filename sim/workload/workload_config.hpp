// The `workload:` section of a scenario file -> WorkloadSpec. Parsed once, at the edge: the spec
// holds validated parameters and a factory; no YAML node survives parsing.
//
// Either a trace replay:
//   workload:
//     trace: scenarios/traces/AzureLLMInferenceTrace_conv.csv  # relative: to the scenario file,
//                                                               # then to the data root
//     format: auto            # canonical | azure | mooncake | vidur | burstgpt | bailian
//     hash_block_tokens: 512  # optional, the format's default otherwise
//     skip_zero_output: false
//     rebase: true
//     window: {start: 0s, end: 10min}
//     time_scale: 1.0         # stretch the timeline
//     rate_scale: 2.0         # offer twice the request rate
// or a generated workload:
//   workload:
//     arrival: {process: poisson, rate_per_s: 5}           # gamma: add cv
//     lengths: {distribution: uniform_ratio, isl: 1024, osl: 1024, ratio: 0.8}
//              # fixed: isl, osl; empirical: file (+ max_total_tokens)
//     num_requests: 2000      # and/or duration: 10min
// and for both:
//     concurrency: 64         # closed loop with 64 clients (arrival times then unused)
//     max_requests: 5000
// Unknown keys and bad values throw ConfigError with file:line:col and the field path.
#pragma once

#include <string>

#include "core/config_node.hpp"
#include "sim/serving/run_simulation.hpp"

namespace engramsim::sim {

WorkloadSpec parse_workload(const ConfigNode& node);
// Resolves a data-file path named in `node`'s file: absolute as is; else relative to that file's
// directory if it exists there; else relative to the data root.
std::string resolve_data_path(const ConfigNode& node, const std::string& path);

}  // namespace engramsim::sim
