// The KV wall of a configuration: the load past which its KV pool, not its compute, decides what it
// serves (docs/planning.md "The KV wall"). Pure.
//
// Input: one KvWallPoint per evaluated point, tagged with its configuration (every assignment but the
// curve axis) and its load (the curve axis value: concurrency or rate). A point is flagged when
//   fold         throughput_per_gpu < (1 - fold) x the most throughput per GPU that any point of
//                its configuration at a strictly lower load delivers (more load, less work), while
//                the pool shows pressure at that point (kv_evictions > 0 or recomputed_tokens > 0;
//                both unknown counts as pressure): a fold without it is the workload's own
//                variation (an AgentX replay at a few lanes replays a few trees), not the pool;
//   preemption   recomputed_tokens > recompute_share x computed_tokens;
//   prefix_loss  ideal_prefix_hit_rate - prefix_cache_hit_rate > hit_rate_gap while the pool
//                evicted cached prefix blocks (kv_evictions > 0).
// A figure that is not finite never flags. A configuration's wall is its highest-load point below
// the load of its first flagged point; that point and every point at or above its load are past the
// wall. A point whose load is not finite cannot be placed on its configuration's curve: it is judged
// on its own (past the wall exactly when flagged, never by the fold).
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engramsim::planner {

struct KvWallThresholds {
  double fold = 0.05;             // fraction below the best lower-load throughput per GPU
  double recompute_share = 0.05;  // preemption-recomputed tokens / tokens computed
  double hit_rate_gap = 0.05;     // ideal minus actual prefix hit rate, absolute (with evictions)
};

struct KvWallPoint {
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  std::size_t index = 0;  // sweep point index
  std::string config;
  double load = kUnknown;  // curve axis value
  double throughput_per_gpu = kUnknown;
  double recomputed_tokens = kUnknown;  // dropped by preemption and computed again
  double computed_tokens = kUnknown;    // uncached prompt + output + recomputed tokens
  double prefix_cache_hit_rate = kUnknown;
  double ideal_prefix_hit_rate = kUnknown;
  double kv_evictions = kUnknown;  // cached prefix blocks the pool evicted
};

// Why a point is flagged (bits).
enum KvWallCause : unsigned { kv_wall_fold = 1u, kv_wall_preemption = 2u, kv_wall_prefix_loss = 4u };

struct KvWallMark {
  std::size_t index = 0;
  std::string config;
  double load = KvWallPoint::kUnknown;
  unsigned causes = 0;     // this point's own flags (KvWallCause bits)
  bool past_wall = false;  // at or above the load of its configuration's first flagged point
  // The figures the rules read (NaN when unknown): how far below the best lower-load throughput
  // (1 - throughput / best; negative when above it), recomputed / computed tokens, ideal minus
  // actual hit rate, prefix blocks evicted.
  double fold_share = KvWallPoint::kUnknown;
  double recompute_share = KvWallPoint::kUnknown;
  double hit_rate_gap = KvWallPoint::kUnknown;
  double kv_evictions = KvWallPoint::kUnknown;
};

struct ConfigKvWall {
  std::string config;
  std::optional<std::size_t> wall_index;  // the last point below the first flagged load (the wall)
  double wall_load = KvWallPoint::kUnknown;
  std::optional<std::size_t> first_past_index;  // the first flagged point; none: wall not reached
  double first_past_load = KvWallPoint::kUnknown;
  unsigned causes = 0;  // the first flagged point's flags
  bool reached() const { return first_past_index.has_value(); }
};

struct KvWallAnalysis {
  std::vector<KvWallMark> marks;                // in input order
  std::vector<ConfigKvWall> walls;              // configurations in order of first appearance
  std::map<std::size_t, std::size_t> by_index;  // point index -> position in marks
  const KvWallMark* mark(std::size_t index) const;
  const ConfigKvWall* wall(const std::string& config) const;
  bool past_wall(std::size_t index) const;  // false for an index not analysed
};

KvWallAnalysis find_kv_walls(const std::vector<KvWallPoint>& points, const KvWallThresholds& t = {});

// "throughput fold, preemption recompute": the rules behind `causes`, in rule order; empty when none.
std::string kv_wall_causes_text(unsigned causes);
// Why a configuration is past its wall, with the first flagged point's figures, e.g. "preemption
// recompute 12 % of the tokens computed"; the rule names alone when `first` is null.
std::string kv_wall_why(const ConfigKvWall& w, const KvWallMark* first);
// One phrase for a configuration's wall, e.g. "its KV wall is at concurrency 32 (past it from 64:
// preemption recompute 12 % of the tokens computed)"; `load_name` names the curve axis. `first` is
// the mark of the first point past the wall (its figures are quoted), may be null.
std::string kv_wall_text(const ConfigKvWall& w, const std::string& load_name, const KvWallMark* first);

}  // namespace engramsim::planner
