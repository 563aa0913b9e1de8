#include "core/paths.hpp"

#include <cstdlib>

namespace engramsim {

std::string data_root() {
  if (const char* env = std::getenv("ENGRAMSIM_DATA_ROOT"); env != nullptr && *env != '\0') return env;
  return ENGRAMSIM_SOURCE_ROOT;
}

std::string resolve_catalog_path(const std::string& kind_folder, const std::string& name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".yaml");
  if (is_path) return name_or_path;
  return data_root() + "/" + kind_folder + "/" + name_or_path + ".yaml";
}

std::string engramsim_version() { return ENGRAMSIM_VERSION; }

}  // namespace engramsim
