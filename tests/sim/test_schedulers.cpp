// Hand-built scheduler cases: every step's batch is checked against what the policy must produce.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/error.hpp"
#include "sim/serving/scheduler/continuous_batching_scheduler.hpp"
#include "sim/serving/scheduler/prefill_first_scheduler.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"
#include "sim/serving/scheduler/static_batching_scheduler.hpp"
#include "sim_test_support.hpp"

using namespace engramsim;
using namespace engramsim::sim;
using namespace engramsim::sim::testing;

namespace {
using Shape = RecordingStepModel::Shape;

std::string show(const Shape& s) {
  std::string out;
  for (const auto& p : s.prefill) out += "P(" + std::to_string(p.tokens) + "," + std::to_string(p.cached) + ")";
  for (const auto& d : s.decode) out += "D(" + std::to_string(d.context) + "," + std::to_string(d.positions) + ")";
  return out;
}

std::vector<std::string> shapes_of(const RecordingStepModel& m) {
  std::vector<std::string> out;
  for (const auto& s : m.shapes()) out.push_back(show(s));
  return out;
}

const Time kStep = Time::ms(1);
}  // namespace

TEST(VllmScheduler, ChunksAPromptUnderTheTokenBudget) {
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 250, 3)}, 100000, "vllm", 100);
  const RunResult r = run_simulation(cfg);
  EXPECT_EQ(shapes_of(m), (std::vector<std::string>{"P(100,0)", "P(100,100)", "P(50,200)", "D(250,1)", "D(251,1)"}));
  ASSERT_EQ(r.requests.size(), 1u);
  EXPECT_EQ(r.requests[0].first_token, Time::ms(3));
  EXPECT_EQ(r.requests[0].finish, Time::ms(5));
  EXPECT_EQ(r.requests[0].generated_tokens, 3);
}

TEST(VllmScheduler, DecodesFirstThenPrefillChunksFillTheBudget) {
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 60, 3), make_request(0, 200, 2)}, 100000, "vllm", 100);
  run_simulation(cfg);
  EXPECT_EQ(shapes_of(m),
            (std::vector<std::string>{"P(60,0)P(40,0)", "P(99,40)D(60,1)", "P(61,139)D(61,1)", "D(200,1)"}));
  for (const auto& s : m.shapes()) {
    int tokens = 0;
    for (const auto& p : s.prefill) tokens += p.tokens;
    for (const auto& d : s.decode) tokens += d.positions;
    EXPECT_LE(tokens, 100);
  }
}

TEST(VllmScheduler, LongPrefillThresholdCapsOneSequencesChunk) {
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 100, 1), make_request(0, 30, 1)}, 100000, "vllm", 100);
  cfg.scheduler.long_prefill_token_threshold = 40;
  run_simulation(cfg);
  EXPECT_EQ(shapes_of(m), (std::vector<std::string>{"P(40,0)P(30,0)", "P(40,40)", "P(20,80)"}));
}

TEST(VllmScheduler, PreemptsTheLatestAdmittedWhenKvRunsOutAndResumesByRecompute) {
  RecordingStepModel m(kStep);
  // 10 blocks of 16 tokens: each request alone needs ceil((64 + 60) / 16) = 8 blocks, both cannot fit.
  RunConfig cfg = one_replica(m, {make_request(0, 64, 60), make_request(0, 64, 60)}, 10, "vllm", 1000);
  const RunResult r = run_simulation(cfg);
  ASSERT_EQ(r.requests.size(), 2u);
  EXPECT_EQ(r.requests[0].preemptions, 0);
  EXPECT_GE(r.requests[1].preemptions, 1);  // the later-admitted one is the victim
  EXPECT_EQ(r.summary.preemptions, r.requests[1].preemptions);
  for (const auto& rec : r.requests) {
    EXPECT_EQ(rec.status, RequestStatus::finished);
    EXPECT_EQ(rec.generated_tokens, 60);
  }
  // The victim comes back as one prefill over its prompt plus the tokens it had already emitted.
  bool resumed = false;
  for (const auto& s : m.shapes()) {
    for (const auto& p : s.prefill) {
      if (p.tokens > 64) {
        resumed = true;
        EXPECT_EQ(p.cached, 0);
        EXPECT_LT(p.tokens, 64 + 60);
      }
    }
  }
  EXPECT_TRUE(resumed);
  // It resumes only once the first request has finished and freed its blocks.
  EXPECT_GT(r.requests[1].finish, r.requests[0].finish);
  EXPECT_GT(r.requests[0].finish - r.requests[0].first_token, Time::zero());
}

