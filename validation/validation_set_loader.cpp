// Reading a validation set (declared in validation_case.hpp): each case through its schema
// (case_schema.hpp), then the `same_as` links resolved once every case is known. Apart from
// validation_case.cpp so that the case types and the schema that reads them do not include each
// other.
#include <filesystem>
#include <map>
#include <string>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "validation/case_schema.hpp"
#include "validation/validation_case.hpp"

namespace engramsim::validation {
namespace {

ValidationCase parse_case(const ConfigNode& n, const std::string& base_dir) {
  CaseInput in;
  in.c.where = n.location();
  in.base_dir = base_dir;
  case_schema().read(n, in);
  n.finish();
  return std::move(in.c);
}

}  // namespace

ValidationSet validation_set_from_yaml(const std::string& text, const std::string& file_name,
                                       const std::string& base_dir) {
  const ConfigNode root = ConfigNode::load_string(text, file_name);
  if (!root.is_map()) root.fail("expected a map with schema_version and cases");
  const std::int64_t version = root.integer("schema_version", 1, 1);
  (void)version;
  ValidationSet set;
  set.file = file_name;
  std::map<std::string, std::size_t> index;
  for (const ConfigNode& e : root.child("cases").elements()) {
    ValidationCase c = parse_case(e, base_dir);
    if (index.count(c.id)) e.fail_key("id", "duplicate case id '" + c.id + "'");
    index[c.id] = set.cases.size();
    set.cases.push_back(std::move(c));
  }
  root.finish();
  if (set.cases.empty()) root.fail_key("cases", "the set is empty");
  for (auto& c : set.cases) {
    if (c.config_same_as.empty()) continue;
    const auto it = index.find(c.config_same_as);
    if (it == index.end()) throw ConfigError(c.where, c.id + ".config.same_as", "no case '" + c.config_same_as + "'");
    if (c.model.empty()) c.model = set.cases[it->second].model;
    if (c.gpu.empty()) c.gpu = set.cases[it->second].gpu;
  }
  // Resolve reproduce.same_as after every case is known (one level: a target reuses nothing).
  for (auto& c : set.cases) {
    if (!c.supported() || c.step || c.serving || c.sweep || c.footprint) continue;
    const auto it = index.find(c.same_as);
    if (it == index.end()) throw ConfigError(c.where, c.id + ".reproduce.same_as", "no case '" + c.same_as + "'");
    const ValidationCase& target = set.cases[it->second];
    if (!target.step && !target.serving && !target.sweep && !target.footprint)
      throw ConfigError(c.where, c.id + ".reproduce.same_as", "'" + c.same_as + "' has no reproduction of its own");
    if (target.level != c.level)
      throw ConfigError(c.where, c.id + ".reproduce.same_as", "'" + c.same_as + "' is at another level");
    c.step = target.step;
    c.serving = target.serving;
    c.sweep = target.sweep;
    c.footprint = target.footprint;
  }
  return set;
}

ValidationSet load_validation_set(const std::string& path) {
  return validation_set_from_yaml(ConfigNode::read_file(path), path,
                                  std::filesystem::path(path).parent_path().string());
}

}  // namespace engramsim::validation
