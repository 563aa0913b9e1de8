#include "planner/sweep_spec.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "core/config_input.hpp"
#include "core/config_override.hpp"
#include "core/field_table.hpp"
#include "core/rng.hpp"

namespace engramsim::planner {
namespace {

// Refuse sweeps that cannot finish in any reasonable time rather than allocate billions of points.
// Ranges are generated, so bound them the same way per axis.
constexpr std::size_t kMaxRangeValues = 100'000;

std::string number_text(double v) {
  if (std::abs(v) < 9.0e15 && v == std::floor(v)) {
    return std::to_string(static_cast<long long>(v));
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// A generated axis: `{from, to, step}` (arithmetic) or `{from, to, factor}` (geometric).
struct RangeSpec {
  double from = 0.0, to = 0.0, step = 0.0, factor = 0.0;
  bool geometric = false;
};

const FieldTable<RangeSpec>& range_schema() {
  static const FieldTable<RangeSpec> table = [] {
    FieldTable<RangeSpec> t("range");
    t.number("from", &RangeSpec::from, -1e308, 1e308, "the first value").required();
    t.number("to", &RangeSpec::to, -1e308, 1e308,
             "the last value, included up to a relative 1e-9 (so that 0.1 steps keep it); at least `from`")
        .required();
    t.number("step", &RangeSpec::step, 0.0, 1e308, "arithmetic: from, from + step, ...")
        .type_words("number > 0")
        .default_words("none");
    t.number("factor", &RangeSpec::factor, -1e308, 1e308,
             "geometric, instead of `step`: from, from x factor, ... (`from` > 0)")
        .type_words("number > 1")
        .default_words("none");
    t.rule([](const ConfigNode& m, RangeSpec& r) {
      const bool has_step = m.has("step");
      r.geometric = m.has("factor");
      if (has_step == r.geometric) m.fail("give exactly one of step (arithmetic) or factor (geometric)");
      if (r.to < r.from) m.fail_key("to", "must be >= from");
      if (has_step && !(r.step > 0.0)) m.fail_key("step", "must be > 0");
      if (r.geometric && !(r.factor > 1.0)) m.fail_key("factor", "must be > 1");
      if (r.geometric && !(r.from > 0.0)) m.fail_key("from", "must be > 0 for a geometric range");
    });
    return t;
  }();
  return table;
}

// The values of a `range:`, both ends included (`to` up to a relative 1e-9).
std::vector<YAML::Node> expand_range(const ConfigNode& range) {
  RangeSpec r;
  range_schema().read(range, r);
  range.finish();
  std::vector<YAML::Node> out;
  const double slack = 1e-9 * std::max(std::abs(r.from), std::abs(r.to));
  if (!r.geometric) {
    for (std::size_t i = 0;; ++i) {
      const double v = r.from + static_cast<double>(i) * r.step;
      if (v > r.to + slack) break;
      if (out.size() >= kMaxRangeValues) range.fail("range has more than 100000 values");
      out.emplace_back(number_text(v));
    }
    return out;
  }
  for (double v = r.from; v <= r.to + slack; v *= r.factor) {
    if (out.size() >= kMaxRangeValues) range.fail("range has more than 100000 values");
    out.emplace_back(number_text(v));
  }
  return out;
}

// The keys of one axis (an entry of `axes`, or of a `zip`).
const FieldTable<SweepAxis>& axis_schema() {
  static const FieldTable<SweepAxis> table = [] {
    FieldTable<SweepAxis> t("axis");
    t.custom({"key", "string", "required",
              "dotted key path into the scenario (maps by key, lists by index); it must exist in the scenario"},
             [](const ConfigNode& m, SweepAxis& axis) {
               const ConfigNode key = m.child("key");
               axis.key = key.as_str();
               axis.where = key.location();
               if (axis.key.empty()) key.fail("key is empty");
               for (const auto& part : split_key_path(axis.key))
                 if (part.empty()) key.fail("key \"" + axis.key + "\" has an empty component");
             })
        .required();
    t.custom({"values", "list of YAML values", "none",
              "the values, any YAML (scalars, lists, maps), each replacing the node at `key`"},
             [](const ConfigNode& m, SweepAxis& axis) {
               const ConfigNode values = m.child("values");
               if (!values.is_sequence()) values.fail("expected a list of values");
               for (const auto& v : values.elements()) axis.values.push_back(v.raw());
               if (axis.values.empty()) values.fail("values is empty");
             });
    t.custom({"range", "map", "none", "instead of `values`: generated numbers"}, [](const ConfigNode& m,
                                                                                    SweepAxis& axis) {
       axis.values = expand_range(m.child("range"));
       if (axis.values.empty()) m.child("range").fail("range is empty");
     }).keys_below(range_schema().docs(), ".");
    t.rule([](const ConfigNode& m, SweepAxis&) {
      if (m.has("values") == m.has("range"))
        m.fail("give exactly one of values: [...] or range: {from, to, step|factor}");
    });
    return t;
  }();
  return table;
}

SweepAxis parse_axis(const ConfigNode& entry) {
  if (!entry.is_map()) entry.fail("expected {key: dotted.path, values: [...]}");
  SweepAxis axis;
  axis_schema().read(entry, axis);
  entry.finish();
  return axis;
}

// The entries of `axes`: one axis, or a `zip` of axes of equal length; no key swept twice.
void read_axes(const ConfigNode& sweep, SweepSpec& spec) {
  const ConfigNode axes = sweep.child("axes");
  if (!axes.is_sequence()) axes.fail("expected a list of {key, values} or {zip: [...]}");
  std::set<std::string> seen;
  auto check_unique = [&](const SweepAxis& a, const ConfigNode& at) {
    if (!seen.insert(a.key).second) at.fail("key \"" + a.key + "\" is swept twice");
  };
  for (const auto& entry : axes.elements()) {
    SweepDimension dim;
    if (entry.is_map() && entry.has("zip")) {
      const ConfigNode zip = entry.child("zip");
      if (!zip.is_sequence()) zip.fail("expected a list of {key, values}");
      for (const auto& z : zip.elements()) {
        dim.axes.push_back(parse_axis(z));
        check_unique(dim.axes.back(), z.child("key"));
        if (dim.axes.back().values.size() != dim.axes.front().values.size()) {
          z.fail("zipped axes must have equal lengths: \"" + dim.axes.back().key + "\" has " +
                 std::to_string(dim.axes.back().values.size()) + " values, \"" + dim.axes.front().key + "\" has " +
                 std::to_string(dim.axes.front().values.size()));
        }
      }
      if (dim.axes.empty()) zip.fail("zip is empty");
      entry.finish();
    } else {
      dim.axes.push_back(parse_axis(entry));
      check_unique(dim.axes.back(), entry.child("key"));
    }
    spec.dimensions.push_back(std::move(dim));
  }
}

void append_hex(std::string& out, std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(digits[(v >> shift) & 0xF]);
}

}  // namespace

const FieldTable<SweepSpec>& sweep_schema() {
  static const FieldTable<SweepSpec> table = [] {
    std::vector<FieldDoc> entry = axis_schema().docs();
    entry.push_back({"zip", "list of axes", "none",
                     "instead of `key`: axes (`key` with `values` or `range`) of equal length that advance together"});
    FieldTable<SweepSpec> t("sweep");
    t.custom({"axes", "list of axes and zips", "required",
              "the dimensions of the cartesian product, in file order (the first varies slowest)"},
             read_axes)
        .required()
        .keys_below(entry, "[].");
    t.rule([](const ConfigNode& m, SweepSpec& spec) {
      m.finish();  // an unknown key is the error, not the size it leaves
      std::size_t n = 1;
      for (const auto& d : spec.dimensions) {
        if (d.size() > kMaxSweepPoints / n)
          m.fail("sweep expands to more than " + std::to_string(kMaxSweepPoints) + " points, the limit for one sweep");
        n *= d.size();
      }
    });
    return t;
  }();
  return table;
}

SweepSpec SweepSpec::parse(const ConfigNode& sweep) {
  if (!sweep.is_map()) sweep.fail("expected a map with axes: [...]");
  SweepSpec spec;
  sweep_schema().read(sweep, spec);
  sweep.finish();
  return spec;
}

SweepSpec SweepSpec::from_scenario(const ConfigNode& scenario_root) {
  if (auto s = scenario_root.optional_child("sweep")) return parse(*s);
  return {};
}

std::size_t SweepSpec::point_count() const {
  std::size_t n = 1;
  for (const auto& d : dimensions) n *= d.size();
  return n;
}

std::vector<std::string> SweepSpec::keys() const {
  std::vector<std::string> out;
  for (const auto& d : dimensions)
    for (const auto& a : d.axes) out.push_back(a.key);
  return out;
}

const SweepAxis* SweepSpec::find_axis(const std::string& key) const {
  for (const auto& d : dimensions)
    for (const auto& a : d.axes)
      if (a.key == key) return &a;
  return nullptr;
}

std::string canonical_text(const YAML::Node& value) {
  if (value.IsScalar()) return value.Scalar();
  if (!value.IsDefined() || value.IsNull()) return "null";
  YAML::Emitter e;
  e << YAML::Flow << value;
  return e.c_str();
}

nlohmann::json yaml_to_json(const YAML::Node& value) {
  if (!value.IsDefined() || value.IsNull()) return nullptr;
  if (value.IsSequence()) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& e : value) arr.push_back(yaml_to_json(e));
    return arr;
  }
  if (value.IsMap()) {
    nlohmann::json obj = nlohmann::json::object();
    // Checked trees hold only scalar keys; any other key is written as its YAML text, never thrown.
    for (const auto& kv : value)
      obj[kv.first.IsScalar() ? kv.first.Scalar() : canonical_text(kv.first)] = yaml_to_json(kv.second);
    return obj;
  }
  const std::string& s = value.Scalar();
  // A quoted YAML scalar carries the non-specific tag "!": the user meant a string.
  if (value.Tag() == "!") return s;
  if (s == "true") return true;
  if (s == "false") return false;
  if (s == "null" || s == "~") return nullptr;
  if (!s.empty()) {
    try {
      std::size_t used = 0;
      const long long i = std::stoll(s, &used);
      if (used == s.size()) return static_cast<std::int64_t>(i);
    } catch (const std::exception&) {
    }
    try {
      std::size_t used = 0;
      const double d = std::stod(s, &used);
      if (used == s.size() && std::isfinite(d)) return d;
    } catch (const std::exception&) {
    }
  }
  return s;
}

nlohmann::json SweepPoint::assignments_json() const {
  nlohmann::json obj = nlohmann::json::object();
  for (const auto& a : assignments) obj[a.key] = yaml_to_json(a.value);
  return obj;
}

std::string SweepPoint::label() const {
  std::string out;
  for (const auto& a : assignments) {
    if (!out.empty()) out += ' ';
    out += a.key + "=" + canonical_text(a.value);
  }
  return out;
}

SweepPoint make_sweep_point(std::size_t index, std::vector<Assignment> assignments) {
  SweepPoint p;
  p.index = index;
  std::string canonical;
  for (const auto& a : assignments) {
    // Length-prefixed so that no key/value text can collide with another split of the same bytes.
    const std::string v = canonical_text(a.value);
    canonical += std::to_string(a.key.size()) + ":" + a.key + "=" + std::to_string(v.size()) + ":" + v + ";";
  }
  append_hex(p.id, stable_hash(canonical));
  p.assignments = std::move(assignments);
  return p;
}

std::vector<SweepPoint> expand_sweep(const SweepSpec& spec) {
  const std::size_t n = spec.point_count();
  std::vector<SweepPoint> points;
  points.reserve(n);
  std::vector<std::size_t> digit(spec.dimensions.size(), 0);
  for (std::size_t index = 0; index < n; ++index) {
    // Mixed-radix decomposition, last dimension fastest.
    std::size_t rest = index;
    for (std::size_t d = spec.dimensions.size(); d-- > 0;) {
      const std::size_t radix = spec.dimensions[d].size();
      digit[d] = rest % radix;
      rest /= radix;
    }
    std::vector<Assignment> assignments;
    for (std::size_t d = 0; d < spec.dimensions.size(); ++d)
      for (const auto& axis : spec.dimensions[d].axes) assignments.push_back({axis.key, axis.values[digit[d]]});
    points.push_back(make_sweep_point(index, std::move(assignments)));
  }
  return points;
}

void validate_sweep_keys(const SweepSpec& spec, const YAML::Node& base) {
  for (const auto& d : spec.dimensions)
    for (const auto& a : d.axes) resolve_key_path(base, a.key, a.where);
}

PreparedSweep prepare_sweep(const ConfigNode& scenario_root) {
  PreparedSweep out;
  out.spec = SweepSpec::from_scenario(scenario_root);
  validate_sweep_keys(out.spec, scenario_root.raw());
  out.base = YAML::Clone(scenario_root.raw());
  const YAML::Node& peek = out.base;
  if (out.base.IsMap() && peek["sweep"]) out.base.remove("sweep");
  out.points = expand_sweep(out.spec);
  YAML::Emitter e;
  e << out.base;
  append_hex(out.fingerprint, stable_hash(e.c_str()));
  return out;
}

YAML::Node scenario_for_point(const YAML::Node& base, const SweepPoint& point) {
  YAML::Node copy = YAML::Clone(base);
  const YAML::Node& peek = copy;  // const access never inserts a key
  if (copy.IsMap() && peek["sweep"]) copy.remove("sweep");
  for (const auto& a : point.assignments) apply_override(copy, a.key, a.value, {"sweep", 0, 0});
  return copy;
}

}  // namespace engramsim::planner
