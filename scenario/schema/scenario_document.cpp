#include "scenario/schema/scenario_document.hpp"

#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "core/config_input.hpp"
#include "core/config_node.hpp"
#include "core/config_override.hpp"

namespace engramsim::scenario {
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

// The text one variant parses: the file with every other compare entry blanked (each character but
// newlines turned into a space), so that each variant parses the base and its own entry only (time
// and memory linear in the number of variants, not quadratic), every kept character keeping its
// line and column for error messages. The variant is then `compare[0]` of its tree. Block style
// blanks whole lines; flow style (`compare: [{...}, {...}]`) blanks byte ranges found by matching
// brackets. A layout that gives neither (entries sharing lines, an entry that is not a flow map)
// gives no plan, and each variant parses the whole file instead.

std::vector<std::size_t> line_starts(const std::string& text) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  return starts;
}

// Block style: the entries own whole lines between the `compare:` line and the next top-level key.
std::optional<ComparePlan> block_plan(const std::string& text, const YAML::Node& full) {
  int key = -1;
  int end = -1;
  for (const auto& kv : full) {
    const int line = kv.first.Mark().line;
    if (kv.first.Scalar() == "compare")
      key = line;
    else if (key >= 0 && line > key && (end < 0 || line < end))
      end = line;
  }
  const YAML::Node list = full["compare"];
  if (key < 0 || !list.IsSequence()) return std::nullopt;
  std::vector<int> entries;
  for (const auto& e : list) {
    const int line = e.Mark().line;
    if (line <= key || (!entries.empty() && line <= entries.back()) || (end >= 0 && line >= end)) return std::nullopt;
    entries.push_back(line);
  }
  const std::vector<std::size_t> starts = line_starts(text);
  const auto at = [&](int line) {
    return line < 0 || line >= static_cast<int>(starts.size()) ? text.size() : starts[line];
  };
  ComparePlan plan;
  plan.from = at(key + 1);
  plan.to = at(end);
  for (std::size_t i = 0; i < entries.size(); ++i)
    plan.entries.emplace_back(at(entries[i]), i + 1 < entries.size() ? at(entries[i + 1]) : plan.to);
  return plan;
}

// The end of a quoted scalar opening at `open` (just past its closing quote), or npos.
std::size_t quoted_end(const std::string& t, std::size_t open) {
  const char quote = t[open];
  for (std::size_t i = open + 1; i < t.size(); ++i) {
    if (quote == '"' && t[i] == '\\') {
      ++i;
    } else if (t[i] == quote) {
      if (quote == '\'' && i + 1 < t.size() && t[i + 1] == '\'') {
        ++i;  // '' is a quote inside a single-quoted scalar
        continue;
      }
      return i + 1;
    }
  }
  return std::string::npos;
}

// Just past the bracket that closes the '[' or '{' at `open`, or npos. Flow-context plain scalars
// cannot hold brackets, so only quoted scalars and comments need skipping; a quote starts a scalar
// only where a value or key can start (after an indicator or at the start).
std::size_t flow_end(const std::string& t, std::size_t open) {
  int depth = 0;
  char prev = ' ';
  for (std::size_t i = open; i < t.size(); ++i) {
    const char c = t[i];
    const bool scalar_start = prev == '[' || prev == '{' || prev == ',' || prev == ':' || prev == '?';
    if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return i + 1;
    } else if ((c == '\'' || c == '"') && scalar_start) {
      const std::size_t end = quoted_end(t, i);
      if (end == std::string::npos) return end;
      i = end - 1;
    } else if (c == '#' && (t[i - 1] == ' ' || t[i - 1] == '\t' || t[i - 1] == '\n')) {
      i = t.find('\n', i);
      if (i == std::string::npos) return i;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') prev = c;
  }
  return std::string::npos;
}

// Flow style: `compare: [{...}, ...]`, each entry a flow map.
std::optional<ComparePlan> flow_plan(const std::string& text, const YAML::Node& full) {
  const YAML::Node list = full["compare"];
  if (!list.IsSequence()) return std::nullopt;
  const std::size_t open = static_cast<std::size_t>(list.Mark().pos);
  if (list.Mark().is_null() || open >= text.size() || text[open] != '[') return std::nullopt;
  const std::size_t close = flow_end(text, open);
  if (close == std::string::npos) return std::nullopt;
  ComparePlan plan;
  plan.from = open + 1;
  plan.to = close - 1;
  for (const auto& e : list) {
    const std::size_t begin = static_cast<std::size_t>(e.Mark().pos);
    if (e.Mark().is_null() || begin < plan.from || begin >= plan.to || text[begin] != '{') return std::nullopt;
    const std::size_t end = flow_end(text, begin);
    if (end == std::string::npos || end > plan.to) return std::nullopt;
    if (!plan.entries.empty() && begin < plan.entries.back().second) return std::nullopt;
    plan.entries.emplace_back(begin, end);
  }
  return plan;
}

// A flow list is planned by its brackets even when its entries sit on lines of their own: blanking
// lines would leave the separating commas behind.
std::optional<ComparePlan> compare_plan(const std::string& text, const YAML::Node& full) {
  const YAML::Mark at = full["compare"].Mark();
  const auto pos = static_cast<std::size_t>(at.pos);
  if (!at.is_null() && pos < text.size() && text[pos] == '[') return flow_plan(text, full);
  return block_plan(text, full);
}

