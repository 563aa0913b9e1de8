// The Engram memory tier inside a run: each replica step's row fetch becomes flows on the node
// fabric, so the stall a step sees comes from the links, drives and caches it shares with the other
// replicas of its node, not from a per-step formula.
//
// Nodes and placement. Replica r occupies GPUs r*tp .. r*tp+tp-1 of the fleet; GPU i lives on node
// i / gpu_count. `spread` places a node's GPUs round-robin over its switch groups (first GPU of each
// group, then the second, ...) instead of in ordinal order. Each node has one fabric
// (build_node_fabric + a backend by name) that all of its replicas' flows share.
//
// One step (start_step at forward entry, time S). For every Engram layer l (in layer order) the
// step model gives the window W_l (compute before the layer) and the positions; the service turns
// them into bytes per rank (below) and, on every rank's GPU, issues the layers one after the other
// on that GPU's fetch stream (vLLM issues every layer's lookup at forward entry on one side stream):
//   dram tier, zero_copy: one flow dram->gpu of host_rows x row_bytes / uva_efficiency (the
//                         calibrated or default UVA gather efficiency at the row size, applied as
//                         inflated wire bytes: small-row gathers occupy the link, so contention
//                         sees the same inefficiency as the formula);
//   dram tier, staged:    the same route with payload / copy_efficiency(bytes), rate-bounded by
//                         the CPU gather rate per GPU;
//   ssd tier:             page reads: flows drive->dram of pages x page bytes on every drive that
//                         holds a missing page (pages striped over the node's drives), each bounded
//                         by queue_depth x page / drive latency (Little's law for one issuer's
//                         outstanding reads), then the staged copy of the rows to the GPU.
// The flows of layer l+1 start when layer l's complete. Rows served by the HBM hot-row cache are
// gathered on the GPU (hbm_gather_time), in parallel with the link. Layer l is done on the replica
// when every rank has it: D_l. The GPU reaches layer l at A_l = S + W_l + (stalls of earlier
// layers); stall_l = max(0, D_l - A_l); the step lasts compute + sum of stalls + host overhead.
// Rows of prompt chunks known a step ahead get no prefetch credit in-run (they are fetched with the
// rest; the formula's prefill_prefetch is the optimistic bound).
//
// Bytes per rank and layer. With no simulated cache and the zipf model, the step model's analytic
// row and page counts are used (expected distinct rows; no sampling noise). Otherwise rows are
// sampled (sample_rows_per_step lookups per layer per replica step, rank 0's sub-tables):
//   lookups L = positions x k (k = sub-tables per rank); L <= budget: every lookup (exact);
//   positions <= budget: all positions of m = budget / positions sub-tables, rotating over the k,
//   counts scaled by k / m (exact within-step dedup of those sub-tables);
//   otherwise: budget positions evenly strided (random phase) of one sub-table, scaled by L / budget;
//   linear scaling overstates distinct rows, so under the zipf model the distinct count is set to
//   the step model's expectation (EngramLayerStep::distinct_rows, when given) and the sample only
//   supplies the miss fractions.
// Sampled lookups are deduplicated, looked up in the HBM cache (per replica, capacity
// hbm_cache / tp / row_bytes rows) once per distinct row, and on the ssd tier the missing rows'
// pages (a row straddles two pages when it crosses a boundary) are deduplicated and looked up in
// the DRAM page cache (per replica, dram_cache / tp / page pages). Misses, scaled, become bytes.
// Caches see a thinned stream of the real lookups: under independent references their steady
// state is unchanged, but warm-up takes the sampling factor longer in simulated time.
// Caches larger than max_cache_entries are simulated on a spatial sample of the keys (SHARDS,
// Waldspurger et al., FAST 2015): a key takes part when a hash of it falls below the rate
// R = max_cache_entries / capacity, and the simulated cache holds capacity x R entries. A key
// outside the sample hits with the running hit ratio of the sampled keys (the last ~1,024 of them),
// drawn from a hash of the key and the step; the hash does not depend on popularity, so the
// expected miss count is kept, but which popular keys land in the sample makes a run's miss count
// err by several percent under strong skew (docs/memory-tiers.md). The text model never needs it:
// its keys are bounded by the text's rows.
//
// KV offload (optional): a preempted sequence's KV is written to host DRAM (gpu->dram) and read back
// when it is admitted again (dram->gpu), per rank, as flows sharing the same links; they do not gate
// steps (the scheduler still recomputes), so they show the interference, not the benefit.
//
// Driving it: like the fabric, from an external event loop. start_step() at the engine's now;
// next_event_time() when something completes; advance_to(t) returns the steps whose fetches finished.
//
// On a shared fabric (EngramTierOnCluster: a disaggregated deployment's cluster, whose KV transfers
// cross the same links) the replicas sit where the cluster placed them and the fabric's driver
// delivers completions: the owner given forwards this tier's to on_flow_done, next_event_time()
// only reports finished steps, and advance_to(t) only collects them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/enum_names.hpp"
#include "core/rng.hpp"
#include "core/units.hpp"
#include "models/efficiency.hpp"
#include "models/engram_fetch.hpp"
#include "models/step_model.hpp"
#include "sim/fabric/cluster_fabric.hpp"
#include "sim/fabric/fabric.hpp"
#include "sim/fabric/node_fabric.hpp"
#include "sim/fabric/shared_fabric.hpp"
#include "sim/memory/engram_access.hpp"
#include "sim/memory/engram_step_types.hpp"
#include "sim/memory/row_cache.hpp"

