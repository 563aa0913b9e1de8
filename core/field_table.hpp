// One schema, declared once.
//
// A FieldTable<T> lists the keys of one YAML map: key, type in words, default, allowed range and
// meaning, with how each is read into a T and written out of it. The same table
//   - reads the map with located errors (ConfigNode: file:line:col and the field's dotted path),
//   - writes the values as JSON (scenario.json, profiles),
//   - prints the documentation's key table (tests compare it with docs/), and
//   - names command-line flags: the key with dashes (`max_num_seqs` -> `--max-num-seqs`), whose
//     values go through the same reader, so a flag and a scenario key have one validation path.
// The default of a typed field is the value a default-constructed T holds, so it too is written once.
//
// Usage:
//   const FieldTable<Limits>& limits_schema() {
//     static const FieldTable<Limits> t = FieldTable<Limits>("limits")
//         .integer("block_size", [](auto& l) -> auto& { return l.block_size; }, 1, 1 << 20, "KV tokens per block");
//     return t;
//   }
//   Limits l;  limits_schema().read(node, l);  node.finish();
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/config_node.hpp"
#include "core/units.hpp"

namespace engramsim {

// One row of a documentation key table.
struct FieldDoc {
  std::string key;
  std::string type;     // "integer >= 1", "number in (0, 1]", "bool", ...
  std::string dflt;     // "8192", "none (no padding)", "required"
  std::string meaning;  // one line of Markdown
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

template <class T>
class FieldTable {
 public:
  using Reader = std::function<void(const ConfigNode& map, T& out)>;  // the key is present
  using Writer = std::function<nlohmann::json(const T& value)>;
  struct Field {
    FieldDoc doc;
    Reader read;
    Writer write;  // empty: not written (derived or input-only keys)
    bool required = false;
    std::shared_ptr<const FieldTable> section;  // the keys of a nested map (section())
  };

  explicit FieldTable(std::string name) : name_(std::move(name)) {}

  // `access` is a generic lambda returning a reference to the member: [](auto& t) -> auto& {...}.
  template <class Access>
  FieldTable& integer(std::string key, Access access, std::int64_t lo, std::int64_t hi, std::string meaning) {
    using Member = std::remove_reference_t<decltype(access(std::declval<T&>()))>;
    const T dflt{};
    Field f{{key, integer_type_words(lo, hi), std::to_string(access(dflt)), std::move(meaning)}, {}, {}};
    f.read = [key, access, lo, hi](const ConfigNode& m, T& out) {
      access(out) = static_cast<Member>(m.integer(key, lo, hi));
    };
    f.write = [access](const T& v) { return nlohmann::json(access(v)); };
    return add(std::move(f));
  }

  template <class Access>
  FieldTable& number(std::string key, Access access, double lo, double hi, std::string meaning) {
    const T dflt{};
    Field f{{key, number_type_words(lo, hi, false), number_words(access(dflt)), std::move(meaning)}, {}, {}};
    f.read = [key, access, lo, hi](const ConfigNode& m, T& out) { access(out) = m.number(key, lo, hi); };
    f.write = [access](const T& v) { return nlohmann::json(access(v)); };
    return add(std::move(f));
  }

  template <class Access>
  FieldTable& boolean(std::string key, Access access, std::string meaning) {
    const T dflt{};
    Field f{{key, "bool", access(dflt) ? "true" : "false", std::move(meaning)}, {}, {}};
    f.read = [key, access](const ConfigNode& m, T& out) { access(out) = m.boolean(key); };
    f.write = [access](const T& v) { return nlohmann::json(static_cast<bool>(access(v))); };
    return add(std::move(f));
  }

  // A size (`256GiB`) in [lo, hi] bytes; `type` and the default are given in words, and `outside`
  // is the error for a size out of range.
  template <class Access>
  FieldTable& bytes(std::string key, Access access, Bytes lo, Bytes hi, std::string type, std::string outside,
                    std::string meaning) {
    Field f{{key, std::move(type), "", std::move(meaning)}, {}, {}};
    f.read = [key, access, lo, hi, outside](const ConfigNode& m, T& out) {
      const Bytes b = m.bytes(key);
      if (!(b.value() >= lo.value() && b.value() <= hi.value())) m.fail_key(key, outside);
      access(out) = b;
    };
    f.write = [access](const T& v) { return nlohmann::json(access(v).value()); };
    return add(std::move(f));
  }

  // A duration (`750us`, `1.5ms`) in [lo, hi]; written in seconds.
  template <class Access>
  FieldTable& time(std::string key, Access access, Time lo, Time hi, std::string meaning) {
    const T dflt{};
    const std::string type = "time in [" + time_words(lo) + ", " + time_words(hi) + "]";
    Field f{{key, type, time_words(access(dflt)), std::move(meaning)}, {}, {}};
    f.read = [key, access, lo, hi, type](const ConfigNode& m, T& out) {
      const Time t = m.time(key);
      if (t < lo || t > hi) m.fail_key(key, "must be a " + type);
      access(out) = t;
    };
    f.write = [access](const T& v) { return nlohmann::json(access(v).seconds()); };
    return add(std::move(f));
  }

