// One schema, declared once.
//
// A FieldTable<T> lists the keys of one YAML map: key, type in words, default, allowed range and
// meaning, with how each is read into a T and written out of it. The same table
//   - reads the map with located errors (ConfigNode: file:line:col and the field's dotted path),
//   - writes the values as JSON (scenario.json, profiles),
//   - writes the values as YAML text with units (yaml(): `buffer_size: 64MiB`),
//   - prints the documentation's key table (tests compare it with docs/), and
//   - names command-line flags: the key with dashes (`max_num_seqs` -> `--max-num-seqs`), whose
//     values go through the same reader, so a flag and a scenario key have one validation path.
// The default of a typed field is the value a default-constructed T holds, so it too is written once.
//
// Usage:
//   const FieldTable<Limits>& limits_schema() {
//     static const FieldTable<Limits> t = FieldTable<Limits>("limits")
//         .integer("block_size", &Limits::block_size, 1, 1 << 20, "KV tokens per block");
//     return t;
//   }
//   Limits l;  limits_schema().read(node, l);  node.finish();
//
// Text-only builds. A program built without yaml-cpp and nlohmann/json (the GPU calibration tool,
// calibration/standalone) defines ENGRAMSIM_FIELD_TABLE_TEXT_ONLY: its tables keep their docs and
// YAML text writer, and have neither reader nor JSON writer. Readers are therefore generic lambdas
// (`const auto& map`), which such a build never instantiates.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/units.hpp"

#ifdef ENGRAMSIM_FIELD_TABLE_TEXT_ONLY
namespace engramsim {
class ConfigNode;
// No JSON here: a value that takes whatever a JSON writer gives it and keeps nothing.
struct FieldJson {
  FieldJson() = default;
  template <class V>
  FieldJson(const V&) {}  // NOLINT: stands in for nlohmann::json's implicit conversions
  static FieldJson object() { return {}; }
  static FieldJson array() { return {}; }
  FieldJson& operator[](const std::string&) { return *this; }
  void push_back(const FieldJson&) {}
};
}  // namespace engramsim
#else
#include <nlohmann/json.hpp>

#include "core/config_node.hpp"
namespace engramsim {
using FieldJson = nlohmann::json;
}  // namespace engramsim
#endif

namespace engramsim {

// One row of a documentation key table.
struct FieldDoc {
  std::string key;
  std::string type;     // "integer >= 1", "number in (0, 1]", "bool", ...
  std::string dflt;     // "8192", "none (no padding)", "required"
  std::string meaning;  // one line of Markdown
};

// A value as the YAML text writer lays it out: a scalar's text, a map, or a list.
struct YamlValue {
  enum class Kind { scalar, map, list };
  Kind kind = Kind::scalar;
  std::string text;               // a scalar, as written
  std::vector<std::string> keys;  // a map: keys[i] names items[i]
  std::vector<YamlValue> items;   // a map's values or a list's elements