namespace engramsim {

// The HBM hot-row cache: lru or lfu (row_cache.hpp, they learn the hot set), or static_top: the top
// rows of each sub-table by popularity pinned (the ideal cache, what the formula assumes; zipf model
// only). Scenario names: "lru", "lfu", "static".
enum class HotRowPolicy { lru, lfu, static_top };
inline constexpr EnumNames<HotRowPolicy, 3> kHotRowPolicyNames{{{
    {HotRowPolicy::lru, "lru"},
    {HotRowPolicy::lfu, "lfu"},
    {HotRowPolicy::static_top, "static"},
}}};
const char* to_string(HotRowPolicy policy);
std::optional<HotRowPolicy> hot_row_policy_from(std::string_view name);

struct EngramTierParams {
  EngramTier tier = EngramTier::dram;  // dram or ssd
  EngramTableShape shape;              // per-layer table rows, sub-tables
  Bytes row_bytes;
  int tp = 1;  // GPUs (ranks) per replica
  int replicas = 1;

  EngramAccessParams access;
  Bytes hbm_cache;  // per replica (split over ranks); 0 = none
  HotRowPolicy hbm_policy = HotRowPolicy::lfu;
  Bytes dram_cache;  // per replica page cache (ssd tier; split over ranks); 0 = none
  RowCachePolicy dram_policy = RowCachePolicy::lru;
  Bytes page = Bytes(4096.0);
  std::int64_t sample_rows_per_step = 128;  // per Engram layer per replica step
  bool always_sample = false;               // sample even where the analytic counts would do (tests)
  // Largest cache simulated entry by entry; a larger one is simulated on a spatial sample of the
  // keys (rate = this / capacity) with the capacity scaled alike.
  std::uint64_t max_cache_entries = 1u << 17;

  DramPath dram_path = DramPath::zero_copy;
  double uva_efficiency = 1.0;      // zero_copy gather efficiency at the row size
  EfficiencyCurve copy_efficiency;  // staged copies, by bytes
  Bandwidth cpu_gather_rate;        // staged: per GPU; 0 = unbounded
  int ssd_queue_depth = 128;
  Bandwidth hbm_gather_rate;  // HBM hot-row gather; 0 = free
  Time gather_overhead;       // per gather kernel

  fabric::NodeFabricParams node;
  std::string backend = "native";
  fabric::FabricOptions fabric_options;
  bool spread = false;  // placement over switch groups

