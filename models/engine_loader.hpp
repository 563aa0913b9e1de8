// Serving-engine presets (models/engines/NAME.yaml): the host time a scheduler step exposes beyond
// the GPU's work, per engine, each number with its source tag in the file.
//
//   name: vllm
//   description: "..."
//   per_step: 250us       # exposed host time per step
//   per_sequence: 500ns   # ... per sequence in the batch
//
// Every key, its type, default and range: engine_schema() below, printed as the key table of
// docs/cost-model.md ("Engine preset keys").
// A name without '/' and without ".yaml" resolves to <data root>/models/engines/NAME.yaml; anything
// else is a path, so a user's own engine is a file. Times need units; each is in [0, 1 s]. Unknown
// keys, missing fields and bad values throw ConfigError naming file:line:col and the field.
#pragma once

#include <string>
#include <vector>

#include "core/field_table.hpp"
#include "models/roofline_step_model.hpp"

namespace engramsim {

// The preset's keys, declared once: the loader reads them, docs/cost-model.md's key table is theirs.
const FieldTable<HostOverhead>& engine_schema();

HostOverhead load_engine(const std::string& name_or_path);

// Parses preset text; `file_name` stands in for the file in error messages.
HostOverhead engine_from_yaml(const std::string& text, const std::string& file_name);

// The catalog's engine names (models/engines/*.yaml), sorted.
std::vector<std::string> known_engines();

}  // namespace engramsim