  static YamlValue scalar(std::string text) { return {Kind::scalar, std::move(text), {}, {}}; }
  static YamlValue map() { return {Kind::map, {}, {}, {}}; }
  static YamlValue list() { return {Kind::list, {}, {}, {}}; }
  void add(std::string key, YamlValue v) {
    keys.push_back(std::move(key));
    items.push_back(std::move(v));
  }
};

// "max_num_seqs" -> "--max-num-seqs".
std::string flag_name(const std::string& key);
// The shortest duration text with a unit that reads back as `t` (0, 750us, 1s).
std::string time_words(Time t);
// "integer >= 1", "integer in [1, 64]", "integer" (no bound).
std::string integer_type_words(std::int64_t lo, std::int64_t hi);
// "number in (0, 1]" (`lo_open`: the bound itself is refused), "number >= 0", "number".
std::string number_type_words(double lo, double hi, bool lo_open);
// The shortest text that reads back as `v` (0.9, 8192, 1e-06).
std::string number_words(double v);
// The Markdown table `| key | type | default | meaning |` of `rows`, one line per row.
std::string markdown_key_table(const std::vector<FieldDoc>& rows);

// The YAML text of a map: block style for it and for the maps directly in it, flow style
// (`{a: 1, b: 2}`) deeper; a list as one `- ` line per element, `[]` when empty.
std::string yaml_text(const YamlValue& map);
// Scalars as the YAML text writer writes them. Numbers, and the numbers of quantities, have six
// significant digits: far below measurement noise, and the same text on every platform.
std::string yaml_number(double v);              // 0.61, 1.53409e+07
std::string yaml_quoted(const std::string& s);  // a double-quoted string with escapes
std::string yaml_quantity(Bytes b);             // 264B, 4KiB, 2GiB
std::string yaml_quantity(Time t);              // 850ns, 36.034us, 1.25ms, 2s
std::string yaml_quantity(Bandwidth b);         // 981.818MB/s, 1.3TB/s
std::string yaml_quantity(FlopRate r);          // 850GFLOPS, 1131.8TFLOPS
// The unit kind of a quantity in words ("size", "bandwidth", "FLOP rate", "time").
const char* quantity_words(Bytes);
const char* quantity_words(Time);
const char* quantity_words(Bandwidth);
const char* quantity_words(FlopRate);

// Whether M is a std::optional (a section read into one holds a value once its key is read).
template <class M>
inline constexpr bool is_std_optional = false;
template <class M>
inline constexpr bool is_std_optional<std::optional<M>> = true;

template <class T>
class FieldTable {
 public:
  using Reader = std::function<void(const ConfigNode& map, T& out)>;  // the key is present
  using Writer = std::function<FieldJson(const T& value)>;
  using Yaml = std::function<YamlValue(const T& value)>;
  // What is wrong with a value once its field is read (or left at its default); empty: nothing.
  using Check = std::function<std::string(const T& value)>;
  // A rule that reads the map itself (see rule()).
  using Rule = std::function<void(const ConfigNode& map, T& out)>;
  // The type of the member that `member` names (a member pointer, or a lambda returning a reference).
  template <class Access>
  using Member = std::remove_reference_t<std::invoke_result_t<Access&, T&>>;
  struct Field {
    FieldDoc doc;
    Reader read;
    Writer write;  // empty: not written (derived or input-only keys)
    Yaml yaml;     // empty: not in the YAML text
    bool required = false;
    bool own_row = true;                    // the docs list this key itself (not so for a section)
    std::vector<FieldDoc> sub_docs;         // the keys of a nested map or of a list's elements
    std::string sub_prefix;                 // how they join the key: "." (map) or "[]." (list)
    std::function<bool(const T&)> present;  // written only when true (an optional section); empty: always
    std::vector<Check> checks;
  };
  // How an optional section (optional_section) says that it was tried and holds no data: a map
  // with the single key `key` and a non-empty reason, which T keeps apart from the section.
  struct Absence {
    std::string key;                                                          // "not_measured"
    std::function<std::string(const T&, const std::string& section)> reason;  // empty: none
    std::function<void(T&, const std::string& section, std::string reason)> set_reason;
  };

  explicit FieldTable(std::string name) : name_(std::move(name)) {}

  // `member` names the member a field reads and writes: a pointer to a data member of T
  // (&Limits::block_size), or a generic lambda returning a reference to it, for a member further
  // down (`[](auto& t) -> auto& { return t.policy.block_size; }`). Each method turns it into a lambda
  // once, `access` (see accessor()).
  // A default is read off T() (value-initialised: the same value as T{}, on which GCC 12 warns
  // -Wmaybe-uninitialized for large aggregates).
  template <class Access>
  FieldTable& integer(std::string key, Access member, std::int64_t lo, std::int64_t hi, std::string meaning) {
    const auto access = accessor(member);
    const T dflt = T();
    Field f{{key, integer_type_words(lo, hi), std::to_string(access(dflt)), std::move(meaning)}};
    f.read = reads([key, access, lo, hi](const auto& m, T& out) {
      access(out) = static_cast<Member<Access>>(m.integer(key, lo, hi));
    });
    f.write = [access](const T& v) { return FieldJson(access(v)); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(std::to_string(access(v))); };
    return add(std::move(f));
  }

  template <class Access>
  FieldTable& number(std::string key, Access member, double lo, double hi, std::string meaning) {
    const auto access = accessor(member);
    const T dflt = T();
    Field f{{key, number_type_words(lo, hi, false), number_words(access(dflt)), std::move(meaning)}};
    f.read = reads([key, access, lo, hi](const auto& m, T& out) { access(out) = m.number(key, lo, hi); });
    f.write = [access](const T& v) { return FieldJson(access(v)); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(yaml_number(access(v))); };
    return add(std::move(f));
  }

