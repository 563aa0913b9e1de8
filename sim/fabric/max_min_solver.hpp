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
// at least one class, so there are at most `classes` rounds of O(touched resources + classes).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace engramsim::fabric {

struct FlowClassDemand {
  std::span<const std::uint32_t> resources;  // distinct resource indices, non-empty
  double count = 0.0;                        // flows in the class, > 0
  double bound = std::numeric_limits<double>::infinity();  // per-flow rate cap, > 0
};

class MaxMinSolver {
 public:
  explicit MaxMinSolver(std::vector<double> capacities);

  // Writes each class's per-flow rate into rates[i] (rates.size() == classes.size()).
  void solve(std::span<const FlowClassDemand> classes, std::span<double> rates);

  std::size_t resource_count() const { return capacity_.size(); }

 private:
  std::vector<double> capacity_;
  // Scratch kept between calls so that a steady-state solve does not allocate.
  std::vector<double> remaining_;
  std::vector<double> load_;
  std::vector<std::uint32_t> touched_;
  std::vector<std::uint8_t> is_touched_;
  std::vector<std::uint8_t> saturated_;
  std::vector<std::uint32_t> unfrozen_;
};

}  // namespace engramsim::fabric
