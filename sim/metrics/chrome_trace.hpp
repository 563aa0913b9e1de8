// A Chrome / Perfetto trace (JSON "traceEvents") of the first part of a run: every replica step,
// and with the in-run Engram tier every layer fetch and every fabric flow.
//
// Layout: one process (pid) per node ("node N"); without the in-run tier all replicas sit in one
// process. Threads (tid) inside it:
//   "replicaR"          complete events ("ph":"X") per step; args: prefill tokens, decode positions,
//                       Engram stall and fetch in microseconds;
//   "gpuG engram"       one X event per Engram layer fetch on that GPU (issue -> done);
//   "ROUTE" (+ " #k")   one X event per flow on that route (dram->gpuG, nvmeD->dram, gpuG->dram);
//                       flows that overlap on one route go to extra lanes "#1", "#2", ... so that
//                       events on one thread never overlap (the X/B/E model needs nesting).
// Time stamps are microseconds from the start of the run. Only events starting before `window`
// are kept, at most `max_events` of them (the first ones by start time); the file says so in
// "otherData". Written at finalize, never from a destructor.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "sim/memory/engram_tier_service.hpp"
#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

struct ChromeTraceOptions {
  std::string path;                        // empty: no trace
  Time window = Time::from_seconds(10.0);  // keep events that start before this
  std::uint64_t max_events = 1'000'000;
};

class ChromeTraceRecorder final : public ServingObserver, public EngramTraceSink {
 public:
  // `replica_node[r]` is the pid (node) that shows replica r's steps.
  ChromeTraceRecorder(ChromeTraceOptions options, std::vector<int> replica_node);

  void on_step(const StepRecord& step) override;
  void on_flow(int node, const std::string& route, const char* what, std::uint32_t replica, int gpu, Time start,
               Time finish, double bytes) override;
  void on_layer_fetch(int node, int gpu, std::uint32_t replica, int layer, Time issue, Time done,
                      double bytes) override;

  std::uint64_t events() const { return events_.size(); }
  std::uint64_t dropped() const { return dropped_; }
  void write(std::ostream& os) const;

 private:
  struct Item {
    Time start;
    Time duration;
    int pid = 0;
    int tid = 0;   // resolved at write time for flows (lanes)
    int kind = 0;  // 0 step, 1 layer fetch, 2 flow
    int route = -1;
    std::string name;
    std::string args;  // JSON object text
  };
  bool keep(Time start);
  int route_index(int node, const std::string& route);

  ChromeTraceOptions options_;
  std::vector<int> replica_node_;
  std::vector<Item> events_;
  std::uint64_t dropped_ = 0;
  std::map<std::pair<int, std::string>, int> routes_;
  std::vector<std::pair<int, std::string>> route_names_;
};

// Writes the recorder's trace to `path` (throws std::runtime_error when it cannot).
void write_chrome_trace(const ChromeTraceRecorder& trace, const std::string& path);

}  // namespace engramsim::sim