  template <class Access>
  FieldTable& boolean(std::string key, Access member, std::string meaning) {
    const auto access = accessor(member);
    const T dflt = T();
    Field f{{key, "bool", access(dflt) ? "true" : "false", std::move(meaning)}};
    f.read = reads([key, access](const auto& m, T& out) { access(out) = m.boolean(key); });
    f.write = [access](const T& v) { return FieldJson(static_cast<bool>(access(v))); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(access(v) ? "true" : "false"); };
    return add(std::move(f));
  }

  // A size (`256GiB`) in [lo, hi] bytes; `type` and the default are given in words, and `outside`
  // is the error for a size out of range.
  template <class Access>
  FieldTable& bytes(std::string key, Access member, Bytes lo, Bytes hi, std::string type, std::string outside,
                    std::string meaning) {
    const auto access = accessor(member);
    Field f{{key, std::move(type), "", std::move(meaning)}};
    f.read = reads([key, access, lo, hi, outside](const auto& m, T& out) {
      const Bytes b = m.bytes(key);
      if (!(b.value() >= lo.value() && b.value() <= hi.value())) m.fail_key(key, outside);
      access(out) = b;
    });
    f.write = [access](const T& v) { return FieldJson(access(v).value()); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(yaml_quantity(access(v))); };
    return add(std::move(f));
  }

  // A duration (`750us`, `1.5ms`) in [lo, hi]; written in seconds.
  template <class Access>
  FieldTable& time(std::string key, Access member, Time lo, Time hi, std::string meaning) {
    const auto access = accessor(member);
    const T dflt = T();
    const std::string type = "time in [" + time_words(lo) + ", " + time_words(hi) + "]";
    Field f{{key, type, time_words(access(dflt)), std::move(meaning)}};
    f.read = reads([key, access, lo, hi, type](const auto& m, T& out) {
      const Time t = m.time(key);
      if (t < lo || t > hi) m.fail_key(key, "must be a " + type);
      access(out) = t;
    });
    f.write = [access](const T& v) { return FieldJson(access(v).seconds()); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(yaml_quantity(access(v))); };
    return add(std::move(f));
  }

  // A number in (lo, hi]: the lower bound itself is refused.
  template <class Access>
  FieldTable& number_above(std::string key, Access member, double lo, double hi, std::string meaning) {
    const auto access = accessor(member);
    const T dflt = T();
    const std::string type = number_type_words(lo, hi, true);
    Field f{{key, type, number_words(access(dflt)), std::move(meaning)}};
    f.read = reads([key, access, lo, hi, type](const auto& m, T& out) {
      const auto c = m.child(key);
      const double v = c.as_number();
      if (!(v > lo && v <= hi)) c.fail("must be a " + type);
      access(out) = v;
    });
    f.write = [access](const T& v) { return FieldJson(access(v)); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(yaml_number(access(v))); };
    return add(std::move(f));
  }

  // A non-empty string.
  template <class Access>
  FieldTable& text(std::string key, Access member, std::string meaning) {
    const auto access = accessor(member);
    Field f{{key, "string", "empty", std::move(meaning)}};
    f.read = reads([key, access](const auto& m, T& out) {
      const auto c = m.child(key);
      std::string v = c.as_str();
      if (v.empty()) c.fail("must not be empty");
      access(out) = std::move(v);
    });
    f.write = [access](const T& v) { return FieldJson(access(v)); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(yaml_quoted(access(v))); };
    return add(std::move(f));
  }

  // A string, empty allowed (`gpu: ""`: none).
  template <class Access>
  FieldTable& any_text(std::string key, Access member, std::string meaning) {
    const auto access = accessor(member);
    const T dflt = T();
    const std::string d = access(dflt);
    Field f{{key, "string", d.empty() ? "empty" : "`" + d + "`", std::move(meaning)}};
    f.read = reads([key, access](const auto& m, T& out) { access(out) = m.str(key); });
    f.write = [access](const T& v) { return FieldJson(access(v)); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(yaml_quoted(access(v))); };
    return add(std::move(f));
  }

