#include <gtest/gtest.h>

#include <cmath>

#include "planner/kv_wall.hpp"

using namespace engramsim::planner;

namespace {

// A clean point: throughput only, every KV figure unknown.
KvWallPoint pt(std::size_t index, double load, double tput, const std::string& config = "c") {
  KvWallPoint p;
  p.index = index;
  p.config = config;
  p.load = load;
  p.throughput_per_gpu = tput;
  return p;
}

KvWallPoint with_recompute(KvWallPoint p, double recomputed, double computed) {
  p.recomputed_tokens = recomputed;
  p.computed_tokens = computed;
  return p;
}

KvWallPoint with_hits(KvWallPoint p, double ideal, double actual, double evictions) {
  p.ideal_prefix_hit_rate = ideal;
  p.prefix_cache_hit_rate = actual;
  p.kv_evictions = evictions;
  return p;
}

unsigned causes_of(const std::vector<KvWallPoint>& pts, std::size_t index) {
  return find_kv_walls(pts).mark(index)->causes;
}

}  // namespace

TEST(KvWall, FoldFlagsLessWorkAtMoreLoadBeyondFivePercent) {
  // 5 % below the best lower load is a plateau; beyond it, a fold.
  EXPECT_EQ(causes_of({pt(0, 1, 100), pt(1, 2, 95.01)}, 1), 0u);
  EXPECT_EQ(causes_of({pt(0, 1, 100), pt(1, 2, 94.99)}, 1), kv_wall_fold);
  // Against the best of every lower load, not only the previous one: a slow decline adds up.
  const std::vector<KvWallPoint> slow = {pt(0, 1, 100), pt(1, 2, 97), pt(2, 4, 94)};
  const auto a = find_kv_walls(slow);
  EXPECT_EQ(a.mark(1)->causes, 0u);
  EXPECT_EQ(a.mark(2)->causes, kv_wall_fold);
  EXPECT_NEAR(a.mark(2)->fold_share, 0.06, 1e-12);
  // The lowest load has nothing to fold against; equal loads do not compare with each other.
  EXPECT_TRUE(std::isnan(a.mark(0)->fold_share));
  EXPECT_EQ(causes_of({pt(0, 4, 100), pt(1, 4, 50)}, 1), 0u);
  // A rising curve never folds.
  EXPECT_FALSE(find_kv_walls({pt(0, 1, 10), pt(1, 2, 20), pt(2, 4, 30)}).walls[0].reached());
}

// A fold where the pool evicted nothing and recomputed nothing is the workload's own variation (an
// AgentX replay at two lanes and at four replays different trees), not a wall.
TEST(KvWall, AFoldWithoutPoolPressureIsNoWall) {
  const KvWallPoint quiet = with_recompute(with_hits(pt(1, 4, 70), 0.97, 0.97, 0.0), 0.0, 1000.0);
  EXPECT_EQ(causes_of({pt(0, 2, 100), quiet}, 1), 0u);
  const KvWallPoint evicting = with_recompute(with_hits(pt(1, 4, 70), 0.97, 0.97, 12.0), 0.0, 1000.0);
  EXPECT_EQ(causes_of({pt(0, 2, 100), evicting}, 1), kv_wall_fold);
  const KvWallPoint preempting = with_recompute(with_hits(pt(1, 4, 70), 0.97, 0.97, 0.0), 10.0, 1000.0);
  EXPECT_EQ(causes_of({pt(0, 2, 100), preempting}, 1), kv_wall_fold);
}

TEST(KvWall, PreemptionRecomputeBeyondFivePercentOfTheTokensComputed) {
  EXPECT_EQ(causes_of({with_recompute(pt(0, 1, 100), 49.9, 1000)}, 0), 0u);
  EXPECT_EQ(causes_of({with_recompute(pt(0, 1, 100), 50.1, 1000)}, 0), kv_wall_preemption);
  const auto a = find_kv_walls({with_recompute(pt(0, 1, 100), 120, 1000)});
  EXPECT_NEAR(a.mark(0)->recompute_share, 0.12, 1e-12);
  // No tokens computed, or an unknown count: the share is unknown and flags nothing.
  EXPECT_EQ(causes_of({with_recompute(pt(0, 1, 100), 10, 0)}, 0), 0u);
  EXPECT_EQ(causes_of({with_recompute(pt(0, 1, 100), NAN, 1000)}, 0), 0u);
}

