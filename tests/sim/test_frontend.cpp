// The replica's front end (ReplicaParams::frontend): prompts are tokenised by W workers in arrival
// order before the scheduler sees them; the time counts in TTFT, and requests still in it at the
// horizon are reported unfinished.
#include <gtest/gtest.h>

#include "sim_test_support.hpp"

using namespace engramsim;
using namespace engramsim::sim;
using namespace engramsim::sim::testing;

namespace {

// Poisson arrivals of 1,000-token prompts with one output token each, on a replica whose steps take
// 1 us, behind a front end of `workers` at 1 us a token: service S = 1 ms per request.
RunResult poisson_through_frontend(const StepTimeModel& model, double lambda, std::int32_t workers) {
  RunConfig cfg = poisson_one_replica(model, lambda, 1000, 1, 100000, 1000000, 77);
  cfg.replicas[0].frontend = FrontendParams{Time::us(1), workers};
  cfg.scheduler.max_num_seqs = 1024;
  return run_simulation(cfg);
}

}  // namespace

TEST(Frontend, OneWorkerTokenisesInArrivalOrderAndDelaysTtft) {
  const FixedStepModel model(Time::ms(10));
  RunConfig cfg = one_replica(model, {make_request(0.0, 1000, 1), make_request(0.0, 3000, 1)});
  cfg.replicas[0].frontend = FrontendParams{Time::us(1), 1};
  const RunResult r = run_simulation(cfg);
  ASSERT_EQ(r.summary.completed, 2);
  // The first request reaches the scheduler at 1 ms and runs alone (1 ms to 11 ms); the second is
  // ready at 4 ms and runs in the next step (11 ms to 21 ms).
  for (const auto& q : r.requests)
    EXPECT_EQ(q.first_token - q.arrival, Time::ms(q.prompt_tokens == 1000 ? 11 : 21)) << q.prompt_tokens;
}

TEST(Frontend, NoWorkersOrNoTimeMeansRequestsReachTheSchedulerOnArrival) {
  const FixedStepModel model(Time::ms(10));
  for (const FrontendParams f : {FrontendParams{Time::us(1), 0}, FrontendParams{Time::zero(), 1}}) {
    RunConfig cfg = one_replica(model, {make_request(0.0, 1000, 1), make_request(0.0, 3000, 1)});
    cfg.replicas[0].frontend = f;
    const RunResult r = run_simulation(cfg);
    ASSERT_EQ(r.summary.completed, 2);
    for (const auto& q : r.requests) EXPECT_EQ(q.first_token - q.arrival, Time::ms(10));
  }
}

TEST(Frontend, OneWorkerMeanWaitMatchesPollaczekKhinchine) {
  // M/D/1 at rho = 0.6 with S = 1 ms: the scheduler sees a request Wq + S after it arrives, plus at
  // most one 1 us step it waits out.
  const FixedStepModel model(Time::us(1));
  const double s_ms = 1.0, rho = 0.6;
  const RunResult r = poisson_through_frontend(model, rho / (s_ms * 1e-3), 1);
  ASSERT_EQ(r.summary.completed, 100000);
  const double wq_ms = rho * s_ms / (2 * (1 - rho));
  EXPECT_NEAR(r.summary.queue.mean, wq_ms + s_ms, 0.05 * wq_ms);
}

TEST(Frontend, MoreWorkersShortenTheQueue) {
  const FixedStepModel model(Time::us(1));
  const double lambda = 900.0;  // rho 0.9 on one worker, 0.45 per worker on two
  const RunResult one = poisson_through_frontend(model, lambda, 1);
  const RunResult two = poisson_through_frontend(model, lambda, 2);
  ASSERT_EQ(two.summary.completed, 100000);
  // One worker: Wq = 0.9 / (2 x 0.1) = 4.5 ms. Two workers wait far less (M/D/2 at 0.45 per worker),
  // but never less than the 1 ms service.
  EXPECT_NEAR(one.summary.queue.mean, 5.5, 0.5);
  EXPECT_LT(two.summary.queue.mean, 1.5);
  EXPECT_GE(two.summary.queue.mean, 1.0);
}

TEST(Frontend, RequestsStillTokenisingAtTheHorizonAreUnfinished) {
  const FixedStepModel model(Time::ms(10));
  RunConfig cfg = one_replica(model, {make_request(0.0, 100, 2), make_request(0.0, 100, 2)});
  cfg.replicas[0].frontend = FrontendParams{Time::ms(100), 1};  // 10 s per request
  cfg.horizon = Time::from_seconds(15);
  const RunResult r = run_simulation(cfg);
  EXPECT_EQ(r.summary.completed, 1);
  EXPECT_EQ(r.summary.unfinished, 1);
  ASSERT_EQ(r.requests.size(), 2u);
}