  // One of the names in `options`, each standing for a value of the member's type (an enum).
  template <class Access, class E = Member<Access>>
  FieldTable& choice(std::string key, Access member,
                     std::vector<std::pair<std::string, std::type_identity_t<E>>> options, std::string meaning) {
    const auto access = accessor(member);
    std::vector<std::string> names;
    std::string type, dflt;
    const T zero = T();
    for (const auto& [name, value] : options) {
      names.push_back(name);
      type += (type.empty() ? "`" : " \\| `") + name + "`";
      if (value == access(zero)) dflt = name;
    }
    Field f{{key, type, dflt, std::move(meaning)}};
    f.read = reads([key, access, options, names](const auto& m, T& out) {
      const std::string s = m.one_of(key, names);
      for (const auto& [name, value] : options)
        if (name == s) access(out) = value;
    });
    f.write = [access, options](const T& v) { return FieldJson(name_of(options, access(v))); };
    f.yaml = [access, options](const T& v) { return YamlValue::scalar(name_of(options, access(v))); };
    return add(std::move(f));
  }

  // A key whose value is always `value` (a format's version tag); nothing of T.
  FieldTable& fixed(std::string key, std::string value, std::string meaning) {
    Field f{{key, "`" + value + "`", "required", std::move(meaning)}};
    f.required = true;
    f.read = reads([key, value](const auto& m, T&) {
      const std::string s = m.str(key);
      if (s != value) m.fail_key(key, "unsupported " + key + " \"" + s + "\", expected \"" + value + "\"");
    });
    f.write = [value](const T&) { return FieldJson(value); };
    f.yaml = [value](const T&) { return YamlValue::scalar(value); };
    return add(std::move(f));
  }

  // A physical quantity read by `get` (&ConfigNode::as_bandwidth, as_bytes, ...): above zero and in
  // [lo, hi], bounds far wider than any real part so that what they catch is a unit slip ("3.35kB/s"
  // for "3.35TB/s"). `kind` ("bandwidth") and `range` ("10 GB/s to 1 PB/s") are words for the docs.
  template <class Access, class Get>
  FieldTable& quantity(std::string key, Access member, Get get, std::string kind, double lo, double hi,
                       std::string range, std::string meaning) {
    const auto access = accessor(member);
    Field f{{key, kind + ", " + range, "", std::move(meaning)}};
    f.read = reads([key, access, get, lo, hi, range](const auto& m, T& out) {
      const auto c = m.child(key);
      const auto v = (c.*get)();
      if (!(v.value() > 0.0)) c.fail("must be greater than zero");
      if (!(v.value() >= lo && v.value() <= hi)) c.fail("outside the plausible range " + range + " (check the unit)");
      access(out) = v;
    });
    f.write = [access](const T& v) { return FieldJson(access(v).value()); };
    if constexpr (requires(const Member<Access>& x) { yaml_quantity(x); })
      f.yaml = [access](const T& v) { return YamlValue::scalar(yaml_quantity(access(v))); };
    return add(std::move(f));
  }

  // A number, or a quantity in the unit its member's type names (Bytes `64MiB`, Bandwidth
  // `1.2GB/s`, FlopRate `850GFLOPS`, Time `36us`), that must be greater than zero.
  template <class Access>
  FieldTable& positive(std::string key, Access member, std::string meaning) {
    return measure(std::move(key), accessor(member), std::move(meaning), true);
  }
  // The same, zero allowed (a quantity is never negative).
  template <class Access>
  FieldTable& at_least_zero(std::string key, Access member, std::string meaning) {
    return measure(std::move(key), accessor(member), std::move(meaning), false);
  }

  // A nested map `key` whose keys `sub` declares over the same T (so that its checks may read keys
  // read before it); the docs list them as `key.subkey`.
  FieldTable& section(std::string key, const FieldTable& sub, std::string meaning) {
    return nested(
        std::move(key), [](auto& v) -> auto& { return v; }, sub, std::move(meaning));
  }
  // A nested map `key` read into the member that `member` names, whose keys `sub` declares. A member
  // that is a std::optional<Sub> holds a value once the key is read, and is written only then.
  template <class Access, class Sub>
  FieldTable& section(std::string key, Access member, const FieldTable<Sub>& sub, std::string meaning) {
    return nested(std::move(key), accessor(member), sub, std::move(meaning));
  }

