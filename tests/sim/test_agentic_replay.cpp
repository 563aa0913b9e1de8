// The agentic replay's lane rules (recycling, cache-bust, start point, warm-up exclusion, idle
// caps, subagent concurrency, determinism) on small hand-built session trees, and the agentic
// metrics on hand-computed records.
#include <gtest/gtest.h>

#include <cmath>

#include <sstream>

#include "sim/metrics/result_writers.hpp"
#include "sim/metrics/summary.hpp"
#include "sim_test_support.hpp"

namespace engramsim::sim {
namespace {

using testing::FixedStepModel;

// Call with `in` tokens (chained hashes: block i of every call in a tree shares id base + i).
AgenticCall call(double t_s, double api_s, std::int32_t in, std::int32_t out, std::uint64_t base = 1000) {
  AgenticCall c;
  c.start = Time::from_seconds(t_s);
  c.api_time = Time::from_seconds(api_s);
  c.input_tokens = in;
  c.output_tokens = out;
  for (std::int32_t b = 0; b * 16 < in; ++b) c.hash_ids.push_back(base + static_cast<std::uint64_t>(b));
  return c;
}

AgenticSubagent group(std::string id, std::vector<AgenticCall> calls) {
  return AgenticSubagent{std::move(id), std::move(calls)};
}

class SessionList final : public AgenticSessionSource {
 public:
  explicit SessionList(std::vector<AgenticSession> s) : s_(std::move(s)) {}
  bool next(AgenticSession& out) override {
    if (i_ >= s_.size()) return false;
    out = s_[i_++];
    return true;
  }
  std::string describe() const override { return "test sessions"; }

