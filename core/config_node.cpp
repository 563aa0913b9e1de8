#include "core/config_node.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "core/config_input.hpp"
#include "core/unit_parse.hpp"

namespace engramsim {
namespace {

std::string kind_name(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "nothing";
  }
}

// What every configuration tree must be, checked once where it is parsed so that no reader meets
// anything else: map keys are plain scalars (a list or map as a key, `{[a]: 1}`, has no key path
// and makes yaml-cpp's key conversions throw), no map repeats a key (the parser keeps both entries
// and a lookup finds only the first, so a value would be lost silently), and every scalar is valid
// UTF-8 (text ends up in JSON and HTML, which cannot carry stray bytes). Aliases share nodes, so a
// walk can meet the same node many times (an alias bomb expands exponentially): the walk stops with
// an error past kMaxWalkedNodes nodes, far above any configuration file.
constexpr std::size_t kMaxWalkedNodes = 1000000;

SourceLocation located_at(const std::string& file, const YAML::Mark& m) {
  return {file, m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1};
}

// Byte offset of the first invalid UTF-8 sequence in `s`, or npos (overlongs, surrogates and code
// points above U+10FFFF are invalid, as RFC 3629 says).
std::size_t invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return i;
    std::uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1Fu) : len == 3 ? (b & 0x0Fu) : (b & 0x07u);
    for (std::size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c >> 6) != 0x2) return i;
      cp = (cp << 6) | (c & 0x3Fu);
    }
    const std::uint32_t min_cp = len == 1 ? 0 : len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

void check_scalar_text(const YAML::Node& n, const std::string& file, const std::string& path) {
  const std::size_t bad = invalid_utf8_at(n.Scalar());
  if (bad == std::string_view::npos) return;
  throw ConfigError(located_at(file, n.Mark()), path,
                    "not valid UTF-8 (byte " + std::to_string(bad + 1) + " of the value)");
}

// A checked tree holds only scalar keys; a node built another way is refused the same way here.
std::string key_text(const YAML::Node& key, const std::string& file, const std::string& path) {
  if (!key.IsScalar())
    throw ConfigError(located_at(file, key.Mark()), path,
                      "a map key must be a plain name, got " + kind_name(key) + " as a key");
  return key.Scalar();
}

void check_map(const YAML::Node& n, const std::string& file, const std::string& path, std::size_t& walked);

void check_tree(const YAML::Node& n, const std::string& file, const std::string& path, std::size_t& walked) {
  if (++walked > kMaxWalkedNodes)
    throw ConfigError(located_at(file, n.Mark()), path,
                      "more than " + std::to_string(kMaxWalkedNodes) + " nodes once aliases are expanded");
  if (n.IsMap()) {
    check_map(n, file, path, walked);
  } else if (n.IsSequence()) {
    std::size_t i = 0;
    for (const auto& item : n) check_tree(item, file, path + "[" + std::to_string(i++) + "]", walked);
  } else if (n.IsScalar()) {
    check_scalar_text(n, file, path);
  }
}

void check_map(const YAML::Node& n, const std::string& file, const std::string& path, std::size_t& walked) {
  std::map<std::string, YAML::Mark> seen;
  for (const auto& kv : n) {
    const YAML::Mark m = kv.first.Mark();
    if (!kv.first.IsScalar())
      throw ConfigError(located_at(file, m), path,
                        "a map key must be a plain name, got " + kind_name(kv.first) + " as a key");
    const std::string& key = kv.first.Scalar();
    const std::string here = path.empty() ? key : path + "." + key;
    check_scalar_text(kv.first, file, here);
    const auto [it, fresh] = seen.emplace(key, m);
    if (!fresh)
      throw ConfigError(located_at(file, m), here,
                        "duplicate key (first given on line " + std::to_string(it->second.line + 1) + ")");
    check_tree(kv.second, file, here, walked);
  }
}

// The documents of a stream as parser events: where each starts and where its first value is.
// yaml-cpp 0.7's LoadAll never returns on a token that cannot start a value (a stray ',' where a
// node should be): the parser reports an empty document at that token again and again without
// consuming it, allocating a node each time until memory runs out. Walking the documents here
// lets a document that starts where the previous one did be reported as the error it is.
class DocumentScan final : public YAML::EventHandler {
 public:
  struct Document {
    YAML::Mark start;
    YAML::Mark first_value;
    bool has_value = false;
  };
  std::vector<Document> documents;