  // A list `key` of maps, each read by `element` into one entry of the std::vector that `member`
  // names (replacing what it held), with at least `min_size` entries; the docs list the
  // element's keys as `key[].subkey`.
  template <class Access, class E>
  FieldTable& list(std::string key, Access member, const FieldTable<E>& element, std::size_t min_size,
                   std::string meaning) {
    const auto access = accessor(member);
    const std::string type = "list of maps" + (min_size > 0 ? ", at least " + std::to_string(min_size) : "");
    Field f{{key, type, "empty", std::move(meaning)}};
    const auto table = std::make_shared<const FieldTable<E>>(element);  // shared by the lambdas
    f.read = reads([key, access, table, min_size](const auto& m, T& out) {
      const auto c = m.child(key);
      const auto items = c.elements();
      if (items.size() < min_size)
        c.fail(min_size == 1 ? "must hold at least one entry"
                             : "must hold at least " + std::to_string(min_size) + " entries");
      auto& v = access(out);
      v.clear();
      for (const auto& e : items) v.push_back(read_map(e, *table));
    });
    f.write = [access, table](const T& v) {
      FieldJson a = FieldJson::array();
      for (const E& e : access(v)) a.push_back(table->write(e));
      return a;
    };
    f.yaml = [access, table](const T& v) {
      YamlValue a = YamlValue::list();
      for (const E& e : access(v)) a.items.push_back(table->yaml_value(e));
      return a;
    };
    f.sub_docs = element.docs();
    f.sub_prefix = "[].";
    return add(std::move(f));
  }

  // A nested map `key` read into the std::optional<Sub> that `member` names, in one of three
  // states: present with data (the keys `sub` declares), present as `{<absence.key>: "reason"}`
  // (the optional stays empty and absence.set_reason keeps the reason), or absent (left as it is).
  // The writers write the data, else the reason that absence.reason gives, else nothing.
  template <class Access, class Sub>
  FieldTable& optional_section(std::string key, Access member, const FieldTable<Sub>& sub, Absence absence,
                               std::string meaning) {
    const auto access = accessor(member);
    const std::string type = "map, or `{" + absence.key + ": \"reason\"}`";
    Field f{{key, type, "absent", std::move(meaning)}};
    const auto table = std::make_shared<const FieldTable<Sub>>(sub);  // shared by the lambdas
    f.read = reads([key, access, table, absence](const auto& m, T& out) {
      const auto c = m.child(key);
      if (!c.is_map()) c.fail("expected a section map or {" + absence.key + ": \"reason\"}");
      if (!c.has(absence.key)) {
        access(out) = read_map(c, *table);
        return;
      }
      std::string why = c.str(absence.key);
      if (why.empty()) c.fail_key(absence.key, "give the reason the section holds no data");
      c.finish();  // it holds nothing else
      absence.set_reason(out, key, std::move(why));
    });
    f.present = [key, access, absence](const T& v) { return access(v).has_value() || !absence.reason(v, key).empty(); };
    f.write = [key, access, table, absence](const T& v) {
      if (access(v)) return table->write(*access(v));
      FieldJson j = FieldJson::object();
      j[absence.key] = absence.reason(v, key);
      return j;
    };
    f.yaml = [key, access, table, absence](const T& v) {
      if (access(v)) return table->yaml_value(*access(v));
      YamlValue j = YamlValue::map();
      j.add(absence.key, YamlValue::scalar(yaml_quoted(absence.reason(v, key))));
      return j;
    };
    f.sub_docs = sub.docs();
    f.sub_prefix = ".";
    return add(std::move(f));
  }

  // A key read and written by hand (a choice by name, a rule, a list); its words are given.
  FieldTable& custom(FieldDoc doc, Reader read, Writer write = {}) {
    Field f{std::move(doc), std::move(read), std::move(write)};
    return add(std::move(f));
  }

  // Modifiers of the field added last.
  // The keys of a map, or of a list's elements, that a custom field reads by hand: the docs list
  // them after it as `key<prefix>subkey` (prefix "." for a map, "[]." for a list).
  FieldTable& keys_below(std::vector<FieldDoc> docs, std::string prefix) {
    last().sub_docs = std::move(docs);
    last().sub_prefix = std::move(prefix);
    return *this;
  }
  FieldTable& default_words(std::string words) { return last().doc.dflt = std::move(words), *this; }
  FieldTable& type_words(std::string words) { return last().doc.type = std::move(words), *this; }
  FieldTable& unwritten() { return last().write = nullptr, last().yaml = nullptr, *this; }
  FieldTable& required() {
    last().required = true;
    last().doc.dflt = "required";
    return *this;
  }
  // A rule the value must meet once the field is read or left at its default (an order among keys,
  // a key that another requires); `problem` says what is wrong, or returns "". The error names the key.
  FieldTable& check(Check problem) { return last().checks.push_back(std::move(problem)), *this; }
  // Writes the field only when `when` holds of the value (a section the value may lack).
  FieldTable& written_if(std::function<bool(const T&)> when) { return last().present = std::move(when), *this; }