  bool swap_preempted_kv = false;  // preempted sequences write their KV to host DRAM, read it back on resume
  Bytes kv_bytes_per_token;        // per GPU
  std::uint64_t seed = 0;
};

// A tier on a fabric it shares with other traffic: the cluster's nodes (their routes in the shared
// fabric's topology) and the GPU of each rank of each replica. EngramTierParams::node and spread
// are not used then: the cluster's nodes and placement stand for them.
struct EngramTierOnCluster {
  fabric::SharedFabric* fabric = nullptr;
  fabric::FlowOwner* owner = nullptr;  // started flows report to it; it calls on_flow_done
  std::vector<fabric::NodeRoutes> nodes;
  std::vector<std::vector<fabric::GpuRef>> replicas;  // [replica][rank]
};

struct EngramStepInput {
  std::uint32_t replica = 0;
  Time start;
  std::span<const EngramLayerStep> layers;
  std::span<const EngramSeqSpan> seqs;
  double kv_swap_out_tokens = 0.0;
  double kv_swap_in_tokens = 0.0;
};

struct EngramStepOutcome {
  std::uint32_t replica = 0;
  Time ready;  // when the last of the step's fetches finished
  Time stall;  // exposed: sum over layers of max(0, D_l - A_l)
  Time fetch;  // sum over layers of D_l - issue_l
  EngramStepStats stats;
};

// Fleet totals at the end of a run.
struct EngramTierReport {
  std::string backend;
  int nodes = 0;
  std::uint64_t steps = 0;
  std::uint64_t flows = 0;
  EngramStepStats totals;
  double gpu_fetch_seconds = 0.0;  // sum over (GPU, layer) of fabric transfer spans
  double gpu_fetch_bytes = 0.0;    // wire bytes of those spans
  // Mean fetch bandwidth one GPU saw while fetching: gpu_fetch_bytes / gpu_fetch_seconds.
  double per_gpu_fetch_bandwidth() const { return gpu_fetch_seconds > 0.0 ? gpu_fetch_bytes / gpu_fetch_seconds : 0.0; }
  double hbm_hit_ratio() const { return totals.lookups > 0.0 ? totals.hbm_hit_lookups / totals.lookups : 0.0; }
  double cache_hit_ratio() const { return totals.cache_lookups > 0.0 ? totals.cache_hits / totals.cache_lookups : 0.0; }
};

// Receives what the tier does, for timelines (chrome_trace.hpp). Calls come in completion order.
class EngramTraceSink {
 public:
  // A flow finished. `what`: "engram", "ssd", "copy", "kv_out", "kv_in".
  virtual void on_flow(int node, const std::string& route, const char* what, std::uint32_t replica, int gpu, Time start,
                       Time finish, double bytes) = 0;
  // Layer `layer` of a replica step finished on one GPU (issue -> done, fabric part).
  virtual void on_layer_fetch(int node, int gpu, std::uint32_t replica, int layer, Time issue, Time done,
                              double bytes) = 0;

 protected:
  ~EngramTraceSink() = default;
};

class EngramTierService {
 public:
  // Throws std::invalid_argument / ConfigError on bad parameters (tier hbm, unknown names, a node
  // without drives on the ssd tier, ...).
  explicit EngramTierService(const EngramTierParams& params);
  // On a shared fabric; throws std::invalid_argument when `cluster` lacks the fabric or the owner,
  // or places other than params.replicas replicas of params.tp ranks on its nodes.
  EngramTierService(const EngramTierParams& params, EngramTierOnCluster cluster);
  EngramTierService(const EngramTierService&) = delete;
  EngramTierService& operator=(const EngramTierService&) = delete;

  // Starts a step's fetches at in.start (>= every earlier call's time). Returns true when flows were
  // started (the outcome comes later from advance_to); false when nothing crosses a link, with the
  // outcome in `immediate`. A replica has at most one step in flight.
  bool start_step(const EngramStepInput& in, EngramStepOutcome& immediate);
  // When advance_to has something to do: a finished step waiting to be collected (the last call's
  // time) or the earliest flow completion; Time::max() when idle.
  Time next_event_time();
  // Advances every node to `t` and appends the steps whose fetches are done.
  void advance_to(Time t, std::vector<EngramStepOutcome>& done);
  // On a shared fabric: one of this tier's flows completed.
  void on_flow_done(const fabric::FlowCompletion& c);

  void set_trace(EngramTraceSink* sink) { trace_ = sink; }
  bool swaps_preempted_kv() const { return p_.swap_preempted_kv; }
  bool sampled() const { return sampled_; }
  int nodes() const { return static_cast<int>(nodes_.size()); }
  const fabric::Fabric& fabric(int node) const;
  // (node, local GPU) of a replica's rank.
  std::pair<int, int> gpu_of(std::uint32_t replica, int rank) const;
  EngramTierReport report() const;