TEST(VllmScheduler, PrefixCacheHitsSkipPrefillWork) {
  const std::vector<std::uint64_t> h{1, 2, 3, 4};
  {
    RecordingStepModel m(kStep);
    RunConfig cfg = one_replica(m, {make_request(0, 64, 2, h), make_request(1, 64, 2, h)});
    cfg.replicas[0].kv.enable_prefix_caching = true;
    const RunResult r = run_simulation(cfg);
    // Full hit stops one block short: at least one token is computed to sample from.
    EXPECT_EQ(shapes_of(m), (std::vector<std::string>{"P(64,0)", "D(64,1)", "P(16,48)", "D(64,1)"}));
    EXPECT_EQ(r.requests[1].cached_prompt_tokens, 48);
    EXPECT_NEAR(r.summary.prefix_cache_hit_rate, 48.0 / 128.0, 1e-12);
  }
  {
    RecordingStepModel m(kStep);
    RunConfig cfg = one_replica(m, {make_request(0, 64, 2, h), make_request(1, 64, 2, {1, 2, 9, 9})});
    cfg.replicas[0].kv.enable_prefix_caching = true;
    run_simulation(cfg);
    EXPECT_EQ(shapes_of(m)[2], "P(32,32)");  // shared prefix of two blocks only
  }
  {
    RecordingStepModel m(kStep);
    RunConfig cfg = one_replica(m, {make_request(0, 64, 2, h), make_request(1, 64, 2, h)});
    run_simulation(cfg);  // caching off
    EXPECT_EQ(shapes_of(m)[2], "P(64,0)");
  }
  {
    // Mooncake-style 512-token hash blocks over 16-token KV blocks: the first 512 tokens are shared.
    RecordingStepModel m(kStep);
    RunConfig cfg = one_replica(m, {make_request(0, 1000, 1, {5, 6}, 512), make_request(1, 1000, 1, {5, 7}, 512)});
    cfg.replicas[0].kv.enable_prefix_caching = true;
    run_simulation(cfg);
    EXPECT_EQ(shapes_of(m), (std::vector<std::string>{"P(1000,0)", "P(488,512)"}));
  }
}

TEST(VllmScheduler, ChunkedPrefillOffRunsWholePromptsAndOverlongOnesAlone) {
  RecordingStepModel m(kStep);
  RunConfig cfg =
      one_replica(m, {make_request(0, 150, 1), make_request(0, 60, 1), make_request(0, 50, 1)}, 100000, "vllm", 100);
  cfg.scheduler.enable_chunked_prefill = false;
  run_simulation(cfg);
  EXPECT_EQ(shapes_of(m), (std::vector<std::string>{"P(150,0)", "P(60,0)", "P(50,0)"}));
}

TEST(TrtllmScheduler, AdmitsOnlyWhatTheWholeLifeFitsAndNeverPreempts) {
  // The pool of the vLLM preemption case: 10 blocks of 16 tokens, each request needs 8 over its life.
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 64, 60), make_request(0, 64, 60)}, 10, "trtllm", 1000);
  const RunResult r = run_simulation(cfg);
  ASSERT_EQ(r.requests.size(), 2u);
  EXPECT_EQ(r.summary.preemptions, 0);
  for (const auto& rec : r.requests) {
    EXPECT_EQ(rec.status, RequestStatus::finished);
    EXPECT_EQ(rec.generated_tokens, 60);
    EXPECT_EQ(rec.preemptions, 0);
  }
  // The second request waits for the first to finish: 1 prefill + 59 decodes, then its own prefill.
  const auto shapes = shapes_of(m);
  ASSERT_EQ(shapes.size(), 120u);
  EXPECT_EQ(shapes[0], "P(64,0)");
  EXPECT_EQ(shapes[59], "D(122,1)");
  EXPECT_EQ(shapes[60], "P(64,0)");
  EXPECT_GE(r.requests[1].first_token, r.requests[0].finish);
}

