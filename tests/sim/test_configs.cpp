#include <gtest/gtest.h>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "scenario/schema/scenario_workload.hpp"
#include "sim/serving/router/router_registry.hpp"

using namespace engramsim;
using namespace engramsim::sim;
using namespace engramsim::scenario;

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

// The scenario schema's workload section (scenario/schema/scenario_workload.hpp): trace windows and
// scaling, generators, closed loops, and located errors.
TEST(WorkloadConfig, TraceWithWindowAndScaling) {
  const ConfigNode root = yaml(
      "workload:\n"
      "  kind: trace\n"
      "  trace: {path: scenarios/traces/splitwise_conv.csv, window: {start: 60s, end: 120s}, rate_scale: 2}\n");
  const ScenarioWorkload w = parse_scenario_workload(root.child("workload"));
  auto s = w.spec.source(0);
  Request r;
  Time last;
  std::uint64_t n = 0;
  while (s->next(r)) {
    last = r.arrival;
    ++n;
  }
  EXPECT_GT(n, 200u);
  EXPECT_LT(last, Time::from_seconds(30));  // a 60 s window offered at twice the rate
  EXPECT_EQ(w.spec.concurrency, 0);
}

TEST(WorkloadConfig, GeneratorsAndClosedLoop) {
  const ScenarioWorkload a = parse_scenario_workload(yaml(
      "kind: open_loop\narrival: {process: gamma, rate_per_s: 4, cv: 2}\n"
      "input: {distribution: uniform_ratio, tokens: 1024, ratio: 0.5}\noutput: {distribution: fixed, tokens: 128}\n"
      "num_requests: 300\n"));
  EXPECT_EQ(count(a.spec), 300u);
  const ScenarioWorkload b = parse_scenario_workload(yaml(
      "kind: closed_loop\nconcurrency: 16\nnum_requests: 50\n"
      "lengths: {distribution: empirical, file: scenarios/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv}\n"));
  EXPECT_EQ(b.spec.concurrency, 16);
  EXPECT_EQ(b.spec.max_requests, 50u);
  const ScenarioWorkload c = parse_scenario_workload(
      yaml("kind: open_loop\narrival: {process: poisson, rate_per_s: 10}\n"
           "input: {distribution: fixed, tokens: 8}\noutput: {distribution: fixed, tokens: 8}\nduration: 20s\n"));
  EXPECT_NEAR(static_cast<double>(count(c.spec)), 200.0, 60.0);
}

TEST(WorkloadConfig, BadSectionsNameTheFileAndField) {
  const std::string fixed = "input: {distribution: fixed, tokens: 8}\noutput: {distribution: fixed, tokens: 8}\n";
  expect_config_error(
      [] {
        scenario::parse_scenario_workload(
            yaml("kind: trace\ntrace: {path: scenarios/traces/splitwise_conv.csv, format: csv}\n"));
      },
      "format");
  expect_config_error(
      [] {
        scenario::parse_scenario_workload(
            yaml("kind: trace\ntrace: {path: scenarios/traces/splitwise_conv.csv, rate_scal: 2}\n"));
      },
      "rate_scal");
  expect_config_error(
      [&] {
        scenario::parse_scenario_workload(
            yaml("kind: open_loop\narrival: {process: poisson, rate_per_s: 1}\n" + fixed));
      },
      "num_requests");
  expect_config_error(
      [&] {
        scenario::parse_scenario_workload(
            yaml("kind: open_loop\narrival: {process: poisson, rate_per_s: 0}\nnum_requests: 1\n" + fixed));
      },
      "rate_per_s");
  expect_config_error(
      [] {
        scenario::parse_scenario_workload(
            yaml("kind: trace\ntrace: {path: scenarios/traces/splitwise_conv.csv, "
                 "window: {start: 10s, end: 5s}}\n"));
      },
      "window");
  expect_config_error(
      [] { scenario::parse_scenario_workload(yaml("kind: trace\ntrace: {path: no/such/trace.csv}\n")); },
      "no such file");
}

TEST(ServingConfig, Router) {
  RouterRegistry routers;
  register_builtin_routers(routers);
  EXPECT_EQ(routers.checked_name(yaml("router: session_affinity\n").child("router")), "session_affinity");
  expect_config_error([&] { routers.checked_name(yaml("router: random\n").child("router")); }, "unknown router");
}