// Blanked characters become spaces on a line that keeps some text (columns unchanged) and vanish
// on a line that keeps none (its newline stays, so line numbers are unchanged).
std::string variant_text(const std::string& text, const ComparePlan& c, std::size_t i) {
  const auto [keep_from, keep_to] = c.entries[i];
  const auto blanked = [&](std::size_t k) { return k >= c.from && k < c.to && (k < keep_from || k >= keep_to); };
  std::string out;
  out.reserve(text.size());
  std::size_t line = 0;
  while (line < text.size()) {
    std::size_t end = text.find('\n', line);
    if (end == std::string::npos) end = text.size();
    const bool whole_line = blanked(line) && (end == line || blanked(end - 1)) && (keep_from >= end || keep_to <= line);
    if (!whole_line)
      for (std::size_t k = line; k < end; ++k) out.push_back(blanked(k) ? ' ' : text[k]);
    if (end < text.size()) out.push_back('\n');
    line = end + 1;
  }
  return out;
}

// The variant's tree and the index of its entry in that tree's compare list. A planned parse must
// hold exactly the entry the whole file holds at `i`, else the whole file is parsed.
std::pair<YAML::Node, std::size_t> parse_variant(const ScenarioDocument& doc, const std::optional<ComparePlan>& c,
                                                 const YAML::Node& full, std::size_t i) {
  if (c) {
    try {
      YAML::Node one = parse_text({doc.file, variant_text(doc.text, *c, i)});
      const YAML::Node list = one["compare"];
      if (list.IsSequence() && list.size() == 1 && canonical(list[0]) == canonical(full["compare"][i])) return {one, 0};
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
ScenarioVariant expand_variant(const ScenarioDocument& doc, const std::optional<ComparePlan>& plan,
                               const YAML::Node& full, const CompareEntry& entry, std::size_t i,
                               const std::vector<SetArgument>& sets) {
  ScenarioVariant v;
  v.name = entry.name;
  v.description = entry.description;
  v.baseline = entry.baseline;
  std::size_t at = 0;
  std::tie(v.root, at) = parse_variant(doc, plan, full, i);
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

ScenarioExpansion::ScenarioExpansion(const ScenarioDocument& doc, std::vector<SetArgument> sets)
    : doc_(&doc), sets_(std::move(sets)) {
  // The command line sets keys of the scenario, not of its variants: a variant's entry is read back
  // from each variant's own parse, where a replaced entry would have lost its keys.
  for (const auto& s : sets_)
    if (s.key == "compare" || s.key.rfind("compare.", 0) == 0)
      throw ConfigError({"--set", 0, 0}, s.key,
                        "the compare list cannot be changed from the command line; --set the scenario key itself "
                        "(it applies to every variant) or edit the variant in the file");
  // A probe parse: checks the command line's keys against the base and reads the compare list.
  probe_ = parse_text(doc);
  apply_cli_sets(probe_, sets_);
  const ConfigNode root(probe_, doc.file, "");
  if (!root.is_map()) root.fail("a scenario file must be a map");
  entries_ = parse_compare_list(root);
  if (!entries_.empty()) plan_ = compare_plan(doc.text, probe_);
}

ScenarioExpansion::~ScenarioExpansion() = default;

std::size_t ScenarioExpansion::size() const { return entries_.empty() ? 1 : entries_.size(); }

ScenarioVariant ScenarioExpansion::variant(std::size_t i) const {
  if (entries_.empty()) {
    ScenarioVariant v;
    v.root = probe_;
    strip(v.root);
    return v;
  }
  return expand_variant(*doc_, plan_, probe_, entries_.at(i), i, sets_);
}

std::vector<ScenarioVariant> expand_scenario(const ScenarioDocument& doc, const std::vector<SetArgument>& sets) {
  const ScenarioExpansion expansion(doc, sets);
  std::vector<ScenarioVariant> out;
  for (std::size_t i = 0; i < expansion.size(); ++i) out.push_back(expansion.variant(i));
  return out;
}

namespace {

// The node at dotted `path` of `root`, undefined when a component is missing; never adds a key.
YAML::Node node_at(const YAML::Node& root, const std::string& path) {
  YAML::Node cur = root;
  for (const auto& part : split_key_path(path)) {
    const YAML::Node& at = cur;
    if (at.IsSequence()) {
      const bool index = !part.empty() && part.size() <= 9 && part.find_first_not_of("0123456789") == std::string::npos;
      if (!index || std::stoul(part) >= at.size()) return YAML::Node(YAML::NodeType::Undefined);
      cur.reset(at[std::stoul(part)]);
    } else if (at.IsMap() && at[part]) {
      cur.reset(at[part]);
    } else {
      return YAML::Node(YAML::NodeType::Undefined);
    }
  }
  return cur;
}

}  // namespace

bool key_paths_overlap(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  return longer.compare(0, shorter.size(), shorter) == 0 &&
         (longer.size() == shorter.size() || longer[shorter.size()] == '.');
}

std::vector<SetConflict> set_conflicts(const ScenarioVariant& v, const std::vector<SetArgument>& sets) {
  std::vector<SetConflict> out;
  for (const auto& [key, value] : v.set) {
    const YAML::Node now = node_at(v.root, key);
    const std::string runs_with = now.IsDefined() ? canonical(now) : std::string();
    if (runs_with == value) continue;  // the command line left the variant's own value in place
    for (const SetArgument& s : sets)
      if (key_paths_overlap(key, s.key)) out.push_back({v.name, key, value, s, runs_with});
  }
  return out;
}

std::string set_conflict_warning(const SetConflict& c) {
  return "--set " + c.set.key + "=" + c.set.value + ": variant \"" + c.variant + "\" sets " + c.key + "=" + c.value +
         " itself and " + (c.runs_with.empty() ? std::string("runs without it") : "runs with " + c.runs_with) +
         " (--set wins over its set: entries)";
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
    t.any_text("description", &CompareEntry::description, "one line shown above its results");
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

}  // namespace engramsim::scenario
