#include "planner/kv_wall.hpp"

#include <algorithm>
#include <cmath>

#include "core/number_text.hpp"

namespace engramsim::planner {
namespace {

bool finite(double v) { return std::isfinite(v); }

// Whether the pool took part in a point's run: it evicted cached blocks or recomputed preempted
// tokens. Unknown figures (results that do not carry them) count as pressure.
bool shows_pressure(const KvWallPoint& p) {
  if (!finite(p.kv_evictions) && !finite(p.recomputed_tokens)) return true;
  return (finite(p.kv_evictions) && p.kv_evictions > 0.0) || (finite(p.recomputed_tokens) && p.recomputed_tokens > 0.0);
}

// The point's own flags from its run's figures (the fold needs its neighbours: find_kv_walls).
void judge_pressure(const KvWallPoint& p, const KvWallThresholds& t, KvWallMark& m) {
  if (finite(p.recomputed_tokens) && finite(p.computed_tokens) && p.computed_tokens > 0.0) {
    m.recompute_share = p.recomputed_tokens / p.computed_tokens;
    if (m.recompute_share > t.recompute_share) m.causes |= kv_wall_preemption;
  }
  if (finite(p.ideal_prefix_hit_rate) && finite(p.prefix_cache_hit_rate))
    m.hit_rate_gap = p.ideal_prefix_hit_rate - p.prefix_cache_hit_rate;
  m.kv_evictions = p.kv_evictions;
  if (finite(m.hit_rate_gap) && finite(m.kv_evictions) && m.hit_rate_gap > t.hit_rate_gap && m.kv_evictions > 0.0)
    m.causes |= kv_wall_prefix_loss;
}

std::string pct(double f) { return printf_number(100.0 * f, "%.3g") + " %"; }

}  // namespace

const KvWallMark* KvWallAnalysis::mark(std::size_t index) const {
  const auto it = by_index.find(index);
  return it == by_index.end() ? nullptr : &marks[it->second];
}

const ConfigKvWall* KvWallAnalysis::wall(const std::string& config) const {
  for (const auto& w : walls)
    if (w.config == config) return &w;
  return nullptr;
}

bool KvWallAnalysis::past_wall(std::size_t index) const {
  const KvWallMark* m = mark(index);
  return m != nullptr && m->past_wall;
}

KvWallAnalysis find_kv_walls(const std::vector<KvWallPoint>& points, const KvWallThresholds& t) {
  KvWallAnalysis a;
  a.marks.resize(points.size());
  std::map<std::string, std::vector<std::size_t>> by_config;  // positions in `points`
  for (std::size_t i = 0; i < points.size(); ++i) {
    const KvWallPoint& p = points[i];
    KvWallMark& m = a.marks[i];
    m.index = p.index;
    m.config = p.config;
    m.load = p.load;
    a.by_index.emplace(p.index, i);
    judge_pressure(p, t, m);
    if (!by_config.count(p.config)) a.walls.push_back({p.config});
    by_config[p.config].push_back(i);
  }
  for (ConfigKvWall& w : a.walls) {
    std::vector<std::size_t> curve;  // the points with a finite load, by load then index
    for (const std::size_t i : by_config[w.config]) {
      if (finite(points[i].load))
        curve.push_back(i);
      else
        a.marks[i].past_wall = a.marks[i].causes != 0;
    }
    std::stable_sort(curve.begin(), curve.end(), [&](std::size_t x, std::size_t y) {
      return points[x].load < points[y].load || (points[x].load == points[y].load && points[x].index < points[y].index);
    });
    // The fold: against the best throughput of strictly lower loads (equal loads do not compare).
    double best_below = -INFINITY;
    for (std::size_t k = 0; k < curve.size();) {
      std::size_t end = k;
      while (end < curve.size() && points[curve[end]].load == points[curve[k]].load) ++end;
      double best_here = -INFINITY;
      for (std::size_t j = k; j < end; ++j) {
        const KvWallPoint& p = points[curve[j]];
        KvWallMark& m = a.marks[curve[j]];
        if (finite(p.throughput_per_gpu) && best_below > 0.0) {
          m.fold_share = 1.0 - p.throughput_per_gpu / best_below;
          if (p.throughput_per_gpu < (1.0 - t.fold) * best_below && shows_pressure(p)) m.causes |= kv_wall_fold;
        }
        if (finite(p.throughput_per_gpu)) best_here = std::max(best_here, p.throughput_per_gpu);
      }
      best_below = std::max(best_below, best_here);
      k = end;
    }
    // The wall: the first flagged load; it and every higher load are past it.
    std::optional<std::size_t> first;
    for (std::size_t k = 0; k < curve.size() && !first; ++k)
      if (a.marks[curve[k]].causes != 0) first = k;
    if (!first) continue;
    const double wall_from = points[curve[*first]].load;
    w.first_past_index = points[curve[*first]].index;
    w.first_past_load = wall_from;
    w.causes = a.marks[curve[*first]].causes;
    for (std::size_t k = 0; k < curve.size(); ++k) {
      if (points[curve[k]].load >= wall_from) {
        a.marks[curve[k]].past_wall = true;
      } else {
        w.wall_index = points[curve[k]].index;
        w.wall_load = points[curve[k]].load;
      }
    }
  }
  return a;
}

std::string kv_wall_causes_text(unsigned causes) {
  std::string out;
  const auto add = [&](unsigned bit, const char* what) {
    if (causes & bit) out += (out.empty() ? "" : ", ") + std::string(what);
  };
  add(kv_wall_fold, "throughput fold");
  add(kv_wall_preemption, "preemption recompute");
  add(kv_wall_prefix_loss, "prefix loss");
  return out;
}

std::string kv_wall_why(const ConfigKvWall& w, const KvWallMark* first) {
  if (first == nullptr) return kv_wall_causes_text(w.causes);
  std::string why;
  const auto add = [&](const std::string& s) { why += (why.empty() ? "" : ", ") + s; };
  if (first->causes & kv_wall_fold) add("throughput per GPU " + pct(first->fold_share) + " below a lower load");
  if (first->causes & kv_wall_preemption)
    add("preemption recompute " + pct(first->recompute_share) + " of the tokens computed");
  if (first->causes & kv_wall_prefix_loss)
    add("prefix hit rate " + printf_number(first->hit_rate_gap, "%.2f") + " below the ideal, " +
        printf_number(first->kv_evictions, "%.0f") + " prefix blocks evicted");
  return why;
}

std::string kv_wall_text(const ConfigKvWall& w, const std::string& load_name, const KvWallMark* first) {
  if (!w.reached()) return "no KV wall in the swept range";
  const std::string why = kv_wall_why(w, first);
  if (!w.wall_index)
    return "past its KV wall from its lowest load, " + load_name + " " + printf_number(w.first_past_load, "%.4g") +
           " (" + why + ")";
  return "its KV wall is at " + load_name + " " + printf_number(w.wall_load, "%.4g") + " (past it from " +
         printf_number(w.first_past_load, "%.4g") + ": " + why + ")";
}

}  // namespace engramsim::planner