  // A number in (lo, hi]: the lower bound itself is refused.
  template <class Access>
  FieldTable& number_above(std::string key, Access access, double lo, double hi, std::string meaning) {
    const T dflt{};
    const std::string type = number_type_words(lo, hi, true);
    Field f{{key, type, number_words(access(dflt)), std::move(meaning)}, {}, {}};
    f.read = [key, access, lo, hi, type](const ConfigNode& m, T& out) {
      const ConfigNode c = m.child(key);
      const double v = c.as_number();
      if (!(v > lo && v <= hi)) c.fail("must be a " + type);
      access(out) = v;
    };
    f.write = [access](const T& v) { return nlohmann::json(access(v)); };
    return add(std::move(f));
  }

  // A non-empty string.
  template <class Access>
  FieldTable& text(std::string key, Access access, std::string meaning) {
    Field f{{key, "string", "empty", std::move(meaning)}, {}, {}};
    f.read = [key, access](const ConfigNode& m, T& out) {
      const ConfigNode c = m.child(key);
      std::string v = c.as_str();
      if (v.empty()) c.fail("must not be empty");
      access(out) = std::move(v);
    };
    f.write = [access](const T& v) { return nlohmann::json(access(v)); };
    return add(std::move(f));
  }

  // A physical quantity read by `get` (&ConfigNode::as_bandwidth, as_bytes, ...): above zero and in
  // [lo, hi], bounds far wider than any real part so that what they catch is a unit slip ("3.35kB/s"
  // for "3.35TB/s"). `kind` ("bandwidth") and `range` ("10 GB/s to 1 PB/s") are words for the docs.
  template <class Access, class Get>
  FieldTable& quantity(std::string key, Access access, Get get, std::string kind, double lo, double hi,
                       std::string range, std::string meaning) {
    Field f{{key, kind + ", " + range, "", std::move(meaning)}, {}, {}};
    f.read = [key, access, get, lo, hi, range](const ConfigNode& m, T& out) {
      const ConfigNode c = m.child(key);
      const auto v = (c.*get)();
      if (!(v.value() > 0.0)) c.fail("must be greater than zero");
      if (!(v.value() >= lo && v.value() <= hi)) c.fail("outside the plausible range " + range + " (check the unit)");
      access(out) = v;
    };
    f.write = [access](const T& v) { return nlohmann::json(access(v).value()); };
    return add(std::move(f));
  }

  // A nested map `key` whose keys `sub` declares over the same T (so that its checks may read keys
  // read before it); the docs list them as `key.subkey`.
  FieldTable& section(std::string key, const FieldTable& sub, std::string meaning) {
    Field f{{key, "map", "", std::move(meaning)}, {}, {}};
    f.read = [key, sub](const ConfigNode& m, T& out) {
      const ConfigNode c = m.child(key);
      if (!c.is_map()) c.fail("expected a map");
      sub.read(c, out);
      c.finish();
    };
    f.write = [sub](const T& v) { return sub.write(v); };
    f.section = std::make_shared<FieldTable>(sub);
    return add(std::move(f));
  }

  // A key read and written by hand (a choice by name, a rule, a list); its words are given.
  FieldTable& custom(FieldDoc doc, Reader read, Writer write = {}) {
    return add(Field{std::move(doc), std::move(read), std::move(write)});
  }

  // Modifiers of the field added last.
  FieldTable& default_words(std::string words) { return last().doc.dflt = std::move(words), *this; }
  FieldTable& type_words(std::string words) { return last().doc.type = std::move(words), *this; }
  FieldTable& unwritten() { return last().write = nullptr, *this; }
  FieldTable& required() {
    last().required = true;
    last().doc.dflt = "required";
    return *this;
  }

  // Reads every key of the table that `map` holds into `out`; an absent key keeps `out`'s value (a
  // required one is an error). Keys not in the table are left for map.finish().
  void read(const ConfigNode& map, T& out) const {
    for (const Field& f : fields_) {
      if (map.has(f.doc.key))
        f.read(map, out);
      else if (f.required)
        map.child(f.doc.key);  // throws "missing required field"
      else
        map.ignore(f.doc.key);
    }
  }

  // The written fields of `value` (a JSON object; nlohmann::json orders its keys).
  nlohmann::json write(const T& value) const {
    nlohmann::json out = nlohmann::json::object();
    for (const Field& f : fields_)
      if (f.write) out[f.doc.key] = f.write(value);
    return out;
  }

  // One row per key; a section's keys follow it as `section.key`.
  std::vector<FieldDoc> docs() const {
    std::vector<FieldDoc> out;
    for (const Field& f : fields_) {
      if (!f.section) {
        out.push_back(f.doc);
        continue;
      }
      for (FieldDoc d : f.section->docs()) {
        d.key = f.doc.key + "." + d.key;
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
};

}  // namespace engramsim
