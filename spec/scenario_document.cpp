#include "spec/scenario_document.hpp"

#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "core/config_input.hpp"
#include "core/config_node.hpp"
#include "core/config_override.hpp"

namespace engramsim::sim {
namespace {

YAML::Node parse_text(const ScenarioDocument& doc) {
  // ConfigNode turns YAML syntax errors into ConfigErrors with the position; raw() shares the tree.
  return ConfigNode::load_string(doc.text, doc.file).raw();
}

YAML::Node parse_set_value(const SetArgument& s) { return parse_config_value(s.value, "--set", s.key); }

// Rebinds the (already checked) slot at `path` to `value` itself, keeping its source position.
void bind_uncloned(YAML::Node root, const std::string& path, const YAML::Node& value) {
  YAML::Node cur = root;
  for (const auto& part : split_key_path(path)) {
    if (cur.IsSequence())
      cur.reset(cur[std::stoul(part)]);
    else
      cur.reset(cur[part]);
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

// The text one variant parses: the file with the lines of every other compare entry blanked, so
// that each variant parses the base and its own entry only (time and memory linear in the number
// of variants, not quadratic), every kept line keeping its number for error messages. The variant
// is then `compare[0]` of its tree. A layout where entries do not own whole lines (flow style)
// gives no plan, and each variant parses the whole file instead.
struct CompareLines {
  int key = -1;              // line of `compare:`
  int end = -1;              // first line after the block (-1: end of file)
  std::vector<int> entries;  // first line of each entry
};

std::optional<CompareLines> compare_lines(const YAML::Node& full) {
  CompareLines c;
  for (const auto& kv : full) {
    const int line = kv.first.Mark().line;
    if (kv.first.Scalar() == "compare")
      c.key = line;
    else if (c.key >= 0 && line > c.key && (c.end < 0 || line < c.end))
      c.end = line;
  }
  const YAML::Node list = full["compare"];
  if (c.key < 0 || !list.IsSequence()) return std::nullopt;
  for (const auto& e : list) {
    const int line = e.Mark().line;
    if (line <= c.key || (!c.entries.empty() && line <= c.entries.back()) || (c.end >= 0 && line >= c.end))
      return std::nullopt;
    c.entries.push_back(line);
  }
  return c;
}

std::string variant_text(const std::string& text, const CompareLines& c, std::size_t i) {
  const int keep_from = c.entries[i];
  const int keep_to = i + 1 < c.entries.size() ? c.entries[i + 1] : c.end;
  std::string out;
  out.reserve(text.size());
  int line = 0;
  for (char ch : text) {
    const bool in_block = line > c.key && (c.end < 0 || line < c.end);
    const bool kept = line >= keep_from && (keep_to < 0 || line < keep_to);
    if (ch == '\n' || !in_block || kept) out.push_back(ch);
    if (ch == '\n') ++line;
  }
  return out;
}

// The variant's tree and the index of its entry in that tree's compare list.
std::pair<YAML::Node, std::size_t> parse_variant(const ScenarioDocument& doc, const std::optional<CompareLines>& c,
                                                 std::size_t i) {
  if (c) {
    try {
      YAML::Node one = parse_text({doc.file, variant_text(doc.text, *c, i)});
      if (one["compare"].IsSequence() && one["compare"].size() == 1) return {one, 0};
    } catch (const ConfigError&) {
      // an anchor defined in another entry, for example: fall back to the whole file
    }
  }
  return {parse_text(doc), i};
}

void apply_cli_sets(YAML::Node& root, const std::vector<SetArgument>& sets) {
  for (const auto& s : sets) apply_override(root, s.key, parse_set_value(s), {kCommandLineSet, 0, 0});
}

void strip(YAML::Node& root) {
  const YAML::Node& peek = root;  // const access never inserts a key
  if (peek["compare"]) root.remove("compare");
  if (peek["sweep"]) root.remove("sweep");
}

}  // namespace

ScenarioDocument read_scenario_document(const std::string& path) { return {path, ConfigNode::read_file(path)}; }

namespace {

CompareEntry parse_compare_entry(const ConfigNode& e, std::set<std::string>& seen) {
  if (!e.is_map()) e.finish();  // "expected a map"
  CompareEntry c;
  compare_entry_schema().read(e, c);
  e.finish();
  if (!seen.insert(c.name).second) e.fail_key("name", "duplicate variant name '" + c.name + "'");
  return c;
}

// The compare list: the entries, each with a baseline (the first variant unless named).
std::vector<CompareEntry> parse_compare_list(const ConfigNode& root) {
  std::vector<CompareEntry> entries;
  const auto list = root.optional_child("compare");
  if (!list) return entries;
  const auto elements = list->elements();
  if (elements.empty()) list->fail("compare needs at least one variant");
  if (elements.size() > kMaxCompareVariants)
    list->fail("more than " + std::to_string(kMaxCompareVariants) + " variants, the limit for one compare list");
  std::set<std::string> seen;
  for (const ConfigNode& e : elements) entries.push_back(parse_compare_entry(e, seen));
  for (auto& c : entries) {
    if (c.baseline.empty()) {
      if (&c != &entries.front()) c.baseline = entries.front().name;
      continue;
    }
    if (c.baseline == c.name)
      throw ConfigError(c.baseline_at, "compare.baseline", "a variant cannot be its own baseline");
    if (!seen.count(c.baseline))
      throw ConfigError(c.baseline_at, "compare.baseline", "no variant named '" + c.baseline + "'");
  }
  return entries;
}

// Variant `i`: its own parse of the file with its `set:` applied over the base, the command line's
// keys before and after (the command line wins over the variant).
ScenarioVariant expand_variant(const ScenarioDocument& doc, const std::optional<CompareLines>& lines,
                               const CompareEntry& entry, std::size_t i, const std::vector<SetArgument>& sets) {
  ScenarioVariant v;
  v.name = entry.name;
  v.description = entry.description;
  v.baseline = entry.baseline;
  std::size_t at = 0;
  std::tie(v.root, at) = parse_variant(doc, lines, i);
  apply_cli_sets(v.root, sets);
  const YAML::Node set = v.root["compare"][at]["set"];
  for (const std::string& key : entry.keys) {
    const YAML::Node value = set[key];
    if (!value.IsDefined())
      throw ConfigError({doc.file, 0, 0}, "compare[" + std::to_string(i) + "].set." + key,
                        "lost while expanding the variant");
    const YAML::Mark m = value.Mark();
    apply_override(v.root, key, value, {doc.file, m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1});
    bind_uncloned(v.root, key, value);
    v.set.emplace_back(key, canonical(value));
  }
  apply_cli_sets(v.root, sets);
  strip(v.root);
  return v;
}

}  // namespace

std::vector<ScenarioVariant> expand_scenario(const ScenarioDocument& doc, const std::vector<SetArgument>& sets) {
  // The command line sets keys of the scenario, not of its variants: a variant's entry is read back
  // from each variant's own parse, where a replaced entry would have lost its keys.
  for (const auto& s : sets)
    if (s.key == "compare" || s.key.rfind("compare.", 0) == 0)
      throw ConfigError({"--set", 0, 0}, s.key,
                        "the compare list cannot be changed from the command line; --set the scenario key itself "
                        "(it applies to every variant) or edit the variant in the file");
  // A probe parse: checks the command line's keys against the base and reads the compare list.
  YAML::Node probe = parse_text(doc);
  apply_cli_sets(probe, sets);
  const ConfigNode root(probe, doc.file, "");
  if (!root.is_map()) root.fail("a scenario file must be a map");
  const std::vector<CompareEntry> entries = parse_compare_list(root);
  std::vector<ScenarioVariant> out;
  if (entries.empty()) {
    ScenarioVariant v;
    v.root = probe;
    strip(v.root);
    out.push_back(std::move(v));
    return out;
  }
  const std::optional<CompareLines> lines = compare_lines(probe);
  for (std::size_t i = 0; i < entries.size(); ++i) out.push_back(expand_variant(doc, lines, entries[i], i, sets));
  return out;
}

const FieldTable<CompareEntry>& compare_entry_schema() {
  static const FieldTable<CompareEntry> table = [] {
    FieldTable<CompareEntry> t("compare");
    t.custom({"name", "letters, digits, `-` `_` `.`", "required", "names the variant and its output folder; unique"},
             [](const ConfigNode& e, CompareEntry& c) {
               c.name = e.str("name");
               if (!safe_name(c.name))
                 e.fail_key("name", "use letters, digits, '-', '_' and '.' (it names an output folder)");
             })
        .required();
    t.any_text(
        "description", [](auto& c) -> auto& { return c.description; }, "one line shown above its results");
    t.custom(
        {"baseline", "a variant's name", "the first variant", "ratios against this variant; not the variant itself"},
        [](const ConfigNode& e, CompareEntry& c) {
          c.baseline = e.str("baseline");
          c.baseline_at = e.child("baseline").location();
        });
    t.rule([](const ConfigNode& e, CompareEntry&) {
      if (!e.has("set")) e.finish();  // a misspelt `set` is reported as the unknown key it is
    });
    t.custom({"set", "map of `key.path: value`", "required",
              "overrides of the base scenario, at least one; the command line's `--set` wins"},
             [](const ConfigNode& e, CompareEntry& c) {
               const ConfigNode set = e.child("set");
               if (!set.is_map()) set.fail("expected a map of key.path: value");
               c.keys = set.keys();
               if (c.keys.empty()) set.fail("a variant must set at least one key");
             })
        .required();
    return t;
  }();
  return table;
}

}  // namespace engramsim::sim
