// Serving-engine presets (models/engines/NAME.yaml): the host time a scheduler step exposes beyond
// the GPU's work, per engine, each number with its source tag in the file.
//
//   name: vllm
//   description: "..."
//   per_step: 250us                       # exposed host time per step
//   per_sequence: 500ns                   # ... per sequence in the batch
//   piecewise_per_layer: 130us            # optional: eager host time per layer of a PIECEWISE step
//   engram_lookup_on_host_thread: false   # optional; true: the lookup is prepared before the forward
//   engram_lookup_per_step: 175us         # required when true: per Engram layer and step
//   engram_lookup_per_position: 25ns      # required when true: per position per Engram layer
//   engram_side_stream_sm_share: 0.5      # optional, [0, 0.95]: SMs the dram-tier UVA gather holds
//   engram_ssd_path: page_cache           # optional, direct (default) | page_cache; page_cache requires:
//   engram_host_round_trip: 100us         #   fixed host calls per Engram layer and step
//   engram_host_dedup_per_id: 20ns        #   host dedup per row id
//   engram_page_fault_concurrency: 8      #   page faults in flight per rank
//   engram_host_gather_overlap: false     #   optional: the round trip overlaps the layers before
//   kernel_time_scale: 1.0                # optional, [1, 100]: GPU op times x this (untuned kernels)
//
// A name without '/' and without ".yaml" resolves to <data root>/models/engines/NAME.yaml; anything
// else is a path, so a user's own engine is a file. Times need units; each is in [0, 1 s]. Unknown
// keys, missing fields and bad values throw ConfigError naming file:line:col and the field.
#pragma once

#include <string>
#include <vector>

#include "models/roofline_step_model.hpp"

namespace engramsim {

HostOverhead load_engine(const std::string& name_or_path);

// Parses preset text; `file_name` stands in for the file in error messages.
HostOverhead engine_from_yaml(const std::string& text, const std::string& file_name);

// The catalog's engine names (models/engines/*.yaml), sorted.
std::vector<std::string> known_engines();

}  // namespace engramsim
