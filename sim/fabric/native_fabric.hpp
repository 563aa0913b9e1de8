// The native fabric backend: an event-driven max-min fair-share solver in this process.
//
// Flows on the same route with the same rate bound form a class; max-min gives them equal rates,
// so a class keeps one cumulative per-flow progress counter (bytes each of its flows has moved
// since the class was last empty) and a min-heap of its flows keyed by the progress at which each
// is done (progress at activation + size). A rate change costs one solve over the classes and one
// O(classes) sweep, independent of how many flows are in flight; a completion costs a heap pop.
//
// Events are activations (a flow's start + route latency) and completions, processed in exact
// double-precision time; at equal times activations go first. Flows waiting for activation are
// grouped by (activation time, class). next_completion_time() looks ahead on a copy of the
// per-class counters (not of the flows), replaying pending activation groups until the first
// completion, so it never perturbs the state a later start_flow would change.
//
// Rates depend only on which classes are active and how many flows each holds, and the look-ahead
// and the following advance_to meet the same such states, so recent solves are memoised by that
// key (a small ring, compared exactly): the second visit costs a lookup, not a solve.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/fabric/fabric.hpp"
#include "sim/fabric/max_min_solver.hpp"

namespace engramsim::fabric {

struct NativeFabricStats {
  std::uint64_t solves = 0;      // max-min solves actually run
  std::uint64_t memo_hits = 0;   // solves answered from the memo
  std::uint64_t lookaheads = 0;  // next_completion_time() calls that had to look ahead
  std::uint64_t events = 0;      // activation batches and completion instants processed
};

class NativeFabric final : public Fabric {
 public:
  explicit NativeFabric(FabricTopology topology);

  std::string_view backend() const override { return "native"; }
  const FabricTopology& topology() const override { return topology_; }
  Time now() const override { return now_; }
  std::size_t flows_in_flight() const override { return pending_flows_ + active_flows_; }

  FlowId start_flow(const FlowSpec& spec) override;
  Time next_completion_time() override;
  std::vector<FlowCompletion> advance_to(Time t) override;

  // Current per-flow rate (bytes/s) of a transferring flow; 0 for a flow that is pending or
  // unknown. O(flows in flight); for tests and tracing.
  double current_rate(FlowId id);
  const NativeFabricStats& stats() const { return stats_; }

 private:
  struct Member {
    double done_at;  // class progress at which this flow has moved all its bytes
    FlowId id;
    Time start;
  };
  struct FlowClass {
    RouteId route;
    double bound;
    double progress = 0.0;
    double rate = 0.0;
    std::vector<Member> heap;  // min-heap on (done_at, id)
  };
  struct PendingFlow {
    FlowId id;
    Time start;
    double size;
  };
  struct PendingGroup {
    std::vector<PendingFlow> flows;  // in start_flow order
    double min_size = 0.0;
  };
  struct MemoEntry {
    std::uint64_t hash = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> key;  // (class, flows), ascending class
    std::vector<double> rates;
  };

  std::uint32_t class_for(RouteId route, double bound);
  // Per-flow rates of `classes` (ascending) holding `counts` flows, into solved_.
  void solve_for(const std::vector<std::uint32_t>& classes, const std::vector<double>& counts);
  void ensure_rates();
  // Earliest exact completion over transferring classes; returns the class or UINT32_MAX.
  std::uint32_t earliest_completion(double& when) const;
  void progress_to(double t);
  void activate_group(std::uint32_t cls, const PendingGroup& group);
  void complete_due(std::uint32_t trigger, Time finish, std::vector<FlowCompletion>& out);

  FabricTopology topology_;
  MaxMinSolver solver_;
  std::vector<FlowClass> classes_;
  std::map<std::pair<RouteId, double>, std::uint32_t> class_index_;
  std::vector<std::uint32_t> active_;                               // classes with flows transferring, ascending index
  std::map<std::pair<Time, std::uint32_t>, PendingGroup> pending_;  // (activation, class)
  std::size_t pending_flows_ = 0;
  std::size_t active_flows_ = 0;
  FlowId next_id_ = 0;
  Time now_;
  double clock_s_ = 0.0;  // exact fluid time, >= now_ up to rounding
  bool rates_dirty_ = false;
  bool next_valid_ = false;
  Time next_cached_;
  NativeFabricStats stats_;
  std::vector<MemoEntry> memo_;
  std::size_t memo_next_ = 0;
  // Scratch kept between calls so that steady-state events do not allocate.
  std::vector<FlowClassDemand> demands_;
  std::vector<double> solved_;
  std::vector<double> counts_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> key_;
  std::vector<std::uint32_t> la_classes_;
  std::vector<double> la_counts_, la_progress_, la_rate_, la_first_done_;  // indexed by class
};

}  // namespace engramsim::fabric