  // A rule among keys that a field's check cannot state, given the map for located errors: a key
  // that another key calls for (`map.child(key)` throws "missing required field" when it is absent),
  // a default derived from keys read before it, a check that names a key other than the last one read.
  // It runs where it is declared: once the fields before it are read, before the fields after it.
  FieldTable& rule(Rule r) { return rules_.emplace_back(fields_.size(), reads(std::move(r))), *this; }

#ifndef ENGRAMSIM_FIELD_TABLE_TEXT_ONLY
  // Reads every key of the table that `map` holds into `out`; an absent key keeps `out`'s value (a
  // required one is an error), running each field's checks after it and the rules where they are
  // declared. Keys not in the table are left for map.finish().
  void read(const ConfigNode& map, T& out) const {
    std::size_t next_rule = 0;
    const auto rules_before = [&](std::size_t field) {
      for (; next_rule < rules_.size() && rules_[next_rule].first <= field; ++next_rule)
        rules_[next_rule].second(map, out);
    };
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      rules_before(i);
      const Field& f = fields_[i];
      if (map.has(f.doc.key))
        f.read(map, out);
      else if (f.required)
        map.child(f.doc.key);  // throws "missing required field"
      else
        map.ignore(f.doc.key);
      for (const Check& c : f.checks)
        if (const std::string p = c(out); !p.empty()) map.fail_key(f.doc.key, p);
    }
    rules_before(fields_.size());
  }
#endif

  // The written fields of `value` (a JSON object; nlohmann::json orders its keys).
  FieldJson write(const T& value) const {
    FieldJson out = FieldJson::object();
    for (const Field& f : fields_)
      if (f.write && (!f.present || f.present(value))) out[f.doc.key] = f.write(value);
    return out;
  }

  // The fields of `value` as YAML, in the order of the table (yaml_text lays them out).
  YamlValue yaml_value(const T& value) const {
    YamlValue out = YamlValue::map();
    for (const Field& f : fields_)
      if (f.yaml && (!f.present || f.present(value))) out.add(f.doc.key, f.yaml(value));
    return out;
  }
  std::string yaml(const T& value) const { return yaml_text(yaml_value(value)); }

  // One row per key; the keys of a section follow it as `section.key`, those of a list's elements
  // as `list[].key`.
  std::vector<FieldDoc> docs() const {
    std::vector<FieldDoc> out;
    for (const Field& f : fields_) {
      if (f.own_row) out.push_back(f.doc);
      for (FieldDoc d : f.sub_docs) {
        d.key = f.doc.key + f.sub_prefix + d.key;
        out.push_back(std::move(d));
      }
    }
    return out;
  }
  std::string markdown() const { return markdown_key_table(docs()); }

  const Field& at(const std::string& key) const {
    for (const Field& f : fields_)
      if (f.doc.key == key) return f;
    throw std::logic_error(name_ + " schema: no key '" + key + "'");
  }
  const std::vector<Field>& fields() const { return fields_; }
  const std::string& name() const { return name_; }

 private:
  // A reader as the table keeps it; text-only builds keep none (see the top of this file).
  template <class F>
  static Reader reads([[maybe_unused]] F&& read) {
#ifdef ENGRAMSIM_FIELD_TABLE_TEXT_ONLY
    return {};
#else
    return Reader(std::forward<F>(read));
#endif
  }

  // The map `node` read by `table` into `out`, or into a new S (a list entry, an optional
  // section's data). Templates on the node type, so that text-only builds never instantiate them.
  template <class Node, class S>
  static void read_into(const Node& node, const FieldTable<S>& table, S& out) {
    if (!node.is_map()) node.finish();  // throws "expected a map, got ..."
    table.read(node, out);
    node.finish();
  }
  template <class Node, class S>
  static S read_map(const Node& node, const FieldTable<S>& table) {
    S s{};
    read_into(node, table, s);
    return s;
  }

