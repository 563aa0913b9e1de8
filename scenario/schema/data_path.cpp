#include "scenario/schema/data_path.hpp"

#include <filesystem>

#include "core/paths.hpp"

namespace engramsim::scenario {

std::string resolve_data_path(const ConfigNode& node, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.is_absolute()) return path;
  if (!node.file().empty()) {
    const fs::path beside = fs::path(node.file()).parent_path() / p;
    std::error_code ec;  // a path the file system refuses (a name too long) is not beside the file
    if (fs::exists(beside, ec)) return beside.string();
  }
  return (fs::path(data_root()) / p).string();
}

}  // namespace engramsim::scenario
