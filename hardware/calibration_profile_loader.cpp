// Reading calibration profiles: the strict loader, whose keys, checks and order are declared once
// in calibration_schema.cpp, and the samples-file check. Every field goes through ConfigNode, so a
// typo, a bare number where a unit belongs, NaN or an unknown section is an error naming
// file:line:col and the field path. (The GPU calibration tool, which has no YAML library, writes
// profiles and never reads them: it compiles calibration_profile.cpp and not this file.)
#include <filesystem>
#include <string>

#include "core/config_input.hpp"
#include "core/config_node.hpp"
#include "hardware/calibration_profile.hpp"
#include "hardware/calibration_schema.hpp"

namespace engramsim {
namespace {

CalibrationProfile parse_calibration_profile_node(const ConfigNode& root) {
  if (!root.is_map()) root.fail("a calibration profile must be a map");
  CalibrationProfile p;
  calibration_profile_schema().read(root, p);
  // Unknown sections (typos such as "dram_gathr") are errors, never silently ignored.
  root.finish();
  return p;
}

}  // namespace

// A samples file above this is refused rather than read (a device that never ends, a wrong path):
// a full calibration writes a few MiB.
constexpr std::size_t kMaxSamplesFileBytes = std::size_t{256} << 20;  // 256 MiB

std::string verify_samples_file(const CalibrationProfile& p, const std::string& profile_path) {
  namespace fs = std::filesystem;
  if (p.provenance.samples_file.empty()) return "the profile names no samples file";
  fs::path f(p.provenance.samples_file);
  if (f.is_relative()) f = fs::path(profile_path).parent_path() / f;
  std::string bytes;
  try {
    bytes = read_input_file(f.string(), kMaxSamplesFileBytes);
  } catch (const ConfigError& e) {
    return "samples file " + f.string() + ": " + e.message();
  }
  const std::string h = samples_hash_of(bytes);
  if (h != p.provenance.samples_hash)
    return "samples file " + f.string() + " has hash " + h + ", the profile records " + p.provenance.samples_hash;
  return "";
}

CalibrationProfile load_calibration_profile(const std::string& path) {
  return parse_calibration_profile_node(ConfigNode::load_file(path));
}

CalibrationProfile parse_calibration_profile(const std::string& yaml_text, const std::string& name) {
  ConfigNode root = ConfigNode::load_string(yaml_text, name);
  if (!root.raw().IsDefined() || root.raw().IsNull()) throw ConfigError({name, 1, 1}, "", "profile is empty");
  return parse_calibration_profile_node(root);
}

}  // namespace engramsim
