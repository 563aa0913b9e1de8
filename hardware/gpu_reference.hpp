// Where a node file's `gpu:` points: a catalog name resolves under hardware/gpus (of the data
// root); a relative path resolves beside the node file. The node loader reads the GPU from here,
// and the sweep records that file's content hash (planner/sweep_manifest.hpp).
#pragma once

#include <string>

namespace engramsim {

std::string resolve_gpu_reference(const std::string& ref, const std::string& node_file);

}  // namespace engramsim
