// Replays agentic session trees (sim/workload/agentic_session.hpp) the way InferenceX's AgentX
// benchmark drives a server: `lanes` session trees are live at once, each lane replaying one tree
// (main agent plus subagent groups) and starting the next only when its whole tree has drained.
//
// Rules (docs/agentic.md "Replay rules" says why each was chosen):
//   - Start point: a lane's first tree starts at main-agent call k = clamp(floor(r x M), 1, M - 1),
//     r uniform in [start_ratio_min, start_ratio_max], M the tree's main calls (k = 0 when M = 1);
//     main call k - 1 is sent first, alone, to prime the prefix; entries between it and call k are
//     skipped. Recycled lanes start the next tree at entry 0.
//   - Cache-bust: a recycled lane's tree (and any tree after the corpus's first pass) has all its
//     hash ids salted with a value unique to that use, so no block of an earlier use of the same
//     tree, or of another tree, can hit. The lanes' first trees keep the corpus's ids.
//   - Ordering: main calls run one after another. A subagent group starts when the main call before
//     it ends; consecutive groups start together (each at its own recorded offset), so they overlap
//     as the trace records; the next main call waits until all of them have ended. Calls inside a
//     group run one after another.
//   - Delays: a call is sent `gap` after what it waits for ends, gap = its recorded start minus the
//     recorded end (start + api_time) of what it waits for, clamped to [0, tree_idle_cap]. When no
//     request is in the system, pending sends are moved earlier together so that the whole system
//     is never idle for more than system_idle_cap.
//   - Lengths: recorded `in` and `out` (ignore_eos: output always runs to `out`); a call over the
//     deployment's max_model_len is rejected by the replica (counted as rejected) and its tree goes
//     on as if it had ended at that instant.
//   - Warm-up (aiperf's accelerated cache warm-up): after its priming call a lane sends its next
//     `warmup_requests` requests at once, each with a 1-token output (max_tokens = 1), with no
//     recorded delay; calls due after that are held with their delays. The primer and these
//     requests are warm-up. The measured window opens when every lane has used its warm-up
//     requests and none is in flight, or at `grace`, whichever is first, and lasts `duration`;
//     the held calls are then sent after their delays less the shortest of them, so the first
//     goes at once. Only requests sent inside the window are measured (Request::measured). No
//     request is sent after the window closes; those in flight finish.
// Deterministic: the start ratios come from the simulation's RNG stream "agentic/start" and the
// salts from the run seed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/units.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/serving_observer.hpp"
#include "sim/serving/slot_pool.hpp"
#include "sim/workload/agentic_session.hpp"

namespace engramsim::sim {

struct AgenticReplayParams {
  std::int32_t lanes = 1;                           // concurrency: live session trees, > 0
  Time duration = Time::from_seconds(3600.0);       // measured window, > 0
  std::int32_t warmup_requests = 10;                // per lane after its priming call, >= 0
  Time grace = Time::from_seconds(1800.0);          // latest start of the measured window, >= 0
  Time tree_idle_cap = Time::from_seconds(300.0);   // cap on each recorded end-to-start gap
  Time system_idle_cap = Time::from_seconds(10.0);  // cap on time with nothing in the system
  double start_ratio_min = 0.25;
  double start_ratio_max = 0.75;
};

// The corpus, reopened from its start each time it runs out (a replay longer than the corpus
// reuses trees, each use cache-busted).
using AgenticSourceFactory = std::function<std::unique_ptr<AgenticSessionSource>()>;

struct AgenticReplayStats {
  std::uint64_t submitted = 0;
  std::uint64_t measured = 0;
  std::uint64_t trees_started = 0;
  std::uint64_t corpus_passes = 0;  // times the source was (re)opened
  Time window_start = Time::max();  // Time::max(): never opened
  Time window_end = Time::max();
  Time idle_skipped;  // total whole-system idle cut by system_idle_cap
};

class AgenticReplayDriver final : public EventHandler, public ServingObserver {
 public:
  AgenticReplayDriver(Simulation& sim, AgenticSourceFactory source, RequestSink& sink,
                      const AgenticReplayParams& params);
  void start();
  void on_event(std::uint64_t tag) override;
  void on_request_done(const RequestRecord& record) override;
  const AgenticReplayStats& stats() const { return stats_; }

 private:
  static constexpr std::int32_t kMain = -1;  // strand index of the main agent
  struct Strand {
    std::size_t entry = 0;  // the subagent entry this strand replays (groups only)
    std::size_t next_call = 0;
  };
  struct Lane {
    AgenticSession tree;
    std::uint64_t salt = 0;
    std::uint64_t session = 0;
    std::size_t cursor = 0;      // next entry to launch
    std::size_t main_entry = 0;  // the main call in flight (or last sent)
    std::vector<Strand> groups;  // running subagent groups
    std::int32_t open_groups = 0;
    std::int32_t busy = 0;            // calls held, pending or in flight
    Time barrier_end;                 // recorded end the next main call waits for
    std::int64_t warmup_quota = 0;    // warm-up requests this lane may send (primer included)
    std::int64_t warmup_claimed = 0;  // warm-up requests it has scheduled
    bool stopped = false;
    std::unordered_set<std::uint64_t> seen;  // salted hashes this tree use has sent
  };
  struct Pending {
    std::uint32_t lane = 0;
    std::int32_t strand = kMain;
    const AgenticCall* call = nullptr;
    Time due;
    std::uint32_t gen = 0;
    bool live = false;
    bool warmup = false;
  };
  struct Held {  // a call due during the warm-up after its lane used its warm-up requests
    std::uint32_t lane = 0;
    std::int32_t strand = kMain;
    const AgenticCall* call = nullptr;
    Time gap;
  };
  struct Owner {
    std::uint32_t lane = 0;
    std::int32_t strand = kMain;
    const AgenticCall* call = nullptr;
    bool warmup = false;
  };

  bool next_tree(AgenticSession& out);
  void start_tree(std::uint32_t lane, bool sampled_start);
  void launch_next(std::uint32_t lane, Time recorded_end);
  void send_after(std::uint32_t lane, std::int32_t strand, const AgenticCall& call, Time gap);
  void schedule(std::uint32_t lane, std::int32_t strand, const AgenticCall& call, Time due, bool warmup);
  void set_warmup_quota(Lane& l, std::int64_t quota);
  void submit(Pending& p);
  Request make_request(Lane& l, const AgenticCall& call);
  void call_done(const Owner& o);
  void open_window();
  void cap_system_idle();
  Time capped_gap(Time start, Time recorded_end) const;

  Simulation& sim_;
  AgenticSourceFactory factory_;
  std::unique_ptr<AgenticSessionSource> source_;
  RequestSink& sink_;
  AgenticReplayParams params_;
  RngStream& rng_;
  std::vector<Lane> lanes_;
  SlotPool<Pending> pending_;
  std::unordered_map<std::uint64_t, Owner> owners_;  // request id -> lane, strand
  std::int64_t in_system_ = 0;                       // submitted, not yet done
  std::int32_t lanes_warm_ = 0;                      // lanes that have used their warm-up requests
  std::int64_t warmup_outstanding_ = 0;              // warm-up requests scheduled, not yet done
  std::vector<Held> held_;
  bool window_open_ = false;
  std::uint64_t tree_uses_ = 0;
  AgenticReplayStats stats_;
};

}  // namespace engramsim::sim
