#include "planner/sweep_spec.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "core/config_input.hpp"
#include "core/config_override.hpp"
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

// `range: {from, to, step}` (arithmetic) or `{from, to, factor}` (geometric), both inclusive of
// `to` up to a relative 1e-9 so that 0.1 steps do not lose their last value to rounding.
std::vector<YAML::Node> expand_range(const ConfigNode& range) {
  const double from = range.number("from");
  const double to = range.number("to");
  const bool has_step = range.has("step");
  const bool has_factor = range.has("factor");
  if (has_step == has_factor) range.fail("give exactly one of step (arithmetic) or factor (geometric)");
  if (to < from) range.fail_key("to", "must be >= from");
  std::vector<YAML::Node> out;
  const double slack = 1e-9 * std::max(std::abs(from), std::abs(to));
  if (has_step) {
    const double step = range.number("step", 0.0);
    if (!(step > 0.0)) range.fail_key("step", "must be > 0");
    for (std::size_t i = 0;; ++i) {
      const double v = from + static_cast<double>(i) * step;
      if (v > to + slack) break;
      if (out.size() >= kMaxRangeValues) range.fail("range has more than 100000 values");
      out.emplace_back(number_text(v));
    }
  } else {
    const double factor = range.number("factor");
    if (!(factor > 1.0)) range.fail_key("factor", "must be > 1");
    if (!(from > 0.0)) range.fail_key("from", "must be > 0 for a geometric range");
    double v = from;
    while (v <= to + slack) {
      if (out.size() >= kMaxRangeValues) range.fail("range has more than 100000 values");
      out.emplace_back(number_text(v));
      v *= factor;
    }
  }
  range.finish();
  return out;
}

SweepAxis parse_axis(const ConfigNode& entry) {
  if (!entry.is_map()) entry.fail("expected {key: dotted.path, values: [...]}");
  SweepAxis axis;
  const ConfigNode key = entry.child("key");
  axis.key = key.as_str();
  axis.where = key.location();
  if (axis.key.empty()) key.fail("key is empty");
  for (const auto& part : split_key_path(axis.key))
    if (part.empty()) key.fail("key \"" + axis.key + "\" has an empty component");
  const bool has_values = entry.has("values");
  const bool has_range = entry.has("range");
  if (has_values == has_range) entry.fail("give exactly one of values: [...] or range: {from, to, step|factor}");
  if (has_values) {
    const ConfigNode values = entry.child("values");
    if (!values.is_sequence()) values.fail("expected a list of values");
    for (const auto& v : values.elements()) axis.values.push_back(v.raw());
    if (axis.values.empty()) values.fail("values is empty");
  } else {
    axis.values = expand_range(entry.child("range"));
    if (axis.values.empty()) entry.child("range").fail("range is empty");
  }
  entry.finish();
  return axis;
}

void append_hex(std::string& out, std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(digits[(v >> shift) & 0xF]);
}

}  // namespace

SweepSpec SweepSpec::parse(const ConfigNode& sweep) {
  if (!sweep.is_map()) sweep.fail("expected a map with axes: [...]");
  SweepSpec spec;
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
  sweep.finish();
  std::size_t n = 1;
  for (const auto& d : spec.dimensions) {
    if (d.size() > kMaxSweepPoints / n)
      sweep.fail("sweep expands to more than " + std::to_string(kMaxSweepPoints) + " points, the limit for one sweep");
    n *= d.size();
  }
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
