#include <gtest/gtest.h>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/workload/workload_config.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {
ConfigNode yaml(const std::string& text) { return ConfigNode::load_string(text, "scenario.yaml"); }

std::uint64_t count(const WorkloadSpec& w, std::uint64_t seed = 1) {
  auto s = w.source(seed);
  Request r;
  std::uint64_t n = 0;
  while (s->next(r)) ++n;
  return n;
}

void expect_config_error(const std::function<void()>& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no error, expected: " << what;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("scenario.yaml:"), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(WorkloadConfig, TraceWithWindowAndScaling) {
  const ConfigNode root = yaml(
      "workload:\n"
      "  trace: scenarios/traces/splitwise_conv.csv\n"
      "  window: {start: 60s, end: 120s}\n"
      "  rate_scale: 2\n");
  const WorkloadSpec w = parse_workload(root.child("workload"));
  auto s = w.source(0);
  Request r;
  Time last;
  std::uint64_t n = 0;
  while (s->next(r)) {
    last = r.arrival;
    ++n;
  }
  EXPECT_GT(n, 200u);
  EXPECT_LT(last, Time::from_seconds(30));  // a 60 s window offered at twice the rate
  EXPECT_EQ(w.concurrency, 0);
}

TEST(WorkloadConfig, GeneratorsAndClosedLoop) {
  const WorkloadSpec a = parse_workload(yaml("arrival: {process: gamma, rate_per_s: 4, cv: 2}\n"
                                             "lengths: {distribution: uniform_ratio, isl: 1024, osl: 128}\n"
                                             "num_requests: 300\n"));
  EXPECT_EQ(count(a), 300u);
  const WorkloadSpec b = parse_workload(
      yaml("arrival: {process: poisson, rate_per_s: 1}\n"
           "lengths: {distribution: empirical, file: scenarios/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv}\n"
           "concurrency: 16\nmax_requests: 50\n"));
  EXPECT_EQ(b.concurrency, 16);
  EXPECT_EQ(b.max_requests, 50u);
  const WorkloadSpec c = parse_workload(yaml("arrival: {process: poisson, rate_per_s: 10}\n"
                                             "lengths: {distribution: fixed, isl: 8, osl: 8}\n"
                                             "duration: 20s\n"));
  EXPECT_NEAR(static_cast<double>(count(c)), 200.0, 60.0);
}

TEST(WorkloadConfig, BadSectionsNameTheFileAndField) {
  expect_config_error([] { parse_workload(yaml("trace: scenarios/traces/splitwise_conv.csv\nformat: csv\n")); },
                      "format");
  expect_config_error([] { parse_workload(yaml("trace: scenarios/traces/splitwise_conv.csv\nrate_scal: 2\n")); },
                      "rate_scal");
  expect_config_error([] { parse_workload(yaml("arrival: {process: poisson, rate_per_s: 1}\n"
                                               "lengths: {distribution: fixed, isl: 8, osl: 8}\n")); },
                      "num_requests");
  expect_config_error([] { parse_workload(yaml("arrival: {process: poisson, rate_per_s: 0}\n"
                                               "lengths: {distribution: fixed, isl: 8, osl: 8}\nnum_requests: 1\n")); },
                      "rate_per_s");
  expect_config_error([] { parse_workload(yaml("trace: scenarios/traces/splitwise_conv.csv\n"
                                               "window: {start: 10s, end: 5s}\n")); },
                      "window");
  EXPECT_THROW(parse_workload(yaml("trace: no/such/trace.csv\n")), ConfigError);
}

TEST(ServingConfig, SchedulerSloAndRouter) {
  SchedulerRegistry schedulers;
  register_builtin_schedulers(schedulers);
  RouterRegistry routers;
  register_builtin_routers(routers);
  const ConfigNode root = yaml(
      "scheduler: {name: sarathi, chunk_size: 256, max_num_seqs: 64}\n"
      "slo: {ttft: 2s, tpot: 50ms}\n"
      "router: session_affinity\n");
  const SchedulerParams p = parse_scheduler(root.child("scheduler"), schedulers);
  EXPECT_EQ(p.name, "sarathi");
  EXPECT_EQ(p.chunk_size, 256);
  EXPECT_EQ(p.max_num_seqs, 64);
  EXPECT_EQ(p.max_num_batched_tokens, 8192);
  const SloParams slo = parse_slo(root.child("slo"));
  EXPECT_EQ(slo.ttft, Time::from_seconds(2));
  EXPECT_EQ(slo.tpot, Time::ms(50));
  EXPECT_FALSE(slo.e2el);
  EXPECT_EQ(parse_router(root.child("router"), routers), "session_affinity");
  expect_config_error([&] { parse_scheduler(yaml("name: fifo\n"), schedulers); }, "name");
  expect_config_error([&] { parse_scheduler(yaml("max_num_seqs: 0\n"), schedulers); }, "max_num_seqs");
  expect_config_error([&] { parse_slo(yaml("ttft: 2\n")); }, "ttft");
  expect_config_error([&] { parse_router(yaml("router: random\n").child("router"), routers); }, "unknown router");
}