 private:
  std::vector<AgenticSession> s_;
  std::size_t i_ = 0;
};

AgenticSession session(std::string id, std::vector<AgenticEntry> entries) {
  AgenticSession s;
  s.id = std::move(id);
  s.block_tokens = 16;
  s.entries = std::move(entries);
  return s;
}

// One replica, 1 ms per step, prefix caching on; no warm-up, a long window, no system idle cap.
RunConfig replay_config(const StepTimeModel& model, std::vector<AgenticSession> sessions, AgenticReplayParams p) {
  RunConfig cfg = testing::one_replica(model, {}, 100000);
  cfg.replicas[0].kv.enable_prefix_caching = true;
  cfg.router = "session_affinity";
  cfg.seed = 42;
  AgenticWorkloadSpec a;
  a.sessions = [sessions](std::uint64_t) { return std::make_unique<SessionList>(sessions); };
  a.replay = p;
  cfg.workload.agentic = a;
  return cfg;
}

AgenticReplayParams quiet(double duration_s) {
  AgenticReplayParams p;
  p.lanes = 1;
  p.duration = Time::from_seconds(duration_s);
  p.warmup_requests = 0;
  p.grace = Time::zero();
  p.system_idle_cap = Time::from_seconds(1e6);
  return p;
}

const FixedStepModel kModel(Time::from_seconds(0.001));

TEST(AgenticReplay, StartPointPrimesTheTurnBeforeAndSkipsEarlierTurns) {
  auto p = quiet(10.0);
  p.start_ratio_min = p.start_ratio_max = 0.5;  // M = 4 -> k = 2: prime main 1, then 2, 3
  auto s = session("a", {call(0, 0.1, 16, 2), call(1, 0.1, 32, 2), call(2, 0.1, 48, 2), call(3, 0.1, 64, 2)});
  const RunResult r = run_simulation(replay_config(kModel, {s}, p));
  ASSERT_GE(r.requests.size(), 3u);
  EXPECT_EQ(r.requests[0].prompt_tokens, 32);
  EXPECT_EQ(r.requests[1].prompt_tokens, 48);
  EXPECT_EQ(r.requests[2].prompt_tokens, 64);
  // The primed prefix hits: call 2 (three blocks) finds call 1's two.
  EXPECT_EQ(r.requests[1].cached_prompt_tokens, 32);
}

TEST(AgenticReplay, LaneRecyclesFromTurnZeroWithCacheBust) {
  auto p = quiet(30.0);
  p.start_ratio_min = p.start_ratio_max = 0.5;  // M = 2 -> k = 1: prime main 0, then main 1
  auto s = session("a", {call(0, 0.1, 32, 2), call(1, 0.1, 48, 2)});
  const RunResult r = run_simulation(replay_config(kModel, {s}, p));
  ASSERT_GE(r.requests.size(), 6u);
  // Use 1: prime (main 0), main 1. Use 2 (recycled, from turn 0): main 0, main 1. Same corpus
  // tree, new session id, and its first call hits nothing of use 1 although use 1 cached it.
  EXPECT_EQ(r.requests[0].session, r.requests[1].session);
  EXPECT_NE(r.requests[2].session, r.requests[1].session);
  EXPECT_EQ(r.requests[2].prompt_tokens, 32);
  EXPECT_EQ(r.requests[2].cached_prompt_tokens, 0);
  EXPECT_EQ(r.requests[2].reusable_prompt_tokens, 0);
  EXPECT_EQ(r.requests[3].cached_prompt_tokens, 32);
  EXPECT_EQ(r.requests[3].reusable_prompt_tokens, 32);
  // The next tree starts only once the previous one has drained.
  EXPECT_GE(r.requests[2].arrival, r.requests[1].finish);
  ASSERT_TRUE(r.agentic);
  EXPECT_GE(r.agentic->corpus_passes, 2u);
}

TEST(AgenticReplay, TreeIdleCapAndSystemIdleCap) {
  auto s = session("a", {call(0, 1.0, 16, 1), call(1000, 1.0, 16, 1), call(1001.5, 1, 16, 1)});
  auto p = quiet(2000.0);
  p.start_ratio_min = p.start_ratio_max = 0.0;  // M = 3 -> k = 1: prime main 0
  {
    const RunResult r = run_simulation(replay_config(kModel, {s}, p));
    ASSERT_GE(r.requests.size(), 3u);
    EXPECT_EQ(r.requests[1].arrival - r.requests[0].finish, Time::from_seconds(300.0));  // 999 s capped
    EXPECT_EQ(r.requests[2].arrival - r.requests[1].finish, Time::from_seconds(0.5));    // under the cap
  }
  p.system_idle_cap = Time::from_seconds(10.0);
  const RunResult r = run_simulation(replay_config(kModel, {s}, p));
  ASSERT_GE(r.requests.size(), 3u);
  EXPECT_EQ(r.requests[1].arrival - r.requests[0].finish, Time::from_seconds(10.0));
  EXPECT_EQ(r.requests[2].arrival - r.requests[1].finish, Time::from_seconds(0.5));
  EXPECT_GT(r.agentic->idle_skipped, Time::zero());
}

TEST(AgenticReplay, SubagentGroupsOverlapAndTheNextMainCallWaits) {
  // main0 [0, 1]; group A: [2, 3] then [4, 5]; group B: [3, 4]; main1 at 10.
  auto s = session("a", {call(0, 1, 16, 1), group("A", {call(2, 1, 16, 1, 50), call(4, 1, 16, 1, 50)}),
                         group("B", {call(3, 1, 16, 1, 70)}), call(10, 1, 16, 1), call(11, 1, 16, 1)});
  auto p = quiet(100.0);
  p.start_ratio_min = p.start_ratio_max = 0.0;
  // M = 3 -> k = 1: prime main0; the groups between main0 and main1 are skipped.
  const RunResult r = run_simulation(replay_config(kModel, {s}, p));
  ASSERT_GE(r.requests.size(), 5u);
  const auto& main0 = r.requests[0];
  // After the prime the cursor is at main1 (entries between the prime and call k are skipped).
  EXPECT_EQ(r.requests[1].arrival - main0.finish, Time::from_seconds(9.0));

  // From turn 0 (a recycled lane): the groups run.
  auto p2 = quiet(100.0);
  p2.start_ratio_min = p2.start_ratio_max = 0.0;
  auto one = session("b", {call(0, 0.5, 16, 1)});  // the first lane tree: M = 1, no prime
  const RunResult q = run_simulation(replay_config(kModel, {one, s}, p2));
  ASSERT_GE(q.requests.size(), 6u);
  const auto& m0 = q.requests[1];
  const auto& a1 = q.requests[2];
  const auto& b1 = q.requests[3];
  const auto& a2 = q.requests[4];
  const auto& m1 = q.requests[5];
  EXPECT_EQ(a1.arrival - m0.finish, Time::from_seconds(1.0));
  EXPECT_EQ(b1.arrival - m0.finish, Time::from_seconds(2.0));
  EXPECT_LT(b1.arrival, a2.arrival);  // B runs while A is between its calls
  EXPECT_EQ(a2.arrival - a1.finish, Time::from_seconds(1.0));
  // main1 waits for both groups, then the recorded gap from the later recorded end (5 s): 5 s.
  EXPECT_EQ(m1.arrival - std::max(a2.finish, b1.finish), Time::from_seconds(5.0));
}

TEST(AgenticReplay, WarmupRequestsAreExcludedAndTheWindowOpensAfterThem) {
  auto s = session("a", {call(0, 0.1, 16, 2), call(0.2, 0.1, 32, 2), call(0.4, 0.1, 48, 2), call(0.6, 0.1, 64, 2)});
  auto p = quiet(10.0);
  p.warmup_requests = 2;
  p.grace = Time::from_seconds(1800.0);
  p.start_ratio_min = p.start_ratio_max = 0.0;
  const RunResult r = run_simulation(replay_config(kModel, {s}, p));
  ASSERT_GE(r.requests.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(r.requests[i].measured) << i;
    EXPECT_EQ(r.requests[i].output_tokens, 1) << i;
  }
  EXPECT_EQ(r.requests[1].arrival, r.requests[0].finish);  // no recorded delay in the warm-up
  EXPECT_EQ(r.requests[2].arrival, r.requests[1].finish);
  EXPECT_TRUE(r.requests[3].measured);
  EXPECT_EQ(r.requests[3].prompt_tokens, 64);
  EXPECT_EQ(r.requests[3].output_tokens, 2);
  EXPECT_EQ(r.agentic->window_start, r.requests[2].finish);
  EXPECT_EQ(r.requests[3].arrival, r.agentic->window_start);
  std::int64_t measured = 0;
  for (const auto& q : r.requests) {
    measured += q.measured ? 1 : 0;
    if (q.measured) {
      EXPECT_LT(q.arrival, r.agentic->window_end);
    }
  }
  EXPECT_EQ(r.summary.num_requests, measured);
  EXPECT_EQ(r.summary.excluded_requests, 3);
  EXPECT_TRUE(r.summary.windowed);
}

TEST(AgenticReplay, GraceOpensTheWindowWhenWarmupTakesLonger) {
  // More warm-up requests than the grace leaves time for: the window opens at the grace, and from
  // then on calls go after their recorded delays with their recorded outputs.
  auto s = session("a", {call(0, 1, 16, 3), call(200, 1, 16, 3), call(400, 1, 16, 3), call(600, 1, 16, 3)});
  auto p = quiet(1000.0);
  p.warmup_requests = 100000;
  p.grace = Time::from_seconds(0.05);
  p.start_ratio_min = p.start_ratio_max = 0.0;
  const RunResult r = run_simulation(replay_config(kModel, {s}, p));
  EXPECT_EQ(r.agentic->window_start, Time::from_seconds(0.05));
  std::size_t first = 0;
  while (first < r.requests.size() && !r.requests[first].measured) ++first;
  ASSERT_GT(first, 2u);
  ASSERT_LT(first, r.requests.size());
  for (std::size_t i = 0; i < first; ++i) EXPECT_LT(r.requests[i].arrival, r.agentic->window_start);
  EXPECT_EQ(r.requests[first].output_tokens, 3);
  EXPECT_EQ(r.requests[first].arrival - r.requests[first - 1].finish, Time::from_seconds(199.0));
}

TEST(AgenticReplay, NothingIsSentAfterTheWindowCloses) {
  auto s = session("a", {call(0, 0.1, 16, 4), call(0.2, 0.1, 32, 4)});
  auto p = quiet(5.0);
  p.lanes = 3;
  const RunResult r = run_simulation(replay_config(kModel, {s}, p));
  for (const auto& q : r.requests) EXPECT_LT(q.arrival, Time::from_seconds(5.0));
  EXPECT_EQ(r.summary.unfinished, 0);
  EXPECT_GT(r.requests.size(), 10u);
}

TEST(AgenticReplay, SameSeedSameRunOtherSeedOtherStarts) {
  std::vector<AgenticEntry> e;
  for (int i = 0; i < 40; ++i) e.push_back(call(i, 0.1, 16 * (i + 1), 3));
  auto s1 = session("a", e), s2 = session("b", e);
  auto p = quiet(20.0);
  p.lanes = 4;
  p.start_ratio_min = 0.25;
  p.start_ratio_max = 0.75;
  const auto cfg = replay_config(kModel, {s1, s2}, p);
  const RunResult a = run_simulation(cfg), b = run_simulation(cfg);
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    EXPECT_EQ(a.requests[i].arrival, b.requests[i].arrival);
    EXPECT_EQ(a.requests[i].prompt_tokens, b.requests[i].prompt_tokens);
    EXPECT_EQ(a.requests[i].cached_prompt_tokens, b.requests[i].cached_prompt_tokens);
  }
  // Byte-identical output files.
  std::ostringstream sa, sb, qa, qb;
  write_summary_json(a.summary, cfg.slo, sa);
  write_summary_json(b.summary, cfg.slo, sb);
  write_requests_csv(a.requests, qa);
  write_requests_csv(b.requests, qb);
  EXPECT_EQ(sa.str(), sb.str());
  EXPECT_EQ(qa.str(), qb.str());
  EXPECT_NE(sa.str().find("p90_e2e_norm_intvty"), std::string::npos);
  auto other = cfg;
  other.seed = 7;
  const RunResult c = run_simulation(other);
  bool differs = false;
  for (std::size_t i = 0; i < std::min<std::size_t>(4, c.requests.size()); ++i)
    differs |= c.requests[i].prompt_tokens != a.requests[i].prompt_tokens;
  EXPECT_TRUE(differs);
}

// Busy time and KV block-time accumulate over the whole run, warm-up included: a windowed run's
// fractions divide by the whole run, so a busy replica reads at most 1 however short the window.
TEST(AgenticReplay, FleetFractionsStayWithinOneWhenWarmupIsLong) {
  std::vector<AgenticEntry> e;
  for (int i = 0; i < 400; ++i) e.push_back(call(0.0, 0.0, 16 * (i % 50 + 1), 200));
  auto p = quiet(0.2);
  p.lanes = 4;
  p.warmup_requests = 40;
  p.grace = Time::from_seconds(100.0);
  const RunResult r = run_simulation(replay_config(kModel, {session("busy", e)}, p));
  ASSERT_GT(r.summary.num_requests, 0);
  EXPECT_GT(r.summary.excluded_requests, 0);
  EXPECT_LE(r.summary.gpu_busy_fraction, 1.0 + 1e-9);
  // Steps take 1 ms: the run's busy time over the measured span alone would read above 1.
  EXPECT_GT(static_cast<double>(r.summary.steps) * 0.001, r.summary.duration_s);
  EXPECT_LE(r.summary.mean_kv_usage, 1.0 + 1e-9);
}

// Metrics on hand-built records: two GPUs, ten measured requests with E2E / output = 1..10 ms.
TEST(AgenticMetrics, HandComputedThroughputSplitAndE2eInteractivity) {
  MetricsCollector m(Time::from_seconds(1.0), 1);
  for (int i = 0; i < 11; ++i) {
    RequestRecord r;
    r.id = static_cast<std::uint64_t>(i);
    r.session = i < 5 ? 1 : 2;
    r.arrival = Time::from_seconds(i);
    r.first_token = r.arrival + Time::from_seconds(0.001);
    r.output_tokens = r.generated_tokens = 100;
    r.finish = r.arrival + Time::from_seconds(0.1 * (i + 1));  // E2E / out = (i + 1) ms
    r.prompt_tokens = 1000;
    r.cached_prompt_tokens = i < 5 ? 800 : 500;
    r.reusable_prompt_tokens = 900;
    r.measured = i < 10;  // the 11th is outside the window
    m.on_request_done(r);
  }
  m.finalize({});
  SummaryInputs in;
  in.metrics = &m;
  in.end_time = Time::from_seconds(100.0);
  in.num_replicas = 1;
  in.num_gpus = 2;
  in.windowed = true;
  in.kv_evictions = 7;
  const Summary s = summarize(in);
  EXPECT_EQ(s.num_requests, 10);
  EXPECT_EQ(s.excluded_requests, 1);
  // Duration: first arrival 0 s to last finish 9 + 1.0 = 10 s.
  EXPECT_DOUBLE_EQ(s.duration_s, 10.0);
  EXPECT_EQ(s.cached_input_tokens, 5 * 800 + 5 * 500);
  EXPECT_EQ(s.uncached_input_tokens, 10000 - 6500);
  EXPECT_DOUBLE_EQ(s.cached_input_tput_per_gpu, 6500.0 / 10.0 / 2.0);
  EXPECT_DOUBLE_EQ(s.uncached_input_tput_per_gpu, 3500.0 / 10.0 / 2.0);
  EXPECT_DOUBLE_EQ(s.tput_per_gpu, (10000.0 + 1000.0) / 10.0 / 2.0);
  EXPECT_NEAR(s.cached_input_tput_per_gpu + s.uncached_input_tput_per_gpu + s.output_tput_per_gpu, s.tput_per_gpu,
              1e-9);
  // P90 (linear) of 1..10 ms = 9.1 ms per token -> 109.89 tokens/s/user; median 5.5 ms.
  EXPECT_NEAR(s.p90_e2e_norm_intvty, 1.0 / 0.0091, 1e-6);
  EXPECT_NEAR(s.median_e2e_norm_intvty, 1.0 / 0.0055, 1e-6);
  EXPECT_DOUBLE_EQ(s.prefix_cache_hit_rate, 0.65);
  EXPECT_DOUBLE_EQ(s.ideal_prefix_hit_rate, 0.9);
  EXPECT_EQ(s.recomputed_prefix_tokens, 5 * 100 + 5 * 400);
  EXPECT_EQ(s.kv_evictions, 7);
  EXPECT_EQ(s.num_sessions, 2);
  EXPECT_DOUBLE_EQ(s.session_hit_rate_median, 0.65);
  EXPECT_NEAR(s.session_hit_rate_p10, 0.5 + 0.1 * 0.3, 1e-12);
}

}  // namespace
}  // namespace engramsim::sim