TEST(TrtllmScheduler, AdmitsTogetherWhenBothLivesFitAndRespectsTheBudget) {
  // 16 blocks hold both lives (8 + 8): admitted in one step, as vLLM would.
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 64, 60), make_request(0, 64, 60)}, 16, "trtllm", 1000);
  run_simulation(cfg);
  EXPECT_EQ(shapes_of(m)[0], "P(64,0)P(64,0)");
  // One block short of both lives: the second waits although its prompt alone would fit now.
  RecordingStepModel m2(kStep);
  RunConfig cfg2 = one_replica(m2, {make_request(0, 64, 60), make_request(0, 64, 60)}, 15, "trtllm", 1000);
  run_simulation(cfg2);
  EXPECT_EQ(shapes_of(m2)[0], "P(64,0)");
  // Without chunking a prompt runs whole within the budget, as with vllm.
  RecordingStepModel m3(kStep);
  RunConfig cfg3 = one_replica(m3, {make_request(0, 60, 1), make_request(0, 50, 1)}, 100000, "trtllm", 100);
  cfg3.scheduler.enable_chunked_prefill = false;
  run_simulation(cfg3);
  EXPECT_EQ(shapes_of(m3), (std::vector<std::string>{"P(60,0)", "P(50,0)"}));
}

TEST(SarathiScheduler, FixedChunkIsTheBudget) {
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 200, 1)}, 100000, "sarathi");
  cfg.scheduler.chunk_size = 64;
  run_simulation(cfg);
  EXPECT_EQ(shapes_of(m), (std::vector<std::string>{"P(64,0)", "P(64,64)", "P(64,128)", "P(8,192)"}));
}

// A KV-short burst: 48 requests of 160-400-token prompts and 40-160-token outputs, arriving
// 10 ms apart, on a pool of 120 blocks of 16 tokens (about 5 average lives).
std::vector<Request> kv_short_burst() {
  std::vector<Request> out;
  for (int i = 0; i < 48; ++i) out.push_back(make_request(0.01 * i, 160 + (i * 37) % 241, 40 + (i * 53) % 121));
  return out;
}

TEST(SarathiScheduler, ReservesTheWholePromptWithAWatermarkAndRestartsFarLessWhenKvRunsShort) {
  // Before: the Sarathi budget under vLLM v1's KV policy (first chunk only, no watermark).
  RecordingStepModel before_model(kStep);
  RunConfig before = one_replica(before_model, kv_short_burst(), 120, "vllm", 64);
  before.scheduler.long_prefill_token_threshold = 64;
  const RunResult b = run_simulation(before);
  // After: Sarathi's own policy (whole prompt reserved, 1 % watermark, latest arrival evicted).
  RecordingStepModel after_model(kStep);
  RunConfig after = one_replica(after_model, kv_short_burst(), 120, "sarathi");
  after.scheduler.chunk_size = 64;
  const RunResult a = run_simulation(after);
  for (const RunResult* r : {&b, &a}) {
    ASSERT_EQ(r->requests.size(), 48u);
    for (const auto& rec : r->requests) EXPECT_EQ(rec.status, RequestStatus::finished);
  }
  std::printf("[ RESTARTS ] first-chunk policy %lld, sarathi policy %lld\n",
              static_cast<long long>(b.summary.preemptions), static_cast<long long>(a.summary.preemptions));
  EXPECT_GT(b.summary.preemptions, 0);
  EXPECT_LT(a.summary.preemptions * 2, b.summary.preemptions);
}

TEST(SarathiScheduler, AdmitsOnlyWhenTheWholePromptFitsAboveTheWatermark) {
  // 100 blocks, watermark 1. The first request holds 96 blocks for its prompt and grows to 97 as it
  // decodes; the second needs 3 for its 48-token prompt: 3 are free but one is the watermark, so it
  // waits for the first to finish. Under vLLM v1's policy (no watermark) it runs alongside.
  const std::vector<Request> reqs{make_request(0, 64 * 24, 5), make_request(0, 48, 1)};
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, reqs, 100, "sarathi");
  cfg.scheduler.chunk_size = 64;
  const RunResult a = run_simulation(cfg);
  ASSERT_EQ(a.requests.size(), 2u);
  EXPECT_GE(a.requests[1].first_token, a.requests[0].finish);
  RecordingStepModel m2(kStep);
  RunConfig v1 = one_replica(m2, reqs, 100, "vllm", 64);
  v1.scheduler.long_prefill_token_threshold = 64;
  const RunResult b = run_simulation(v1);
  ASSERT_EQ(b.requests.size(), 2u);
  EXPECT_LT(b.requests[1].first_token, b.requests[0].finish);
}

TEST(PrefillFirstScheduler, NewPromptsStallRunningDecodes) {
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 50, 3), make_request(0.0015, 50, 2)}, 100000, "prefill_first");
  run_simulation(cfg);
  EXPECT_EQ(shapes_of(m), (std::vector<std::string>{"P(50,0)", "D(50,1)", "P(50,0)", "D(51,1)D(50,1)"}));
  RecordingStepModel v(kStep);
  RunConfig cv = one_replica(v, {make_request(0, 50, 3), make_request(0.0015, 50, 2)}, 100000, "vllm");
  run_simulation(cv);
  EXPECT_EQ(shapes_of(v), (std::vector<std::string>{"P(50,0)", "D(50,1)", "P(50,0)D(51,1)", "D(50,1)"}));
}

