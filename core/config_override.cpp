#include "core/config_override.hpp"

#include "core/config_input.hpp"

namespace engramsim {
namespace {

bool is_index(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// One step of resolve_key_path: from `cur` into `part`, `walked` being the path so far.
void descend(YAML::Node& cur, const std::string& part, bool last, const std::string& path, const std::string& walked,
             const SourceLocation& where, bool create) {
  const std::string parent = walked.empty() ? "the scenario root" : "'" + walked + "'";
  if (part.empty()) throw ConfigError(where, path, "key path has an empty component");
  if (cur.IsMap()) {
    const YAML::Node& as_const = cur;
    if (!as_const[part] && !create) {
      throw ConfigError(
          where, path,
          "no key '" + part + "' under " + parent + " in the base scenario (a swept key must exist there)");
    }
    if (!as_const[part] && !last) cur[part] = YAML::Node(YAML::NodeType::Map);
    cur.reset(cur[part]);
  } else if (cur.IsSequence()) {
    if (!is_index(part) || std::stoul(part) >= cur.size()) {
      throw ConfigError(
          where, path,
          "'" + part + "' is not an index of the " + std::to_string(cur.size()) + "-element list " + parent);
    }
    cur.reset(cur[std::stoul(part)]);
  } else {
    throw ConfigError(where, path, parent + " is a scalar; cannot descend into '" + part + "'");
  }
}

void assign(YAML::Node& root, const std::string& path, const YAML::Node& value, const SourceLocation& where,
            bool create) {
  if (path.empty()) throw ConfigError(where, path, "key path is empty");
  YAML::Node target = resolve_key_path(root, path, where, create);
  // `=` on a handle obtained from operator[] rebinds the slot inside its parent.
  target = YAML::Clone(value);
}

}  // namespace

std::vector<std::string> split_key_path(const std::string& path) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : path) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  return parts;
}

YAML::Node resolve_key_path(YAML::Node root, const std::string& path, const SourceLocation& where, bool create) {
  const auto parts = split_key_path(path);
  YAML::Node cur = root;
  std::string walked;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    descend(cur, parts[i], i + 1 == parts.size(), path, walked, where, create);
    walked = walked.empty() ? parts[i] : walked + "." + parts[i];
  }
  return cur;
}

void apply_override(YAML::Node& root, const std::string& path, const YAML::Node& value, const SourceLocation& where) {
  // Only the command line adds keys: a file's own `set:` blocks are located at their line when a key
  // is missing, which an added key could not be.
  assign(root, path, value, where, where.file == kCommandLineSet);
}

void apply_override(YAML::Node& root, const std::string& path, const std::string& value_text) {
  assign(root, path, parse_config_value(value_text, kCommandLineSet, path), {kCommandLineSet, 0, 0}, true);
}

std::pair<std::string, std::string> parse_set_argument(const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos) throw ConfigError({"--set", 0, 0}, arg, "expected key.path=value");
  std::string key = arg.substr(0, eq);
  if (key.empty()) throw ConfigError({"--set", 0, 0}, arg, "expected key.path=value (the key is empty)");
  return {key, arg.substr(eq + 1)};
}

}  // namespace engramsim
