// The simgrid fabric backend: the same flows run on SimGrid 3.32's flow model.
//
// SimGrid keeps one engine per process in global state, so this class owns a child process (the
// engramsim-simgrid-fabric helper) and forwards each call over a socket pair; the helper's protocol
// and SimGrid configuration are documented in simgrid_fabric_helper.cpp and docs/fabric.md.
// Every call is a round trip to the child (next_completion_time() also forks a probe there), so
// this backend is for fidelity checks and tests, not for sweeps.
//
// Differences from native, all documented limits: sizes are rounded to whole bytes (SimGrid comm
// payloads are integers); at most FabricOptions::simgrid_bound_slots rate-bounded flows may be in
// flight per route; the helper program must exist (simgrid_fabric_available()).
#pragma once

#include <sys/types.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "sim/fabric/fabric.hpp"

namespace engramsim::fabric {

// The helper path FabricOptions resolve to (empty if none is configured or built).
std::string simgrid_helper_path(const FabricOptions& options);
// True when that helper exists and is executable, i.e. the simgrid backend can be created.
bool simgrid_fabric_available(const FabricOptions& options = {});

class SimGridFabric final : public Fabric {
 public:
  // Throws std::runtime_error when the helper cannot be started.
  SimGridFabric(FabricTopology topology, const FabricOptions& options);
  ~SimGridFabric() override;
  SimGridFabric(const SimGridFabric&) = delete;
  SimGridFabric& operator=(const SimGridFabric&) = delete;

  std::string_view backend() const override { return "simgrid"; }
  const FabricTopology& topology() const override { return topology_; }
  Time now() const override { return now_; }
  std::size_t flows_in_flight() const override { return starts_.size(); }

  FlowId start_flow(const FlowSpec& spec) override;
  Time next_completion_time() override;
  std::vector<FlowCompletion> advance_to(Time t) override;

 private:
  void send(const std::string& text);
  std::string read_line();  // throws std::runtime_error on EOF or an "error" answer

  FabricTopology topology_;
  pid_t child_ = -1;
  int fd_ = -1;
  std::string inbox_;
  Time now_;
  FlowId next_id_ = 0;
  std::unordered_map<FlowId, Time> starts_;  // flows in flight -> their start
  bool next_valid_ = false;
  Time next_cached_;
};

}  // namespace engramsim::fabric