  template <class E>
  static std::string name_of(const std::vector<std::pair<std::string, E>>& options, const E& value) {
    for (const auto& [name, v] : options)
      if (v == value) return name;
    return options.front().first;
  }

  // `member` as the lambda that the fields keep: a pointer to a data member of T becomes
  // [member](auto& t) -> auto& { return t.*member; }, the same as the lambda written out; a lambda
  // is kept as it is.
  template <class Access>
  static auto accessor(Access member) {
    if constexpr (std::is_member_object_pointer_v<Access>) {
      return [member](auto& t) -> auto& { return t.*member; };
    } else {
      return member;
    }
  }

  template <class Access, class Sub>
  FieldTable& nested(std::string key, Access access, const FieldTable<Sub>& sub, std::string meaning) {
    Field f{{key, "map", "", std::move(meaning)}};
    const auto table = std::make_shared<const FieldTable<Sub>>(sub);  // shared by the lambdas
    if constexpr (is_std_optional<Member<Access>>) {
      f.read = reads([key, access, table](const auto& m, T& out) { access(out) = read_map(m.child(key), *table); });
      f.write = [access, table](const T& v) { return table->write(*access(v)); };
      f.yaml = [access, table](const T& v) { return table->yaml_value(*access(v)); };
      f.present = [access](const T& v) { return access(v).has_value(); };
    } else {
      f.read = reads([key, access, table](const auto& m, T& out) { read_into(m.child(key), *table, access(out)); });
      f.write = [access, table](const T& v) { return table->write(access(v)); };
      f.yaml = [access, table](const T& v) { return table->yaml_value(access(v)); };
    }
    f.own_row = false;
    f.sub_docs = sub.docs();
    f.sub_prefix = ".";
    return add(std::move(f));
  }

  template <class Access>
  FieldTable& measure(std::string key, Access access, std::string meaning, bool above_zero) {
    using M = Member<Access>;
    const T dflt = T();
    std::string type = std::string(kind_words<M>()) + (above_zero ? " > 0" : " >= 0");
    Field f{{key, std::move(type), scalar_text(access(dflt)), std::move(meaning)}};
    f.read = reads([key, access, above_zero](const auto& m, T& out) {
      const auto c = m.child(key);
      M v{};
      if constexpr (std::is_arithmetic_v<M>)
        v = c.as_number();
      else if constexpr (std::is_same_v<M, Bytes>)
        v = c.as_bytes();
      else if constexpr (std::is_same_v<M, Bandwidth>)
        v = c.as_bandwidth();
      else if constexpr (std::is_same_v<M, FlopRate>)
        v = c.as_flop_rate();
      else
        v = c.as_time();
      if (above_zero && !(v > M{})) c.fail("must be greater than zero");
      access(out) = v;
    });
    f.write = [access](const T& v) { return FieldJson(json_number(access(v))); };
    f.yaml = [access](const T& v) { return YamlValue::scalar(scalar_text(access(v))); };
    return add(std::move(f));
  }
  template <class M>
  static const char* kind_words() {
    if constexpr (std::is_arithmetic_v<M>)
      return "number";
    else
      return quantity_words(M{});
  }
  template <class M>
  static std::string scalar_text(const M& v) {
    if constexpr (std::is_arithmetic_v<M>)
      return yaml_number(v);
    else
      return yaml_quantity(v);
  }
  template <class M>
  static double json_number(const M& v) {
    if constexpr (std::is_arithmetic_v<M>)
      return v;
    else if constexpr (std::is_same_v<M, Time>)
      return v.seconds();
    else
      return v.value();
  }

  FieldTable& add(Field f) {
    for (const Field& g : fields_)
      if (g.doc.key == f.doc.key) throw std::logic_error(name_ + " schema: key '" + f.doc.key + "' declared twice");
    fields_.push_back(std::move(f));
    return *this;
  }
  Field& last() {
    if (fields_.empty()) throw std::logic_error(name_ + " schema: a modifier before any field");
    return fields_.back();
  }

  std::string name_;
  std::vector<Field> fields_;
  std::vector<std::pair<std::size_t, Rule>> rules_;  // each with the number of fields declared before it
};

}  // namespace engramsim
