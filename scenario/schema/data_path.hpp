// Data-file paths named in scenario files (traces, length tables): where a relative path resolves.
// The `workload:` section itself is parsed by scenario/schema/scenario_workload.hpp; the scenario, its presets
// and the planner resolve the files they name here.
#pragma once

#include <string>

#include "core/config_node.hpp"

namespace engramsim::scenario {

// Resolves a data-file path named in `node`'s file: absolute as is; else relative to that file's
// directory if it exists there; else relative to the data root.
std::string resolve_data_path(const ConfigNode& node, const std::string& path);

}  // namespace engramsim::scenario