  void OnDocumentStart(const YAML::Mark& m) override { documents.push_back({m, m, false}); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { value(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { value(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    value(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    value(m);
  }
  void OnMapEnd() override {}

 private:
  void value(const YAML::Mark& m) {
    if (documents.empty() || documents.back().has_value) return;
    documents.back().first_value = m;
    documents.back().has_value = true;
  }
};

}  // namespace

ConfigNode ConfigNode::load_string(const std::string& text, const std::string& name) {
  try {
    // One document per file: text after a second `---` (or after `...`) would otherwise be dropped.
    // An empty document (a bare trailing `---`) holds nothing to drop.
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentScan scan;
    while (parser.HandleNextDocument(scan)) {
      const auto& docs = scan.documents;
      if (docs.size() < 2) continue;
      const auto& doc = docs.back();
      if (doc.start.pos == docs[docs.size() - 2].start.pos)
        throw ConfigError(located_at(name, doc.start), "",
                          "invalid YAML: a value cannot start here (a stray ',' or flow character)");
      if (doc.has_value)
        throw ConfigError(located_at(name, doc.first_value), "",
                          "a second YAML document starts here; a file holds one");
    }
    YAML::Node n = YAML::Load(text);  // the first document
    std::size_t walked = 0;
    check_tree(n, name, "", walked);
    return ConfigNode(n, name, "");
  } catch (const YAML::Exception& e) {
    throw ConfigError({name, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1}, "",
                      "invalid YAML: " + e.msg);
  }
}

YAML::Node parse_config_value(const std::string& text, const std::string& source, const std::string& field) {
  // An empty right-hand side means an empty string, not null: `--set name=` is rarely a request for null.
  if (text.empty()) return YAML::Node(std::string());
  YAML::Node value;
  try {
    value = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError({source, 0, 0}, field, "value \"" + text + "\" is not valid YAML: " + e.msg);
  }
  try {
    std::size_t walked = 0;
    check_tree(value, source, field, walked);
  } catch (const ConfigError& e) {
    // Positions inside a one-line value mean nothing on a command line: name the field alone.
    throw ConfigError({source, 0, 0}, e.field(), "value \"" + text + "\": " + e.message());
  }
  return value;
}

std::string ConfigNode::file_problem(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "is a folder, not a file";
  if (!std::filesystem::exists(path, ec)) return "no such file";
  return "";
}

std::string ConfigNode::read_file(const std::string& path) { return read_input_file(path); }

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  if (const std::string why = ConfigNode::file_problem(path); !why.empty()) throw ConfigError({path, 0, 0}, "", why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path, 0, 0}, "", "cannot open file");
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw ConfigError({path, 0, 0}, "",
                        "larger than " + std::to_string(max_bytes >> 20) + " MiB, the limit for this input");
  }
  if (in.bad()) throw ConfigError({path, 0, 0}, "", "cannot read file");
  return text;
}

ConfigNode ConfigNode::load_file(const std::string& path) {
  ConfigNode n = load_string(read_file(path), path);
  if (!n.node_.IsDefined() || n.node_.IsNull()) throw ConfigError({path, 1, 1}, "", "file is empty");
  return n;
}

ConfigNode::ConfigNode(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)),
      file_(std::move(file)),
      path_(std::move(path)),
      read_keys_(std::make_shared<std::set<std::string>>()),
      absent_keys_(std::make_shared<std::set<std::string>>()) {}

SourceLocation ConfigNode::location() const {
  const YAML::Mark m = node_.Mark();
  if (m.is_null()) return {file_, 0, 0};
  return {file_, m.line + 1, m.column + 1};
}

void ConfigNode::fail(const std::string& message) const {
  reject_close_typo();
  throw ConfigError(location(), path_, message);
}

void ConfigNode::fail_key(const std::string& key, const std::string& message) const {
  reject_close_typo();
  if (has(key)) child(key).fail(message);
  throw ConfigError(location(), child_path(key), message);
}

std::string ConfigNode::child_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void ConfigNode::require_map() const {
  if (!node_.IsMap()) fail("expected a map, got " + kind_name(node_));
}

bool ConfigNode::has(const std::string& key) const {
  if (!node_.IsMap()) return false;
  const bool present = static_cast<bool>(node_[key]);
  if (!present) note_absent(key);
  return present;
}

void ConfigNode::note_absent(const std::string& key) const { absent_keys_->insert(key); }

ConfigNode ConfigNode::child(const std::string& key) const {
  require_map();
  read_keys_->insert(key);
  YAML::Node c = node_[key];
  if (!c) {
    note_absent(key);
    reject_close_typo();
    throw ConfigError(location(), child_path(key), "missing required field");
  }
  return ConfigNode(c, file_, child_path(key));
}

