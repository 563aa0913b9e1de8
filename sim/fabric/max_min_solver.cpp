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
      live_classes_(capacity_.size(), 0),
      adj_begin_(capacity_.size(), 0),
      adj_fill_(capacity_.size(), 0),
      is_touched_(capacity_.size(), 0) {}

void MaxMinSolver::index_classes(std::span<const FlowClassDemand> classes) {
  const auto n = static_cast<std::uint32_t>(classes.size());
  live_.clear();
  bounded_.clear();
  std::size_t hops = 0;
  for (std::uint32_t c = 0; c < n; ++c) {
    for (const std::uint32_t r : classes[c].resources) {
      if (!is_touched_[r]) {
        is_touched_[r] = 1;
        live_.push_back(r);
        remaining_[r] = capacity_[r];
        load_[r] = 0.0;
        live_classes_[r] = 0;
      }
      load_[r] += classes[c].count;
      ++live_classes_[r];
    }
    hops += classes[c].resources.size();
    if (classes[c].bound < std::numeric_limits<double>::infinity()) bounded_.push_back(c);
  }
  adj_.resize(hops);
  std::uint32_t offset = 0;
  for (const std::uint32_t r : live_) {
    adj_begin_[r] = offset;
    adj_fill_[r] = offset;
    offset += live_classes_[r];
  }
  for (std::uint32_t c = 0; c < n; ++c)
    for (const std::uint32_t r : classes[c].resources) adj_[adj_fill_[r]++] = c;
  std::sort(bounded_.begin(), bounded_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return classes[a].bound < classes[b].bound; });
}

void MaxMinSolver::freeze(std::uint32_t c, double level, std::span<const FlowClassDemand> classes,
                          std::span<double> rates) {
  frozen_[c] = 1;
  rates[c] = level;
  --unfrozen_;
  const FlowClassDemand& k = classes[c];
  for (const std::uint32_t r : k.resources) {
    remaining_[r] = std::max(0.0, remaining_[r] - k.count * level);
    load_[r] -= k.count;
    --live_classes_[r];
  }
}

void MaxMinSolver::fill_round(std::span<const FlowClassDemand> classes, std::span<double> rates) {
  while (next_bounded_ < bounded_.size() && frozen_[bounded_[next_bounded_]]) ++next_bounded_;
  double level = std::numeric_limits<double>::infinity();
  for (const std::uint32_t r : live_) level = std::min(level, remaining_[r] / load_[r]);
  if (next_bounded_ < bounded_.size()) level = std::min(level, classes[bounded_[next_bounded_]].bound);
  level = std::max(level, 0.0);
  const double tie_level = level * (1.0 + kTie);
  // Saturation is judged before this round's freezes change any remaining capacity.
  saturated_.clear();
  for (const std::uint32_t r : live_)
    if (remaining_[r] <= tie_level * load_[r]) saturated_.push_back(r);
  const std::uint32_t before = unfrozen_;
  for (; next_bounded_ < bounded_.size(); ++next_bounded_) {
    const std::uint32_t c = bounded_[next_bounded_];
    if (frozen_[c]) continue;
    if (classes[c].bound > tie_level) break;
    freeze(c, level, classes, rates);
  }
  for (const std::uint32_t r : saturated_)
    for (std::uint32_t i = adj_begin_[r]; i < adj_fill_[r]; ++i)
      if (!frozen_[adj_[i]]) freeze(adj_[i], level, classes, rates);
  // Every round freezes at least the classes that set the level. Only non-finite input (rejected
  // upstream) could break that; stop rather than spin.
  if (unfrozen_ == before) {
    assert(false && "max-min round froze nothing");
    for (std::uint32_t c = 0; c < classes.size(); ++c)
      if (!frozen_[c]) freeze(c, level, classes, rates);
  }
  std::erase_if(live_, [&](std::uint32_t r) { return live_classes_[r] == 0; });
}

void MaxMinSolver::solve(std::span<const FlowClassDemand> classes, std::span<double> rates) {
  assert(rates.size() == classes.size());
  index_classes(classes);
  frozen_.assign(classes.size(), 0);
  unfrozen_ = static_cast<std::uint32_t>(classes.size());
  next_bounded_ = 0;
  while (unfrozen_ > 0) fill_round(classes, rates);
  for (const FlowClassDemand& k : classes)
    for (const std::uint32_t r : k.resources) is_touched_[r] = 0;
}

}  // namespace engramsim::fabric