TEST(StaticScheduler, BatchRunsToCompletionBeforeTheNextForms) {
  RecordingStepModel m(kStep);
  RunConfig cfg =
      one_replica(m, {make_request(0, 10, 2), make_request(0, 20, 4), make_request(0, 30, 1)}, 100000, "static");
  cfg.scheduler.max_num_seqs = 2;
  run_simulation(cfg);
  EXPECT_EQ(shapes_of(m),
            (std::vector<std::string>{"P(10,0)P(20,0)", "D(10,1)D(20,1)", "D(21,1)", "D(22,1)", "P(30,0)"}));
}

TEST(Replica, RejectsRequestsThatCanNeverFit) {
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 100, 100), make_request(0, 10, 2)}, 10);
  const RunResult r = run_simulation(cfg);
  ASSERT_EQ(r.requests.size(), 2u);
  EXPECT_EQ(r.requests[0].status, RequestStatus::rejected);  // 200 tokens > 160
  EXPECT_EQ(r.requests[1].status, RequestStatus::finished);
  EXPECT_EQ(r.summary.rejected, 1);
  EXPECT_EQ(m.shapes().size(), 2u);
}

TEST(Replica, SpeculativeDecodingVerifiesDraftsAndEmitsExactlyTheRequestedTokens) {
  RecordingStepModel m(kStep);
  RunConfig cfg = one_replica(m, {make_request(0, 100, 1000)});
  cfg.replicas[0].spec = SpecDecodeParams{3, 2.5};
  const RunResult r = run_simulation(cfg);
  EXPECT_EQ(r.requests[0].generated_tokens, 1000);
  const auto& shapes = m.shapes();
  // 1 prefill step + ~999 / 2.5 verify steps.
  EXPECT_NEAR(static_cast<double>(shapes.size() - 1), 999.0 / 2.5, 40.0);
  for (std::size_t i = 1; i < shapes.size(); ++i) {
    ASSERT_EQ(shapes[i].decode.size(), 1u);
    const int remaining = 1000 - (shapes[i].decode[0].context - 100 + 1);
    EXPECT_EQ(shapes[i].decode[0].positions, std::min(4, remaining));
  }
}

TEST(SchedulerRegistry, EachPolicyTakesOnlyItsOwnParameters) {
  SchedulerParams p;
  p.max_num_batched_tokens = 1000;
  p.max_num_seqs = 7;
  p.enable_chunked_prefill = false;
  p.long_prefill_token_threshold = 300;
  p.chunk_size = 64;
  const VllmParams v = VllmParams::from(p);
  EXPECT_EQ(v.max_num_batched_tokens, 1000);
  EXPECT_EQ(v.max_num_seqs, 7);
  EXPECT_FALSE(v.enable_chunked_prefill);
  EXPECT_EQ(v.long_prefill_token_threshold, 300);
  const SarathiParams s = SarathiParams::from(p);
  EXPECT_EQ(s.chunk_size, 64);
  EXPECT_EQ(s.max_num_seqs, 7);
  EXPECT_EQ(PrefillFirstParams::from(p).max_num_batched_tokens, 1000);
  EXPECT_EQ(StaticBatchingParams::from(p).max_num_seqs, 7);
  // The step budget each policy plans with.
  p.name = "sarathi";
  EXPECT_EQ(step_token_budget(p), 64);
  p.name = "vllm";
  EXPECT_EQ(step_token_budget(p), 1000);
}

TEST(SchedulerRegistry, BuiltinsByNameAndNoSecondRegistration) {
  SchedulerRegistry reg;
  register_builtin_schedulers(reg);
  EXPECT_EQ(reg.names(), (std::vector<std::string>{"prefill_first", "sarathi", "static", "trtllm", "vllm"}));
  for (const std::string& name : reg.names()) {
    SchedulerParams p;
    p.name = name;
    EXPECT_EQ(reg.create(p)->name(), name);
  }
  EXPECT_THROW(register_builtin_schedulers(reg), std::logic_error);
  SchedulerParams unknown;
  unknown.name = "fcfs";
  try {
    reg.create(unknown);
    ADD_FAILURE() << "an unknown scheduler was built";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scheduler.name: unknown scheduler 'fcfs' (known: prefill_first, sarathi, static, trtllm, vllm)");
  }
}