 private:
  enum class FlowKind : std::uint8_t { engram, ssd, copy, kv_out, kv_in };
  struct FlowTag {
    std::uint32_t replica = 0;
    std::uint16_t rank = 0;
    FlowKind kind = FlowKind::engram;
    int node = 0;
    fabric::RouteId route = 0;
    double bytes = 0.0;
  };
  struct OwnedTag {
    FlowTag tag;
    bool done = false;
  };
  // A node's routes, in its own fabric (own, with its own flow ids) or in the shared one.
  struct Node {
    fabric::NodeRoutes routes;
    std::unique_ptr<fabric::Fabric> own;  // null on a shared fabric
    std::deque<OwnedTag> tags;            // own fabric: by flow id - base, every id is this tier's
    fabric::FlowId base = 0;
  };
  struct LayerWork {
    Time window;
    double host_rows = 0.0;           // per rank
    double wire_bytes = 0.0;          // per rank, over the host link
    std::vector<double> drive_pages;  // per rank, per drive (ssd)
    Time hbm_gather;
    Time issue = Time::max();  // earliest over ranks
    Time done;                 // latest over ranks (incl. the HBM gather)
  };
  struct RankStream {
    int layer = 0;
    bool copying = false;  // ssd: pages are in, the copy runs
    int outstanding = 0;
    Time issue;
    bool finished = false;
  };
  // Hit ratio over the last ~1,024 observations (exponentially weighted).
  struct RunningRatio {
    double hits = 0.0;
    double total = 0.0;
    void add(bool hit) {
      hits = hits * kDecay + (hit ? 1.0 : 0.0);
      total = total * kDecay + 1.0;
    }
    double ratio() const { return total > 0.0 ? hits / total : 0.0; }
    static constexpr double kDecay = 1.0 - 1.0 / 1024.0;
  };
  // Looks `key` up in a cache simulated on a spatial sample of rate `rate`.
  bool cache_access(RowCache& cache, double rate, RunningRatio& running, std::uint64_t key, std::uint64_t step,
                    std::uint64_t salt) const;
  // One replica's Engram side: the step whose lookups are in flight, its per-rank streams and
  // its row caches (not the serving replica's state, sim/serving/replica_state.hpp).
  struct ReplicaEngramWork {
    bool active = false;
    Time start;
    std::vector<LayerWork> layers;
    std::vector<RankStream> ranks;
    int ranks_left = 0;
    EngramStepStats stats;
    std::unique_ptr<RowCache> hbm;
    std::int64_t hbm_static_rank = 0;  // "static": ranks <= this are in HBM
    std::unique_ptr<RowCache> dram;
    double hbm_rate = 1.0;  // spatial sampling rates of the caches
    double dram_rate = 1.0;
    RunningRatio hbm_hits;  // over the sampled keys
    RunningRatio dram_hits;
    std::uint64_t steps = 0;
    RngStream rng{0};
  };

  void plan_layer(ReplicaEngramWork& r, std::size_t e, const EngramLayerStep& layer,
                  std::span<const EngramSeqSpan> seqs);
  // What one layer's step looks up and moves, one rank.
  struct LayerCounts {
    double lookups = 0.0, hbm_hits = 0.0, host_rows = 0.0, pages = 0.0, cache_lookups = 0.0, cache_hits = 0.0;
  };
  std::int64_t sample_keys(ReplicaEngramWork& r, std::size_t e, const EngramLayerStep& layer,
                           std::span<const EngramSeqSpan> seqs, std::int64_t positions, double all);
  void classify_rows(ReplicaEngramWork& r, std::size_t e, std::size_t drives, double& hits, double& missing);
  void read_pages(ReplicaEngramWork& r, LayerWork& w, std::size_t drives, double scale, double dedup, LayerCounts& n);
  void sampled_counts(ReplicaEngramWork& r, std::size_t e, const EngramLayerStep& layer,
                      std::span<const EngramSeqSpan> seqs, std::int64_t positions, LayerWork& w, LayerCounts& n);
  void account_layer(ReplicaEngramWork& r, LayerWork& w, const LayerCounts& n);
  void issue(std::uint32_t replica, int rank, Time t);
  fabric::FlowId start_flow(int node, fabric::RouteId route, double bytes, Time t, double bound, FlowKind kind,
                            std::uint32_t replica, int rank);
  void on_completion(FlowTag tag, const fabric::FlowCompletion& c);
  void check_params() const;
  void build_caches();
  void deliver_until(Node& n, Time t);
  const fabric::FabricTopology& topology(int node) const;
  void rank_layer_done(std::uint32_t replica, int rank, Time t);
  void finish_step(std::uint32_t replica, Time t);
  void sync_node(int node, Time t);

  EngramTierParams p_;
  std::unique_ptr<EngramAccessModel> access_;
  bool sampled_ = false;
  std::vector<Node> nodes_;
  EngramTierOnCluster cluster_;                              // fabric null: each node its own
  std::unordered_map<fabric::FlowId, FlowTag> shared_tags_;  // the shared fabric's flows of this tier
  std::vector<std::vector<std::pair<int, int>>> placement_;  // [replica][rank] -> (node, gpu)
  std::vector<ReplicaEngramWork> replicas_;
  std::vector<EngramStepOutcome> ready_;
  Time clock_;
  double ssd_bound_ = 0.0;
  EngramTraceSink* trace_ = nullptr;
  EngramTierReport report_;
  // Scratch reused across steps.
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint64_t> pages_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> distinct_;
};

}  // namespace engramsim
