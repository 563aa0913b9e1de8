#include "sim/scenario/scenario_document.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include "core/config_node.hpp"

namespace engramsim::sim {
namespace {

YAML::Node parse_text(const ScenarioDocument& doc) {
  // ConfigNode turns YAML syntax errors into ConfigErrors with the position; raw() shares the tree.
  return ConfigNode::load_string(doc.text, doc.file).raw();
}

YAML::Node parse_set_value(const SetArgument& s) {
  if (s.value.empty()) return YAML::Node(std::string());  // `--set name=` means an empty string
  try {
    return YAML::Load(s.value);
  } catch (const YAML::Exception& e) {
    throw ConfigError({"--set", 0, 0}, s.key, "value \"" + s.value + "\" is not valid YAML: " + e.msg);
  }
}

std::vector<std::string> split_path(const std::string& path) {
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

// Rebinds the (already checked) slot at `path` to `value` itself, keeping its source position.
void bind_uncloned(YAML::Node root, const std::string& path, const YAML::Node& value) {
  YAML::Node cur = root;
  for (const auto& part : split_path(path)) {
    if (cur.IsSequence()) cur.reset(cur[std::stoul(part)]);
    else cur.reset(cur[part]);
  }
  cur = value;
}

std::string canonical(const YAML::Node& v) {
  if (v.IsScalar()) return v.Scalar();
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << v;
  return e.c_str();
}

bool safe_name(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

struct CompareEntry {
  std::string name;
  std::string description;
  std::string baseline;
  SourceLocation baseline_at;
  std::vector<std::string> keys;
};

void apply_cli_sets(YAML::Node& root, const std::vector<SetArgument>& sets, const OverrideFn& apply) {
  for (const auto& s : sets) apply(root, s.key, parse_set_value(s), {"--set", 0, 0});
}

void strip(YAML::Node& root) {
  const YAML::Node& peek = root;  // const access never inserts a key
  if (peek["compare"]) root.remove("compare");
  if (peek["sweep"]) root.remove("sweep");
}

}  // namespace

ScenarioDocument read_scenario_document(const std::string& path) {
  return {path, ConfigNode::read_file(path)};
}

std::vector<ScenarioVariant> expand_scenario(const ScenarioDocument& doc, const std::vector<SetArgument>& sets,
                                             const OverrideFn& apply) {
  // A probe parse: checks the command line's keys against the base and reads the compare list.
  YAML::Node probe = parse_text(doc);
  apply_cli_sets(probe, sets, apply);
  const ConfigNode root(probe, doc.file, "");
  if (!root.is_map()) root.fail("a scenario file must be a map");

  std::vector<CompareEntry> entries;
  if (const auto list = root.optional_child("compare")) {
    const auto elements = list->elements();
    if (elements.empty()) list->fail("compare needs at least one variant");
    std::set<std::string> seen;
    for (const ConfigNode& e : elements) {
      CompareEntry c;
      c.name = e.str("name");
      if (!safe_name(c.name)) e.fail_key("name", "use letters, digits, '-', '_' and '.' (it names an output folder)");
      if (!seen.insert(c.name).second) e.fail_key("name", "duplicate variant name '" + c.name + "'");
      c.description = e.str_or("description", "");
      if (e.has("baseline")) {
        c.baseline = e.str("baseline");
        c.baseline_at = e.child("baseline").location();
      }
      if (!e.has("set")) e.finish();  // a misspelt `set` is reported as the unknown key it is
      const ConfigNode set = e.child("set");
      if (!set.is_map()) set.fail("expected a map of key.path: value");
      c.keys = set.keys();
      if (c.keys.empty()) set.fail("a variant must set at least one key");
      e.finish();
      entries.push_back(std::move(c));
    }
    for (auto& c : entries) {
      if (c.baseline.empty()) {
        if (&c != &entries.front()) c.baseline = entries.front().name;
        continue;
      }
      if (c.baseline == c.name) throw ConfigError(c.baseline_at, "compare.baseline", "a variant cannot be its own baseline");
      if (!seen.count(c.baseline))
        throw ConfigError(c.baseline_at, "compare.baseline", "no variant named '" + c.baseline + "'");
    }
  }

  std::vector<ScenarioVariant> out;
  if (entries.empty()) {
    ScenarioVariant v;
    v.root = probe;
    strip(v.root);
    out.push_back(std::move(v));
    return out;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    ScenarioVariant v;
    v.name = entries[i].name;
    v.description = entries[i].description;
    v.baseline = entries[i].baseline;
    v.root = parse_text(doc);
    apply_cli_sets(v.root, sets, apply);
    const YAML::Node set = v.root["compare"][i]["set"];
    for (const std::string& key : entries[i].keys) {
      const YAML::Node value = set[key];
      const YAML::Mark m = value.Mark();
      apply(v.root, key, value, {doc.file, m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1});
      bind_uncloned(v.root, key, value);
      v.set.emplace_back(key, canonical(value));
    }
    apply_cli_sets(v.root, sets, apply);  // the command line wins over the variant
    strip(v.root);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace engramsim::sim
