// Max-min fair rates by progressive filling (water-filling).
//
// Input: resource capacities (bytes/s) and flow classes. A class is `count` identical flows on the
// same resource set with the same optional per-flow rate bound; max-min fairness gives identical
// flows identical rates, so solving over classes is exact and costs O(classes) instead of O(flows).
//
// Output: the per-flow rate of every class, such that no resource carries more than its capacity,
// no flow exceeds its bound, and no flow's rate can be raised without lowering the rate of a flow
// that is not faster (the max-min fair allocation, which is unique).
//
// Method: all unfrozen flows rise together from 0. The next event is the lowest level at which
// either a resource saturates (remaining capacity / unfrozen flows on it) or a bound is reached;
// the flows it stops are frozen at that level and their consumption is removed. Each round freezes
// at least one class. A round scans the resources that still carry unfrozen flows; classes are
// reached through a resource -> classes index and bounded classes through a list sorted by bound,
// so each class is frozen once in O(its resources): O(rounds x resources + sum of path lengths +
// bounded log bounded) per solve.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace engramsim::fabric {

struct FlowClassDemand {
  std::span<const std::uint32_t> resources;                // distinct resource indices, non-empty
  double count = 0.0;                                      // flows in the class, > 0
  double bound = std::numeric_limits<double>::infinity();  // per-flow rate cap, > 0
};

class MaxMinSolver {
 public:
  explicit MaxMinSolver(std::vector<double> capacities);

  // Writes each class's per-flow rate into rates[i] (rates.size() == classes.size()).
  void solve(std::span<const FlowClassDemand> classes, std::span<double> rates);

  std::size_t resource_count() const { return capacity_.size(); }

 private:
  // solve() in steps: the touched resources with their loads and classes (CSR), one round of
  // water-filling (raise the level to the next saturation or bound, freeze what it reaches), and
  // freezing one class at the round's level.
  void index_classes(std::span<const FlowClassDemand> classes);
  void fill_round(std::span<const FlowClassDemand> classes, std::span<double> rates);
  void freeze(std::uint32_t c, double level, std::span<const FlowClassDemand> classes, std::span<double> rates);

  std::vector<double> capacity_;
  // Scratch kept between calls so that a steady-state solve does not allocate.
  std::vector<double> remaining_;            // per resource
  std::vector<double> load_;                 // unfrozen flows, per resource
  std::vector<std::uint32_t> live_classes_;  // unfrozen classes, per resource
  std::vector<std::uint32_t> adj_begin_;     // per resource: start of its classes in adj_
  std::vector<std::uint32_t> adj_fill_;
  std::vector<std::uint32_t> adj_;
  std::vector<std::uint8_t> is_touched_;
  std::vector<std::uint32_t> live_;  // resources still carrying unfrozen flows
  std::vector<std::uint32_t> saturated_;
  std::vector<std::uint32_t> bounded_;  // classes with a finite bound, by bound
  std::vector<std::uint8_t> frozen_;    // per class
  std::uint32_t unfrozen_ = 0;          // classes not yet frozen in this solve
  std::size_t next_bounded_ = 0;        // first bounded_ entry that may still be unfrozen
};

}  // namespace engramsim::fabric