std::optional<ConfigNode> ConfigNode::optional_child(const std::string& key) const {
  require_map();
  read_keys_->insert(key);
  YAML::Node c = node_[key];
  if (!c) {
    note_absent(key);
    return std::nullopt;
  }
  return ConfigNode(c, file_, child_path(key));
}

std::vector<std::string> ConfigNode::keys() const {
  require_map();
  std::vector<std::string> out;
  for (const auto& kv : node_) {
    const std::string k = key_text(kv.first, file_, path_);
    read_keys_->insert(k);
    out.push_back(k);
  }
  return out;
}

std::vector<ConfigNode> ConfigNode::elements() const {
  if (!node_.IsSequence()) fail("expected a list, got " + kind_name(node_));
  std::vector<ConfigNode> out;
  std::size_t i = 0;
  for (const auto& e : node_) {
    out.emplace_back(e, file_, path_ + "[" + std::to_string(i) + "]");
    ++i;
  }
  return out;
}

void ConfigNode::ignore(const std::string& key) const { read_keys_->insert(key); }

void ConfigNode::finish() const {
  require_map();
  for (const auto& kv : node_) {
    const std::string k = key_text(kv.first, file_, path_);
    if (read_keys_->count(k) == 0) fail_unknown(kv.first, k);
  }
}

void ConfigNode::fail_unknown(const YAML::Node& key_node, const std::string& key) const {
  std::set<std::string> known = *read_keys_;
  known.insert(absent_keys_->begin(), absent_keys_->end());
  const std::string near = closest_key(key, known);
  throw ConfigError(located_at(file_, key_node.Mark()), child_path(key),
                    near.empty() ? "unknown field" : "unknown field; did you mean '" + near + "'?");
}

void ConfigNode::reject_close_typo() const {
  if (!node_.IsMap() || absent_keys_->empty()) return;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) continue;
    const std::string& k = kv.first.Scalar();
    if (read_keys_->count(k) == 0 && !closest_key(k, *absent_keys_).empty()) fail_unknown(kv.first, k);
  }
}

namespace {

// Levenshtein distance (insert, delete, substitute one character each count 1).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// One slip in a short key (tp/tpp), two in a longer one; never more than half the key.
bool close_enough_for_typo(const std::string& typed, const std::string& known, std::size_t distance) {
  const std::size_t reach = std::min(known.size(), typed.size()) <= 4 ? 1 : 2;
  return distance > 0 && distance <= reach && 2 * distance <= known.size();
}

}  // namespace

