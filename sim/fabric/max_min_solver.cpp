#include "sim/fabric/max_min_solver.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace engramsim::fabric {
namespace {
// Saturation levels closer than this (relative) are treated as one event, so two resources that
// saturate at the same level in exact arithmetic freeze in the same round despite rounding.
constexpr double kTie = 1e-12;
}  // namespace

MaxMinSolver::MaxMinSolver(std::vector<double> capacities)
    : capacity_(std::move(capacities)),
      remaining_(capacity_.size(), 0.0),
      load_(capacity_.size(), 0.0),
      is_touched_(capacity_.size(), 0),
      saturated_(capacity_.size(), 0) {}

void MaxMinSolver::solve(std::span<const FlowClassDemand> classes, std::span<double> rates) {
  assert(rates.size() == classes.size());
  touched_.clear();
  unfrozen_.clear();
  for (std::uint32_t c = 0; c < classes.size(); ++c) {
    for (const std::uint32_t r : classes[c].resources) {
      if (!is_touched_[r]) {
        is_touched_[r] = 1;
        touched_.push_back(r);
        remaining_[r] = capacity_[r];
        load_[r] = 0.0;
      }
      load_[r] += classes[c].count;
    }
    unfrozen_.push_back(c);
  }

  while (!unfrozen_.empty()) {
    double level = std::numeric_limits<double>::infinity();
    for (const std::uint32_t r : touched_)
      if (load_[r] > 0.0) level = std::min(level, remaining_[r] / load_[r]);
    for (const std::uint32_t c : unfrozen_) level = std::min(level, classes[c].bound);
    level = std::max(level, 0.0);
    const double tie_level = level * (1.0 + kTie);

    for (const std::uint32_t r : touched_)
      saturated_[r] = load_[r] > 0.0 && remaining_[r] <= tie_level * load_[r];

    std::size_t kept = 0;
    for (const std::uint32_t c : unfrozen_) {
      const FlowClassDemand& k = classes[c];
      bool freeze = k.bound <= tie_level;
      for (std::size_t i = 0; !freeze && i < k.resources.size(); ++i) freeze = saturated_[k.resources[i]];
      if (!freeze) {
        unfrozen_[kept++] = c;
        continue;
      }
      rates[c] = level;
      for (const std::uint32_t r : k.resources) {
        remaining_[r] = std::max(0.0, remaining_[r] - k.count * level);
        load_[r] -= k.count;
      }
    }
    // Every round freezes at least the classes that set `level`. Only non-finite input (rejected
    // upstream) could break that; stop rather than spin.
    if (kept == unfrozen_.size()) {
      assert(false && "max-min round froze nothing");
      for (const std::uint32_t c : unfrozen_) rates[c] = level;
      kept = 0;
    }
    unfrozen_.resize(kept);
  }

  for (const std::uint32_t r : touched_) {
    is_touched_[r] = 0;
    saturated_[r] = 0;
  }
}

}  // namespace engramsim::fabric
