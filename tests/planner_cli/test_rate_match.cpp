// The rate-matching bound of a disaggregated deployment (study/rate_match.hpp) on step models whose
// costs are known exactly: each pool at its best (a full chunk budget, a continuous decode batch).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "study/rate_match.hpp"

namespace engramsim::study {
namespace {

// base + per prompt token + per decode sequence.
class LinearModel final : public StepTimeModel {
 public:
  LinearModel(Time base, Time per_token, Time per_seq) : base_(base), token_(per_token), seq_(per_seq) {}
  StepCost step(const BatchShape& b) const override {
    Time t = base_;
    for (const auto& p : b.prefill) t += token_ * std::int64_t{p.tokens};
    t += seq_ * static_cast<std::int64_t>(b.decode.size());
    StepCost c;
    c.total = c.compute = t;
    return c;
  }

 private:
  Time base_, token_, seq_;
};

RateMatchInputs inputs(const StepTimeModel& prefill, const StepTimeModel& decode) {
  RateMatchInputs in;
  in.prefill = {&prefill, 1, 1};
  in.decode = {&decode, 2, 1};
  in.chunk_tokens = 4096;
  in.max_seqs = 256;
  in.input_tokens = 2000;
  in.cached_fraction = 0.5;  // 1,000 tokens to prefill
  in.output_tokens = 100;
  in.interactivity = 50;
  return in;
}

TEST(RateMatch, TheLowerPoolSetsTheRate) {
  const LinearModel prefill(Time::ms(1), Time::us(10), Time::zero());
  const LinearModel decode(Time::ms(10), Time::zero(), Time::ms(1));
  const RateMatch m = rate_match(inputs(prefill, decode));
  // Prefill: the 4,096-token budget filled with four 1,000-token prompts and 96 tokens of the next,
  // 4,096 tokens in 1 ms + 40.96 ms: 4,096 / 41.96 ms / 1,000 tokens = 97.6 requests/s.
  EXPECT_NEAR(m.prefill_requests_per_s, 4096.0 / 0.04196 / 1000.0, 1e-9);
  // Decode: 1 / (10 ms + n x 1 ms) >= 50 tok/s up to n = 10 exactly; 10 x 50 / 100 = 5 requests/s a replica.
  EXPECT_NEAR(m.decode_batch, 10.0, 1e-9);
  EXPECT_NEAR(m.decode_requests_per_s, 10.0, 1e-9);
  EXPECT_NEAR(m.requests_per_s, 10.0, 1e-9);
  EXPECT_FALSE(m.prefill_bound);
  EXPECT_NEAR(m.tokens_per_s_per_gpu, 10.0 * 2100.0 / 3.0, 1e-6);
}

TEST(RateMatch, TheDecodeBatchIsContinuousNotRoundedDown) {
  const LinearModel prefill(Time::ms(1), Time::us(10), Time::zero());
  const LinearModel decode(Time::ms(10), Time::zero(), Time::ms(1));
  RateMatchInputs in = inputs(prefill, decode);
  in.interactivity = 45;  // a step of 22.2 ms: 12 sequences keep it, 13 do not
  const RateMatch m = rate_match(in);
  // A replica alternating between 12 and 13 sequences averages the 22.2-ms step at 12.22 sequences.
  EXPECT_NEAR(m.decode_batch, 12.0 + (1000.0 / 45.0 - 22.0) / 1.0, 1e-6);
  EXPECT_NEAR(m.decode_requests_per_s, m.decode_batch * 45.0 / 100.0 * 2.0, 1e-9);
  // Whole batches only would give 12 x 45: the continuous batch is never below it.
  EXPECT_GT(m.decode_requests_per_s, 12.0 * 45.0 / 100.0 * 2.0);
}

TEST(RateMatch, WithoutATargetTheDecodePoolRunsItsLargestBatchAtItsOwnSpeed) {
  const LinearModel prefill(Time::ms(1), Time::us(10), Time::zero());
  const LinearModel decode(Time::ms(10), Time::zero(), Time::ms(1));
  RateMatchInputs in = inputs(prefill, decode);
  in.max_seqs = 20;
  in.interactivity = 0.0;
  const RateMatch m = rate_match(in);
  EXPECT_NEAR(m.decode_batch, 20.0, 1e-12);
  // 20 sequences at 1 / 30 ms each: 666.7 tok/s a replica, 6.67 requests/s, two replicas.
  EXPECT_NEAR(m.decode_requests_per_s, 20.0 / 0.030 / 100.0 * 2.0, 1e-9);
}

TEST(RateMatch, APrefillPoolTooSmallBindsAndATargetNoBatchKeepsGivesNothing) {
  const LinearModel slow_prefill(Time::ms(1), Time::ms(1), Time::zero());
  const LinearModel decode(Time::ms(10), Time::zero(), Time::ms(1));
  RateMatchInputs in = inputs(slow_prefill, decode);
  const RateMatch m = rate_match(in);
  EXPECT_TRUE(m.prefill_bound);
  // 4,096 tokens in 4.097 s, over 1,000 uncached tokens a request.
  EXPECT_NEAR(m.requests_per_s, 4096.0 / 4.097 / 1000.0, 1e-9);
  in.interactivity = 200;  // one sequence alone runs at 1 / 11 ms = 91 tok/s
  const RateMatch none = rate_match(in);
  EXPECT_EQ(none.decode_batch, 0.0);
  EXPECT_EQ(none.requests_per_s, 0.0);
  in.prefill.model = nullptr;
  EXPECT_THROW(rate_match(in), std::invalid_argument);
}

TEST(RateMatch, APrefillTermNotKnownToBeOptimisticIsLeftOut) {
  const LinearModel slow_prefill(Time::ms(1), Time::ms(1), Time::zero());
  const LinearModel decode(Time::ms(10), Time::zero(), Time::ms(1));
  RateMatchInputs in = inputs(slow_prefill, decode);
  in.bound_prefill = false;  // prefix hits unknown, or the decode pool prefills too
  const RateMatch m = rate_match(in);
  EXPECT_TRUE(std::isinf(m.prefill_requests_per_s));
  EXPECT_FALSE(m.prefill_bound);
  EXPECT_NEAR(m.requests_per_s, 10.0, 1e-9);
}

}  // namespace
}  // namespace engramsim::study
