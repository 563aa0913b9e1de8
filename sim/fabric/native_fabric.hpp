// The native fabric backend: an event-driven max-min fair-share solver in this process.
//
// Flows on the same route with the same rate bound form a class; max-min gives them equal rates,
// so a class keeps one cumulative per-flow progress counter (bytes each of its flows has moved
// since the class was last empty) and a min-heap of its flows keyed by the progress at which each
// is done (progress at activation + size). A rate change costs one solve over the classes and one
// O(classes) sweep, independent of how many flows are in flight; a completion costs a heap pop.
//
// Events are activations (a flow's start + route latency) and completions, processed in exact
// double-precision time; at equal times activations go first. next_completion_time() looks ahead
// on a copy of the per-class counters (not of the flows), replaying pending activations until the
// first completion, so it never perturbs the state a later start_flow would change.
#pragma once

#include <set>
#include <vector>

#include "sim/fabric/fabric.hpp"
#include "sim/fabric/max_min_solver.hpp"

namespace engramsim::fabric {

class NativeFabric final : public Fabric {
 public:
  explicit NativeFabric(FabricTopology topology);

  std::string_view backend() const override { return "native"; }
  const FabricTopology& topology() const override { return topology_; }
  Time now() const override { return now_; }
  std::size_t flows_in_flight() const override { return pending_.size() + active_flows_; }

  FlowId start_flow(const FlowSpec& spec) override;
  Time next_completion_time() override;
  std::vector<FlowCompletion> advance_to(Time t) override;

  // Current per-flow rate (bytes/s) of a transferring flow's class; for tests and tracing.
  // Returns 0 for a flow that is pending or unknown. O(flows in its class).
  double current_rate(FlowId id);

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
  struct Pending {
    Time activation;
    FlowId id;
    Time start;
    double size;
    std::uint32_t cls;
    bool operator<(const Pending& o) const {
      return activation != o.activation ? activation < o.activation : id < o.id;
    }
  };

  std::uint32_t class_for(RouteId route, double bound);
  void ensure_rates();
  void solve_for(const std::vector<std::uint32_t>& classes, const std::vector<double>& counts);
  // Earliest exact completion over transferring classes; returns the class or UINT32_MAX.
  std::uint32_t earliest_completion(double& when) const;
  void progress_to(double t);
  void activate(const Pending& p);
  void complete_due(std::uint32_t trigger, Time finish, std::vector<FlowCompletion>& out);

  FabricTopology topology_;
  MaxMinSolver solver_;
  std::vector<FlowClass> classes_;
  std::vector<std::uint32_t> active_;  // classes with flows transferring, ascending index
  std::set<Pending> pending_;          // waiting for start + latency, in activation order
  std::size_t active_flows_ = 0;
  FlowId next_id_ = 0;
  Time now_;
  double clock_s_ = 0.0;  // exact fluid time, >= now_ up to rounding
  bool rates_dirty_ = false;
  bool next_valid_ = false;
  Time next_cached_;
  // Scratch for solves and look-ahead, kept to avoid allocating per event.
  std::vector<FlowClassDemand> demands_;
  std::vector<double> solved_;
};

}  // namespace engramsim::fabric
