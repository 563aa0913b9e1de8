#include "study/provenance.hpp"

#include <fstream>
#include <regex>
#include <utility>

#include "core/paths.hpp"

namespace engramsim::study {
namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  s = s.substr(b, e - b + 1);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

bool starts_with_any(const std::string& key, const std::vector<std::string>& prefixes) {
  if (prefixes.empty()) return true;
  for (const auto& p : prefixes)
    if (key.compare(0, p.size(), p) == 0) return true;
  return false;
}

// The file as the report shows it: relative to the data root when under it, so reports do not
// depend on where the checkout lives.
std::string display_path(const std::string& file) {
  const std::string root = data_root() + "/";
  return file.compare(0, root.size(), root) == 0 ? file.substr(root.size()) : file;
}

}  // namespace

std::string provenance_kind(char tag) {
  switch (tag) {
    case 'S':
      return "datasheet";
    case 'D':
      return "derived";
    case 'E':
      return "assumed";
    case 'M':
      return "measured";
    default:
      return {};
  }
}

std::vector<planner::Assumption> tagged_figures(const std::string& file, const std::string& label,
                                                const std::vector<std::string>& key_prefixes) {
  std::vector<planner::Assumption> out;
  std::ifstream in(file);
  if (!in) return out;
  // "  key: value  # [S] source" (value may be empty for a parent map key).
  static const std::regex line_re(R"(^(\s*)([A-Za-z0-9_]+):([^#]*)(#\s*\[([SDEM])\]\s*(.*))?$)");
  std::vector<std::pair<std::size_t, std::string>> parents;  // (indent, key) of enclosing maps
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, line_re)) continue;
    const std::size_t indent = m[1].length();
    while (!parents.empty() && parents.back().first >= indent) parents.pop_back();
    std::string key;
    for (const auto& [i, k] : parents) key += k + ".";
    key += m[2].str();
    const std::string value = trim(m[3].str());
    if (value.empty()) {
      parents.emplace_back(indent, m[2].str());
      continue;
    }
    if (!m[5].matched || !starts_with_any(key, key_prefixes)) continue;
    out.push_back(
        {label + " " + key, value, display_path(file) + ": " + trim(m[6].str()), provenance_kind(m[5].str()[0])});
  }
  return out;
}

}  // namespace engramsim::study