std::string ConfigNode::closest_key(const std::string& key, const std::set<std::string>& known) {
  std::string best;
  std::size_t best_distance = SIZE_MAX;
  for (const std::string& k : known) {
    const std::size_t d = edit_distance(key, k);
    if (close_enough_for_typo(key, k, d) && d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  return best;
}

std::string ConfigNode::as_str() const {
  if (!node_.IsScalar()) fail("expected a string, got " + kind_name(node_));
  return node_.Scalar();
}

// A number written as a number: a quoted scalar ("512") or one tagged as another type (!!str 1) is
// a string in YAML, and reading it as a number would hide a slip.
void ConfigNode::require_plain_number(const char* what) const {
  const std::string& tag = node_.Tag();
  if (tag == "!") fail(std::string("expected ") + what + ", got the quoted string \"" + node_.Scalar() + "\"");
  if (!tag.empty() && tag != "?" && tag != "tag:yaml.org,2002:int" && tag != "tag:yaml.org,2002:float")
    fail(std::string("expected ") + what + ", got a value tagged " + tag);
}

double ConfigNode::as_number() const {
  require_plain_number("a number");
  const std::string s = as_str();
  double v = 0.0;
  try {
    std::size_t used = 0;
    v = std::stod(s, &used);
    if (used != s.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    fail("expected a number, got \"" + s + "\"");
  }
  if (!std::isfinite(v)) fail("expected a finite number, got \"" + s + "\"");
  return v;
}

std::int64_t ConfigNode::as_integer() const {
  require_plain_number("an integer");
  if (node_.Tag() == "tag:yaml.org,2002:float") fail("expected an integer, got a value tagged !!float");
  const std::string s = as_str();
  try {
    std::size_t used = 0;
    const long long v = std::stoll(s, &used);
    if (used != s.size()) throw std::invalid_argument("trailing");
    return v;
  } catch (const std::exception&) {
    fail("expected an integer, got \"" + s + "\"");
  }
}

bool ConfigNode::as_bool() const {
  const std::string s = as_str();
  if (s == "true") return true;
  if (s == "false") return false;
  fail("expected true or false, got \"" + s + "\"");
}

#define ENGRAMSIM_UNIT_ACCESSOR(Type, name, parser) \
  Type ConfigNode::as_##name() const {              \
    const std::string s = as_str();                 \
    try {                                           \
      return parser(s);                             \
    } catch (const UnitParseError& e) {             \
      fail(e.what());                               \
    }                                               \
  }                                                 \
  Type ConfigNode::name(const std::string& key) const { return child(key).as_##name(); }

ENGRAMSIM_UNIT_ACCESSOR(Bytes, bytes, parse_bytes)
ENGRAMSIM_UNIT_ACCESSOR(Bandwidth, bandwidth, parse_bandwidth)
ENGRAMSIM_UNIT_ACCESSOR(FlopRate, flop_rate, parse_flop_rate)
ENGRAMSIM_UNIT_ACCESSOR(Time, time, parse_time)
ENGRAMSIM_UNIT_ACCESSOR(MoneyRate, money_rate, parse_money_rate)
ENGRAMSIM_UNIT_ACCESSOR(MoneyPerByte, money_per_byte, parse_money_per_byte)
#undef ENGRAMSIM_UNIT_ACCESSOR

std::string ConfigNode::str(const std::string& key) const { return child(key).as_str(); }

std::string ConfigNode::one_of(const std::string& key, const std::vector<std::string>& allowed) const {
  ConfigNode c = child(key);
  const std::string v = c.as_str();
  for (const auto& a : allowed)
    if (a == v) return v;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  c.fail("expected one of " + list + ", got \"" + v + "\"");
}

namespace {

// `v`, the value of `n`; fails at `n` when it lies outside [lo, hi].
template <typename T>
T in_range(const ConfigNode& n, T v, T lo, T hi) {
  if (v < lo || v > hi) {
    std::ostringstream os;
    os << "value " << v << " out of range [" << lo << ", " << hi << "]";
    n.fail(os.str());
  }
  return v;
}

}  // namespace

double ConfigNode::number(const std::string& key, double lo, double hi) const {
  const ConfigNode c = child(key);
  return in_range(c, c.as_number(), lo, hi);
}

std::int64_t ConfigNode::integer(const std::string& key, std::int64_t lo, std::int64_t hi) const {
  const ConfigNode c = child(key);
  return in_range(c, c.as_integer(), lo, hi);
}

bool ConfigNode::boolean(const std::string& key) const { return child(key).as_bool(); }

std::vector<std::int64_t> ConfigNode::integers(const std::string& key, std::int64_t lo, std::int64_t hi) const {
  std::vector<std::int64_t> out;
  for (const ConfigNode& e : child(key).elements()) out.push_back(in_range(e, e.as_integer(), lo, hi));
  return out;
}

std::vector<double> ConfigNode::numbers(const std::string& key, double lo, double hi) const {
  std::vector<double> out;
  for (const ConfigNode& e : child(key).elements()) out.push_back(in_range(e, e.as_number(), lo, hi));
  return out;
}

std::vector<std::string> ConfigNode::strings(const std::string& key) const {
  std::vector<std::string> out;
  for (const ConfigNode& e : child(key).elements()) out.push_back(e.as_str());
  return out;
}

std::string ConfigNode::str_or(const std::string& key, const std::string& dflt) const {
  return has(key) ? str(key) : (ignore(key), dflt);
}
std::string ConfigNode::one_of_or(const std::string& key, const std::vector<std::string>& allowed,
                                  const std::string& dflt) const {
  return has(key) ? one_of(key, allowed) : (ignore(key), dflt);
}
double ConfigNode::number_or(const std::string& key, double dflt, double lo, double hi) const {
  return has(key) ? number(key, lo, hi) : (ignore(key), dflt);
}
std::int64_t ConfigNode::integer_or(const std::string& key, std::int64_t dflt, std::int64_t lo, std::int64_t hi) const {
  return has(key) ? integer(key, lo, hi) : (ignore(key), dflt);
}
bool ConfigNode::boolean_or(const std::string& key, bool dflt) const {
  return has(key) ? boolean(key) : (ignore(key), dflt);
}
Bytes ConfigNode::bytes_or(const std::string& key, Bytes dflt) const {
  return has(key) ? bytes(key) : (ignore(key), dflt);
}
Bandwidth ConfigNode::bandwidth_or(const std::string& key, Bandwidth dflt) const {
  return has(key) ? bandwidth(key) : (ignore(key), dflt);
}
FlopRate ConfigNode::flop_rate_or(const std::string& key, FlopRate dflt) const {
  return has(key) ? flop_rate(key) : (ignore(key), dflt);
}
Time ConfigNode::time_or(const std::string& key, Time dflt) const { return has(key) ? time(key) : (ignore(key), dflt); }

}  // namespace engramsim