TEST(KvWall, PrefixLossNeedsAGapBeyondFivePointsAndEvictions) {
  // The gap, with evictions.
  EXPECT_EQ(causes_of({with_hits(pt(0, 1, 100), 0.95, 0.901, 1000)}, 0), 0u);
  EXPECT_EQ(causes_of({with_hits(pt(0, 1, 100), 0.95, 0.899, 1000)}, 0), kv_wall_prefix_loss);
  // The evictions, at a large gap: one evicted block counts, none does not (the misses are not the
  // pool's: routing, or block granularity).
  EXPECT_EQ(causes_of({with_hits(pt(0, 1, 100), 0.95, 0.75, 1)}, 0), kv_wall_prefix_loss);
  EXPECT_EQ(causes_of({with_hits(pt(0, 1, 100), 0.95, 0.75, 0)}, 0), 0u);
  // No ideal hit rate (no reusable prefixes) or no eviction count recorded: never flagged.
  EXPECT_EQ(causes_of({with_hits(pt(0, 1, 100), NAN, 0.0, 1000)}, 0), 0u);
  EXPECT_EQ(causes_of({with_hits(pt(0, 1, 100), 0.95, 0.5, NAN)}, 0), 0u);
  const auto a = find_kv_walls({with_hits(pt(0, 1, 100), 0.95, 0.75, 522541)});
  EXPECT_NEAR(a.mark(0)->hit_rate_gap, 0.20, 1e-12);
  EXPECT_DOUBLE_EQ(a.mark(0)->kv_evictions, 522541);
  EXPECT_EQ(kv_wall_why(*a.wall("c"), a.mark(0)), "prefix hit rate 0.20 below the ideal, 522541 prefix blocks evicted");
}

TEST(KvWall, TheWallIsTheLastPointBelowTheFirstFlaggedLoad) {
  // Two configurations interleaved and out of load order. "a" is flagged at load 4 (preemption); its
  // load-8 point is clean but lies past the wall all the same. "b" never meets its wall.
  const std::vector<KvWallPoint> pts = {
      pt(0, 8, 300, "a"), pt(1, 1, 10, "b"),  with_recompute(pt(2, 4, 250, "a"), 200, 1000),
      pt(3, 1, 100, "a"), pt(4, 2, 200, "a"), pt(5, 2, 20, "b")};
  const auto an = find_kv_walls(pts);
  ASSERT_EQ(an.walls.size(), 2u);
  const ConfigKvWall& a = *an.wall("a");
  ASSERT_TRUE(a.reached());
  EXPECT_EQ(*a.wall_index, 4u);
  EXPECT_DOUBLE_EQ(a.wall_load, 2.0);
  EXPECT_EQ(*a.first_past_index, 2u);
  EXPECT_DOUBLE_EQ(a.first_past_load, 4.0);
  EXPECT_EQ(a.causes, kv_wall_preemption);
  EXPECT_FALSE(an.past_wall(3));
  EXPECT_FALSE(an.past_wall(4));
  EXPECT_TRUE(an.past_wall(2));
  EXPECT_TRUE(an.past_wall(0));
  EXPECT_EQ(an.mark(0)->causes, 0u);
  EXPECT_FALSE(an.wall("b")->reached());
  EXPECT_FALSE(an.past_wall(1));
  EXPECT_FALSE(an.past_wall(5));
  // Marks come back in input order.
  EXPECT_EQ(an.marks[2].index, 2u);
  EXPECT_EQ(an.marks[2].config, "a");
}

TEST(KvWall, FlaggedAtTheLowestLoadLeavesNoPointWithin) {
  const auto an = find_kv_walls({with_hits(pt(0, 1, 100), 0.9, 0.5, 10), pt(1, 2, 200)});
  const ConfigKvWall& w = an.walls[0];
  ASSERT_TRUE(w.reached());
  EXPECT_FALSE(w.wall_index.has_value());
  EXPECT_TRUE(an.past_wall(0));
  EXPECT_TRUE(an.past_wall(1));
  EXPECT_NE(kv_wall_text(w, "concurrency", an.mark(0)).find("past its KV wall from its lowest load, concurrency 1"),
            std::string::npos);
}

TEST(KvWall, APointWithoutALoadIsJudgedAlone) {
  const auto an = find_kv_walls({with_recompute(pt(0, NAN, 100), 100, 1000), pt(1, NAN, 10), pt(2, 1, 5)});
  EXPECT_TRUE(an.past_wall(0));
  EXPECT_FALSE(an.past_wall(1));  // far below point 0's throughput, but with no load to fold against
  EXPECT_EQ(an.mark(1)->causes, 0u);
  EXPECT_FALSE(an.past_wall(2));
}

TEST(KvWall, TextNamesTheWallTheFirstLoadPastItAndWhy) {
  const auto an = find_kv_walls({pt(0, 16, 100), pt(1, 32, 150), pt(2, 64, 90)});
  const ConfigKvWall& w = an.walls[0];
  const std::string t = kv_wall_text(w, "concurrency", an.mark(*w.first_past_index));
  EXPECT_EQ(t, "its KV wall is at concurrency 32 (past it from 64: throughput per GPU 40 % below a lower load)") << t;
  EXPECT_EQ(kv_wall_causes_text(kv_wall_fold | kv_wall_prefix_loss), "throughput fold, prefix loss");
  EXPECT_EQ(kv_wall_causes_text(0), "");
  EXPECT_EQ(kv_wall_text(*find_kv_walls({pt(0, 1, 1)}).wall("c"), "concurrency", nullptr),
            "no KV wall in the swept range");
}
