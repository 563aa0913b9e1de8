// Sweeps over scenario keys, and the key-path overrides they (and `engramsim run --set`) apply.
//
// A scenario's optional `sweep:` block lists dimensions. Each entry of `sweep.axes` is either one
// axis `{key: dotted.path, values: [...]}` or a zipped group `{zip: [{key, values}, ...]}` whose
// axes have equal length and advance together (e.g. tp and ep paired). The points are the
// cartesian product of the dimensions in file order, the first dimension varying slowest, so the
// last axis (usually workload.concurrency) forms contiguous runs. A point's index is its position
// in that order; its id is a hash of its (key, value) assignments, stable across runs, machines
// and edits that do not change those assignments.
//
// Values may be any YAML (scalars, lists, maps); they replace the node at the key path in a deep
// copy of the base scenario. Key paths walk maps by key and lists by decimal index. Every
// component must already exist in the base scenario: a swept or --set key that does not exist is
// a typo until proven otherwise, and is reported with the location of the sweep entry.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config_node.hpp"
#include "core/config_override.hpp"
#include "core/error.hpp"
#include "core/field_table.hpp"

namespace engramsim::planner {

// The most points one sweep may expand to. Every point is a simulation and the expanded list is held
// in memory (a few hundred bytes a point), so the bound keeps both a run and its expansion finite.
inline constexpr std::size_t kMaxSweepPoints = 100'000;

struct SweepAxis {
  std::string key;                 // dotted path into the scenario
  std::vector<YAML::Node> values;  // at least one
  SourceLocation where;            // the sweep entry's `key:` (for errors)
};

// One factor of the cartesian product: a single axis, or several zipped axes of equal length.
struct SweepDimension {
  std::vector<SweepAxis> axes;
  std::size_t size() const { return axes.empty() ? 0 : axes.front().values.size(); }
};

struct SweepSpec {
  std::vector<SweepDimension> dimensions;

  // Parses a `sweep:` map (see the header comment). Marks its keys as read and rejects unknown ones.
  static SweepSpec parse(const ConfigNode& sweep);
  // The `sweep:` block of a scenario root, or an empty spec (one point, no assignments).
  static SweepSpec from_scenario(const ConfigNode& scenario_root);

  std::size_t point_count() const;
  // Axis keys in dimension order (zipped axes in their listed order).
  std::vector<std::string> keys() const;
  // The axis with this key, or nullptr.
  const SweepAxis* find_axis(const std::string& key) const;
};

struct Assignment {
  std::string key;
  YAML::Node value;
};

struct SweepPoint {
  std::size_t index = 0;
  std::string id;                       // 16 lowercase hex digits
  std::vector<Assignment> assignments;  // in axis order

  // {"key": value, ...}: scalars typed as JSON numbers/bools/null/strings (quoted YAML stays a string).
  nlohmann::json assignments_json() const;
  // "deployment.tp=2 workload.concurrency=8"
  std::string label() const;
};

// A scenario ready to sweep: the base (without its `sweep:` block), the expanded points, and a
// fingerprint of the base for DIR/sweep.json (so --resume refuses results of an edited scenario).
struct PreparedSweep {
  YAML::Node base;
  SweepSpec spec;
  std::vector<SweepPoint> points;
  std::string fingerprint;  // 16 hex digits: hash of the base emitted as canonical YAML
};
// Parses and validates the sweep of a scenario root (every key must exist in the base).
PreparedSweep prepare_sweep(const ConfigNode& scenario_root);

// The keys of a `sweep:` block, declared once: SweepSpec::parse reads through it and docs/planning.md
// shows its table. The entries of `axes` are read by hand (an entry is one axis or a zip of axes);
// their keys are the table's rows below `axes`. `sweep.report` and `sweep.plan` are the planner's
// (study/planner_scenario.hpp), read before the spec and removed from it.
const FieldTable<SweepSpec>& sweep_schema();

// Expands the product in deterministic order. An empty spec gives one point with no assignments.
std::vector<SweepPoint> expand_sweep(const SweepSpec& spec);
// A point with these assignments (in axis order); its id is a hash of them, as expand_sweep's.
SweepPoint make_sweep_point(std::size_t index, std::vector<Assignment> assignments);

// Checks every axis key resolves in `base`; throws ConfigError at the sweep entry otherwise.
void validate_sweep_keys(const SweepSpec& spec, const YAML::Node& base);

// A deep copy of `base` with the point's assignments applied and the `sweep:` block removed (the
// per-point scenario is a plain scenario). Only reads `base` and the point, so sweep workers may
// call it concurrently on a shared base.
YAML::Node scenario_for_point(const YAML::Node& base, const SweepPoint& point);

// Overrides (`--set`, a compare entry's `set:`) are core's apply_override (core/config_override.hpp).

// A YAML value as canonical one-line text (scalars verbatim, collections in flow style).
std::string canonical_text(const YAML::Node& value);
// A YAML value as JSON (see SweepPoint::assignments_json).
nlohmann::json yaml_to_json(const YAML::Node& value);

}  // namespace engramsim::planner
