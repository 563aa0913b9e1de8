// Where engramsim finds its data files (catalog, scenarios, traces).
//
// The data root is, in order: the ENGRAMSIM_DATA_ROOT environment variable if set; the source
// tree the binary was built from (compiled in). Catalog lookups by name ("b300") resolve to
// <root>/hardware/gpus/b300.yaml and so on; a name containing '/' or ending in .yaml is a path.
#pragma once

#include <string>

namespace engramsim {

std::string data_root();
// Resolves a catalog entry: kind is a folder under the data root ("hardware/gpus", "models/cards").
std::string resolve_catalog_path(const std::string& kind_folder, const std::string& name_or_path);
std::string engramsim_version();

}  // namespace engramsim
