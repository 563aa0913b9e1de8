// The scenario schema (scenario/schema/scenario.hpp, scenario_workload.hpp): defaults, every kind of
// bad input with its file:line:col and field, and the workload generators' distributions.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario_test_util.hpp"
#include "tests/support/config_error.hpp"

namespace engramsim::sim {

using namespace engramsim::scenario;
namespace {

// A small valid scenario; `extra` lines are appended under the given section ("" = top level).
std::string minimal(const std::string& deployment_extra = "", const std::string& workload = "",
                    const std::string& top_extra = "") {
  std::string w = workload.empty() ? "  kind: closed_loop\n  concurrency: 4\n  num_requests: 8\n"
                                     "  input: {distribution: fixed, tokens: 128}\n"
                                     "  output: {distribution: fixed, tokens: 16}\n"
                                   : workload;
  return "name: t\nmodel: llama-3.1-8b\nnode: hgx-h100\n" + top_extra + "deployment:\n  replicas: 1\n  tp: 1\n" +
         deployment_extra + "workload:\n" + w;
}

ScenarioParams parse(const std::string& text, const std::string& file = "t.yaml") {
  return parse_scenario(ConfigNode::load_string(text, file));
}

// The message of the ConfigError that parsing `text` throws ("" when it parses).
std::string error_of(const std::string& text) {
  return test::config_error_of([&] { parse(text); });
}

TEST(ScenarioConfig, MinimalScenarioTakesTheDocumentedDefaults) {
  const ScenarioParams p = parse(minimal());
  EXPECT_EQ(p.name, "t");
  EXPECT_EQ(p.card.name, "llama-3.1-8b");
  EXPECT_EQ(p.node.name, "hgx-h100");
  EXPECT_EQ(p.seed, 0u);
  EXPECT_EQ(p.price_tier, PriceTier::hyperscaler);
  EXPECT_FALSE(p.deployment.engram.tier.has_value());  // the card has no Engram: tier none
  EXPECT_EQ(p.deployment.scheduler.policy.name, "vllm");
  EXPECT_EQ(p.deployment.scheduler.policy.max_num_batched_tokens, 8192);
  EXPECT_EQ(p.deployment.scheduler.policy.max_num_seqs, 256);
  EXPECT_EQ(p.deployment.scheduler.block_size, 16);
  EXPECT_DOUBLE_EQ(p.deployment.scheduler.gpu_memory_utilization, 0.9);
  EXPECT_FALSE(p.deployment.scheduler.enable_prefix_caching);
  EXPECT_EQ(p.deployment.router, "round_robin");
  EXPECT_EQ(p.deployment.engine, "vllm");
  EXPECT_FALSE(p.deployment.spec_decode.enabled);
  EXPECT_EQ(p.horizon, Time::max());
  EXPECT_EQ(p.workload.kind, WorkloadKind::closed_loop);
  EXPECT_EQ(p.workload.spec.concurrency, 4);
  EXPECT_EQ(p.workload.num_requests, 8u);
  EXPECT_FALSE(p.slo.any());
}

TEST(ScenarioConfig, UnknownKeyNamesFileLineColumnAndPath) {
  const std::string e = error_of(minimal("  tpp: 2\n"));
  EXPECT_NE(e.find("t.yaml:7:3: deployment.tpp"), std::string::npos) << e;
  EXPECT_NE(error_of(minimal("", "", "colour: blue\n")).find("colour"), std::string::npos);
  EXPECT_NE(error_of(minimal("  scheduler: {max_num_seq: 4}\n")).find("deployment.scheduler.max_num_seq"),
            std::string::npos);
}

TEST(ScenarioConfig, TensorRtLlmKvFractionExcludesGpuMemoryUtilization) {
  const ScenarioParams p = parse(minimal("  scheduler: {policy: trtllm, kv_cache_free_gpu_mem_fraction: 0.85}\n"));
  EXPECT_DOUBLE_EQ(p.deployment.scheduler.kv_cache_free_gpu_mem_fraction, 0.85);
  EXPECT_EQ(p.deployment.scheduler.policy.name, "trtllm");
  EXPECT_DOUBLE_EQ(parse(minimal()).deployment.scheduler.kv_cache_free_gpu_mem_fraction, 0.0);  // vLLM's rule
  const std::string both =
      error_of(minimal("  scheduler: {gpu_memory_utilization: 0.9, kv_cache_free_gpu_mem_fraction: 0.85}\n"));
  EXPECT_NE(both.find("t.yaml:7:"), std::string::npos) << both;
  EXPECT_NE(both.find("deployment.scheduler.kv_cache_free_gpu_mem_fraction"), std::string::npos) << both;
  EXPECT_NE(both.find("not both"), std::string::npos) << both;
  EXPECT_NE(
      error_of(minimal("  scheduler: {kv_cache_free_gpu_mem_fraction: 1.5}\n")).find("kv_cache_free_gpu_mem_fraction"),
      std::string::npos);
  // 0 states vLLM's rule explicitly and may sit beside gpu_memory_utilization.
  EXPECT_EQ(error_of(minimal("  scheduler: {gpu_memory_utilization: 0.8, kv_cache_free_gpu_mem_fraction: 0}\n")), "");
}

TEST(ScenarioConfig, BareNumberWhereAUnitIsNeededIsAnError) {
  const std::string e = error_of(minimal("", "", "horizon: 600\n"));
  EXPECT_NE(e.find("horizon"), std::string::npos) << e;
  EXPECT_NE(e.find("unit"), std::string::npos) << e;
  EXPECT_EQ(error_of(minimal("", "", "horizon: 10min\n")), "");
  const std::string v41 =
      "name: t\nmodel: deepseek-v4.1-flash\nnode: hgx-b300\ndeployment:\n  replicas: 1\n  tp: 2\n"
      "  engram: {tier: ssd, dram_cache: 64}\nworkload:\n  kind: closed_loop\n  concurrency: 1\n"
      "  input: {distribution: fixed, tokens: 8}\n  output: {distribution: fixed, tokens: 8}\n";
  EXPECT_NE(error_of(v41).find("deployment.engram.dram_cache"), std::string::npos) << error_of(v41);
}

TEST(ScenarioConfig, UnknownNamesListWhatExists) {
  const std::string policy = error_of(minimal("  scheduler: {policy: fifo}\n"));
  EXPECT_NE(policy.find("deployment.scheduler.policy"), std::string::npos) << policy;
  EXPECT_NE(policy.find("vllm"), std::string::npos) << policy;
  const std::string router = error_of(minimal("  router: random\n"));
  EXPECT_NE(router.find("deployment.router"), std::string::npos) << router;
  EXPECT_NE(router.find("least_outstanding"), std::string::npos) << router;
  std::string text = minimal();
  text.replace(text.find("llama-3.1-8b"), 12, "llama-9");
  const std::string card = error_of(text);
  EXPECT_NE(card.find("t.yaml:2:8: model"), std::string::npos) << card;
  EXPECT_NE(card.find("llama-3.1-70b"), std::string::npos) << card;
  const std::string engine = error_of(minimal("  engine: tgi\n"));
  EXPECT_NE(engine.find("t.yaml:7:11: deployment.engine"), std::string::npos) << engine;
  EXPECT_NE(engine.find("known: nano-vllm, sglang, sglang-deepep, sglang-rocm, trtllm, vllm"), std::string::npos)
      << engine;
}

// An engine is a preset file: a catalog name, or a user's own file beside the scenario.
TEST(ScenarioConfig, EnginePresetByNameOrFile) {
  EXPECT_EQ(parse(minimal("  engine: sglang\n")).deployment.host.per_step, Time::us(200));
  testing::ScratchDir dir;
  testing::write_file(dir.file("my-engine.yaml"), "name: my-engine\nper_step: 40us\nper_sequence: 100ns\n");
  const std::string scenario = dir.file("s.yaml");
  testing::write_file(scenario, minimal("  engine: my-engine.yaml\n"));
  const ScenarioParams p = parse_scenario(ConfigNode::load_file(scenario));
  EXPECT_EQ(p.deployment.engine, "my-engine");
  EXPECT_EQ(p.deployment.host.per_step, Time::us(40));
  EXPECT_EQ(p.deployment.host.per_sequence, Time::ns(100));
  // A bad value in the preset is located in the preset.
  testing::write_file(dir.file("bad-engine.yaml"), "name: bad\nper_step: 40\nper_sequence: 100ns\n");
  testing::write_file(scenario, minimal("  engine: bad-engine.yaml\n"));
  try {
    scenario::parse_scenario(ConfigNode::load_file(scenario));
    ADD_FAILURE() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bad-engine.yaml:2:11: per_step"), std::string::npos) << e.what();
  }
}

TEST(ScenarioConfig, MissingTraceFileIsAnErrorAtItsKey) {
  const std::string e = error_of(minimal("", "  kind: trace\n  trace: {path: traces/no-such-trace.csv}\n"));
  EXPECT_NE(e.find("workload.trace.path"), std::string::npos) << e;
  EXPECT_NE(e.find("no such file"), std::string::npos) << e;
  // A folder is named as one.
  const std::string f = error_of(minimal("", "  kind: trace\n  trace: {path: scenarios/traces}\n"));
  EXPECT_NE(f.find("is a folder, not a file"), std::string::npos) << f;
  // The shipped trace resolves under the data root.
  const ScenarioParams p =
      parse(minimal("", "  kind: trace\n  trace: {path: scenarios/traces/AzureLLMInferenceTrace_conv.csv}\n"));
  EXPECT_EQ(p.workload.kind, WorkloadKind::trace);
  EXPECT_NE(p.workload.trace_path.find("AzureLLMInferenceTrace_conv.csv"), std::string::npos);
}

TEST(ScenarioConfig, DeploymentShapeIsChecked) {
  EXPECT_NE(error_of("name: t\nmodel: llama-3.1-8b\nnode: hgx-h100\ndeployment:\n  nodes: 1\n  replicas: 2\n"
                     "workload:\n  kind: closed_loop\n  concurrency: 1\n  input: {distribution: fixed, tokens: 8}\n"
                     "  output: {distribution: fixed, tokens: 8}\n")
                .find("exactly one of nodes"),
            std::string::npos);
  EXPECT_NE(error_of(minimal("  ep: 3\n")).find("deployment.ep"), std::string::npos);
  EXPECT_NE(error_of(minimal("  engram: {tier: dram}\n")).find("no Engram module"), std::string::npos);
  EXPECT_NE(error_of(minimal("  spec_decode: {enabled: true}\n")).find("no drafter"), std::string::npos);
  EXPECT_NE(error_of(minimal("  attention: sideways\n")).find("deployment.attention"), std::string::npos);
}

TEST(ScenarioConfig, ExpertPlacementIsCheckedWhereItIsWritten) {
  const std::string head = "name: t\nmodel: deepseek-v3\nnode: hgx-h200\ndeployment:\n  replicas: 1\n  tp: 8\n";
  const std::string w =
      "workload:\n  kind: closed_loop\n  concurrency: 1\n  input: {distribution: fixed, tokens: 8}\n"
      "  output: {distribution: fixed, tokens: 8}\n";
  // 256 experts + 32 replicas over ep 8 (automatic under data-parallel attention): 36 per rank.
  const ScenarioParams ok = parse(head + "  expert_placement: eplb\n  redundant_experts: 32\n" + w);
  EXPECT_EQ(ok.deployment.expert_balance.placement, ExpertPlacement::eplb);
  EXPECT_EQ(ok.deployment.expert_balance.redundant_experts, 32);
  EXPECT_EQ(error_of(head + "  expert_placement: balanced\n" + w),
            "t.yaml:7:21: deployment.expert_placement: expected one of ideal, static, eplb, got \"balanced\"");
  EXPECT_NE(error_of(head + "  redundant_experts: 8\n" + w)
                .find("t.yaml:7:22: deployment.redundant_experts: "
                      "redundant expert replicas need expert_placement: eplb"),
            std::string::npos);
  // Slots that do not divide over the EP ranks: named at redundant_experts with line and column,
  // for an explicit ep and for the automatic one.
  EXPECT_EQ(error_of(head + "  ep: 8\n  expert_placement: eplb\n  redundant_experts: 31\n" + w),
            "t.yaml:9:22: deployment.redundant_experts: eplb needs the 256 experts + 31 redundant replicas to divide "
            "evenly over ep 8");
  EXPECT_NE(error_of(head + "  expert_placement: eplb\n  redundant_experts: 31\n" + w).find("over ep 8 (automatic)"),
            std::string::npos);
  EXPECT_NE(error_of(minimal("  expert_placement: eplb\n")).find("llama-3.1-8b has none"), std::string::npos);
}

TEST(ScenarioConfig, SpecDecodeDefaultsComeFromTheCard) {
  const std::string head = "name: t\nmodel: deepseek-v4.1-flash\nnode: hgx-b300\ndeployment:\n  replicas: 1\n  tp: 2\n";
  const std::string w =
      "workload:\n  kind: closed_loop\n  concurrency: 1\n  input: {distribution: fixed, tokens: 8}\n"
      "  output: {distribution: fixed, tokens: 8}\n";
  const ScenarioParams p = parse(head + w);
  EXPECT_TRUE(p.deployment.spec_decode.enabled);
  EXPECT_EQ(p.deployment.spec_decode.draft_tokens, p.card.spec_decode.draft_tokens);
  EXPECT_DOUBLE_EQ(p.deployment.spec_decode.acceptance_length, p.card.spec_decode.acceptance_length);
  ASSERT_TRUE(p.deployment.engram.tier.has_value());
  EXPECT_EQ(*p.deployment.engram.tier, EngramTier::dram);  // the default for a card with Engram
  // Fewer drafts than the card's acceptance length allows: the error says which key to add.
  const std::string e = error_of(head + "  spec_decode: {draft_tokens: 2}\n" + w);
  EXPECT_NE(e.find("deployment.spec_decode.draft_tokens"), std::string::npos) << e;
  EXPECT_NE(e.find("acceptance_length"), std::string::npos) << e;
  const ScenarioParams q = parse(head + "  spec_decode: {draft_tokens: 2, acceptance_length: 2.5}\n" + w);
  EXPECT_EQ(q.deployment.spec_decode.draft_tokens, 2);
  EXPECT_DOUBLE_EQ(q.deployment.spec_decode.acceptance_length, 2.5);
  EXPECT_NE(error_of(head + "  spec_decode: {draft_tokens: 2, acceptance_length: 3.01}\n" + w)
                .find("deployment.spec_decode.acceptance_length"),
            std::string::npos);
  const ScenarioParams off = parse(head + "  spec_decode: {enabled: false}\n" + w);
  EXPECT_FALSE(off.deployment.spec_decode.enabled);
  EXPECT_EQ(off.deployment.spec_decode.draft_tokens, 0);
}

TEST(ScenarioConfig, SloKeys) {
  const ScenarioParams p =
      parse(minimal("", "", "slo: {ttft_p99: 2s, tpot_p50: 20ms, e2el: 1min, min_interactivity: 30}\n"));
  ASSERT_EQ(p.slo.targets.size(), 2u);
  EXPECT_EQ(p.slo.targets[0].metric, SloMetric::ttft);
  EXPECT_EQ(p.slo.targets[0].stat, SloStat::p99);
  EXPECT_EQ(p.slo.targets[0].limit, Time::from_seconds(2));
  ASSERT_TRUE(p.slo.per_request.ttft.has_value());  // the p99 target stands in for the bound
  EXPECT_EQ(*p.slo.per_request.ttft, Time::from_seconds(2));
  EXPECT_FALSE(p.slo.per_request.tpot.has_value());  // only p99 targets stand in
  EXPECT_EQ(*p.slo.per_request.e2el, Time::from_seconds(60));
  EXPECT_DOUBLE_EQ(p.slo.min_interactivity, 30.0);
  EXPECT_NE(error_of(minimal("", "", "slo: {ttft_p95: 1s}\n")).find("p95"), std::string::npos);
  EXPECT_NE(error_of(minimal("", "", "slo: {latency: 1s}\n")).find("slo.latency"), std::string::npos);
  EXPECT_NE(error_of(minimal("", "", "slo: {itl: 1s}\n")).find("slo.itl"), std::string::npos);
  EXPECT_NE(error_of(minimal("", "", "slo: {ttft_p99: 2}\n")).find("slo.ttft_p99"), std::string::npos);

  Summary s;
  s.ttft.p99 = 1999.0;
  EXPECT_TRUE(scenario::slo_target_met(p.slo.targets[0], s));
  s.ttft.p99 = 2001.0;
  EXPECT_FALSE(scenario::slo_target_met(p.slo.targets[0], s));
  s.ttft.p99 = NAN;
  EXPECT_FALSE(scenario::slo_target_met(p.slo.targets[0], s));
}

TEST(ScenarioWorkloadConfig, ClosedLoopDefaultsToTenRequestsPerClient) {
  const ScenarioParams p = parse(minimal("",
                                         "  kind: closed_loop\n  concurrency: 6\n"
                                         "  input: {distribution: fixed, tokens: 9}\n"
                                         "  output: {distribution: fixed, tokens: 3}\n"));
  EXPECT_EQ(p.workload.num_requests, 60u);
  EXPECT_EQ(p.workload.spec.max_requests, 60u);
  auto src = p.workload.spec.source(1);
  Request r;
  int n = 0;
  while (src->next(r)) {
    EXPECT_EQ(r.prompt_tokens, 9);
    EXPECT_EQ(r.output_tokens, 3);
    ++n;
  }
  EXPECT_EQ(n, 60);
}

TEST(ScenarioWorkloadConfig, UniformRatioCoversItsRangeAndNothingElse) {
  const ScenarioParams p = parse(minimal("",
                                         "  kind: closed_loop\n  concurrency: 1\n  num_requests: 4000\n"
                                         "  input: {distribution: uniform_ratio, tokens: 100, ratio: 0.8}\n"
                                         "  output: {distribution: uniform, min: 5, max: 7}\n"));
  auto src = p.workload.spec.source(42);
  Request r;
  std::map<int, int> in, out;
  while (src->next(r)) {
    ++in[r.prompt_tokens];
    ++out[r.output_tokens];
  }
  EXPECT_EQ(in.begin()->first, 80);
  EXPECT_EQ(in.rbegin()->first, 100);
  EXPECT_EQ(in.size(), 21u);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(out.begin()->first, 5);
  EXPECT_EQ(out.rbegin()->first, 7);
  EXPECT_NE(error_of(minimal("",
                             "  kind: closed_loop\n  concurrency: 1\n  input: {distribution: uniform, min: 9, max: 8}\n"
                             "  output: {distribution: fixed, tokens: 3}\n"))
                .find("workload.input.max"),
            std::string::npos);
}

TEST(ScenarioWorkloadConfig, KindsNeedTheirKeys) {
  EXPECT_NE(error_of(minimal("",
                             "  kind: closed_loop\n  input: {distribution: fixed, tokens: 9}\n"
                             "  output: {distribution: fixed, tokens: 3}\n"))
                .find("workload.concurrency"),
            std::string::npos);
  EXPECT_NE(error_of(minimal("",
                             "  kind: open_loop\n  arrival: {process: poisson, rate_per_s: 2}\n"
                             "  input: {distribution: fixed, tokens: 9}\n  output: {distribution: fixed, tokens: 3}\n"))
                .find("num_requests and/or duration"),
            std::string::npos);
  EXPECT_NE(error_of(minimal("",
                             "  kind: open_loop\n  num_requests: 3\n  arrival: {process: gamma, rate_per_s: 2}\n"
                             "  input: {distribution: fixed, tokens: 9}\n  output: {distribution: fixed, tokens: 3}\n"))
                .find("workload.arrival.cv"),
            std::string::npos);
  EXPECT_NE(error_of(minimal("", "  kind: closed_loop\n  concurrency: 1\n  input: {distribution: fixed, tokens: 9}\n"))
                .find("input and output"),
            std::string::npos);
  EXPECT_NE(error_of(minimal("", "  kind: poisson\n")).find("workload.kind"), std::string::npos);
  EXPECT_NE(
      error_of(
          minimal(
              "",
              "  kind: closed_loop\n  concurrency: 1\n  input: {distribution: fixed, tokens: 9}\n"
              "  output: {distribution: fixed, tokens: 3}\n"
              "  lengths: {distribution: empirical, file: traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv}\n"))
          .find("not both"),
      std::string::npos);
}

TEST(ScenarioWorkloadConfig, OpenLoopArrivesAtItsRate) {
  const ScenarioParams p = parse(minimal("",
                                         "  kind: open_loop\n  num_requests: 2000\n"
                                         "  arrival: {process: poisson, rate_per_s: 4}\n"
                                         "  input: {distribution: fixed, tokens: 9}\n"
                                         "  output: {distribution: fixed, tokens: 3}\n"));
  EXPECT_EQ(p.workload.spec.concurrency, 0);
  auto src = p.workload.spec.source(5);
  Request r;
  int n = 0;
  Time last;
  while (src->next(r)) {
    last = r.arrival;
    ++n;
  }
  EXPECT_EQ(n, 2000);
  // 1999 gaps of mean 0.25 s: 500 s within a few standard deviations (sd ~ 11 s).
  EXPECT_NEAR(last.seconds(), 1999 * 0.25, 45.0);
}

TEST(ScenarioWorkloadConfig, EmpiricalLengthsComeFromTheFile) {
  const ScenarioParams p = parse(minimal("",
                                         "  kind: closed_loop\n  concurrency: 2\n  num_requests: 50\n"
                                         "  lengths: {distribution: empirical, file: "
                                         "scenarios/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv}\n"));
  auto src = p.workload.spec.source(3);
  Request r;
  int n = 0;
  while (src->next(r)) {
    EXPECT_GE(r.prompt_tokens, 1);
    EXPECT_LE(r.prompt_tokens + r.output_tokens, 8192 + 1024);
    ++n;
  }
  EXPECT_EQ(n, 50);
}

// A closed loop's warm-up requests are sent on top of the measured ones, from the same stream.
TEST(ScenarioWorkloadConfig, ClosedLoopWarmupIsSentOnTopOfTheMeasuredRequests) {
  const std::string lengths =
      "  input: {distribution: fixed, tokens: 128}\n  output: {distribution: fixed, tokens: 16}\n";
  const ScenarioParams p =
      parse(minimal("", "  kind: closed_loop\n  concurrency: 4\n  num_requests: 20\n  warmup_requests: 4\n" + lengths));
  EXPECT_EQ(p.workload.num_requests, 20u);
  EXPECT_EQ(p.workload.spec.warmup_requests, 4u);
  EXPECT_EQ(p.workload.spec.max_requests, 24u);
  EXPECT_NE(p.workload.description.find("4 warm-up and 20 measured requests"), std::string::npos)
      << p.workload.description;
  auto src = p.workload.spec.source(1);
  Request r;
  int n = 0;
  while (src->next(r)) ++n;
  EXPECT_EQ(n, 24);
  // Without the key: no warm-up, as InferenceX and `vllm bench serve` measure.
  EXPECT_EQ(parse(minimal()).workload.spec.warmup_requests, 0u);
  const std::string bad =
      error_of(minimal("", "  kind: closed_loop\n  concurrency: 4\n  warmup_requests: -1\n" + lengths));
  EXPECT_NE(bad.find("t.yaml:10:20: workload.warmup_requests"), std::string::npos) << bad;
  const std::string open = error_of(minimal("",
                                            "  kind: open_loop\n  num_requests: 3\n  warmup_requests: 1\n"
                                            "  arrival: {process: poisson, rate_per_s: 1}\n" +
                                                lengths));
  EXPECT_NE(open.find("workload.warmup_requests"), std::string::npos) << open;  // closed loop only
}

const std::string kAgentxCorpus = "scenarios/traces/agentx-synthetic-seed42.jsonl.gz";

TEST(ScenarioWorkloadConfig, AgentxTakesTheReplayDefaults) {
  const ScenarioParams p = parse(minimal("", "  kind: agentx\n  trace: " + kAgentxCorpus + "\n  concurrency: 3\n"));
  EXPECT_EQ(p.workload.kind, WorkloadKind::agentx);
  EXPECT_STREQ(to_string(p.workload.kind), "agentx");
  ASSERT_TRUE(p.workload.spec.agentic.has_value());
  const AgenticReplayParams& a = p.workload.spec.agentic->replay;
  EXPECT_EQ(a.lanes, 3);
  EXPECT_EQ(a.duration, Time::from_seconds(3600.0));
  EXPECT_EQ(a.warmup_requests, 10);
  EXPECT_EQ(a.grace, Time::from_seconds(1800.0));
  EXPECT_EQ(a.tree_idle_cap, Time::from_seconds(300.0));
  EXPECT_EQ(a.system_idle_cap, Time::from_seconds(10.0));
  EXPECT_DOUBLE_EQ(a.start_ratio_min, 0.25);
  EXPECT_DOUBLE_EQ(a.start_ratio_max, 0.75);
  EXPECT_NE(p.workload.trace_path.find("agentx-synthetic-seed42.jsonl.gz"), std::string::npos);
  AgenticSession first;
  EXPECT_TRUE(p.workload.spec.agentic->sessions(p.seed)->next(first));
  scenario::read_trace_through(p);  // the whole corpus is valid

  // A generated corpus needs a long context: V4.1-Flash's 1M here (parsing builds nothing).
  std::string generated = minimal("",
                                  "  kind: agentx\n  generate: {seed: 7, sessions: 2}\n  concurrency: 1\n"
                                  "  duration: 10min\n  warmup_requests: 0\n  grace: 0s\n"
                                  "  start_ratio: {min: 0.5, max: 0.5}\n");
  generated.replace(generated.find("llama-3.1-8b"), 12, "deepseek-v4.1-flash");
  const ScenarioParams g = parse(generated);
  EXPECT_TRUE(g.workload.trace_path.empty());
  EXPECT_EQ(g.workload.spec.agentic->replay.duration, Time::from_seconds(600.0));
  EXPECT_EQ(g.workload.spec.agentic->replay.warmup_requests, 0);
  EXPECT_DOUBLE_EQ(g.workload.spec.agentic->replay.start_ratio_min, 0.5);
  EXPECT_NE(g.workload.description.find("2 generated sessions (seed 7)"), std::string::npos) << g.workload.description;
}

// Each bad agentx workload fails at its key: "t.yaml:line:col: field: message" (the workload's
// keys start on line 8, indented by 2).
TEST(ScenarioWorkloadConfig, AgentxBadValuesNameFileLineColumnAndField) {
  const std::string trace = "  kind: agentx\n  trace: " + kAgentxCorpus + "\n";
  struct Row {
    std::string deployment, workload, expected;
  };
  const std::vector<Row> rows = {
      {"", "  kind: agentx\n  concurrency: 4\n", "t.yaml:8:3: workload: an agentx workload needs exactly one of trace"},
      {"", trace + "  generate: {seed: 1}\n  concurrency: 4\n",
       "t.yaml:8:3: workload: an agentx workload needs exactly one"},
      {"", "  kind: agentx\n  trace: traces/no-such-corpus.jsonl\n  concurrency: 4\n", "t.yaml:9:10: workload.trace: "},
      {"", trace, "t.yaml:8:3: workload.concurrency"},
      {"", trace + "  concurrency: 0\n", "t.yaml:10:16: workload.concurrency"},
      {"", trace + "  concurrency: 5000\n", "t.yaml:10:16: workload.concurrency"},
      {"", trace + "  concurrency: 4\n  duration: 600\n", "t.yaml:11:13: workload.duration"},
      {"", trace + "  concurrency: 4\n  duration: 0s\n",
       "t.yaml:11:13: workload.duration: must be a time in [1ns, 604800s]"},
      {"", trace + "  concurrency: 4\n  duration: 800000s\n",
       "t.yaml:11:13: workload.duration: must be a time in [1ns, 604800s]"},
      {"", trace + "  concurrency: 4\n  grace: -1s\n", "t.yaml:11:10: workload.grace: expected a time"},
      {"", trace + "  concurrency: 4\n  warmup_requests: -1\n", "t.yaml:11:20: workload.warmup_requests"},
      {"", trace + "  concurrency: 4\n  tree_idle_cap: 5\n", "t.yaml:11:18: workload.tree_idle_cap"},
      {"", trace + "  concurrency: 4\n  system_idle_cap: -2s\n",
       "t.yaml:11:20: workload.system_idle_cap: expected a time"},
      {"", trace + "  concurrency: 4\n  start_ratio: {min: 0.8, max: 0.5}\n",
       "t.yaml:11:32: workload.start_ratio.max: must be >= min"},
      {"", trace + "  concurrency: 4\n  start_ratio: {min: 1.5}\n",
       "t.yaml:11:22: workload.start_ratio.min: value 1.5 out of range [0, 1]"},
      {"", trace + "  concurrency: 4\n  lanes: 4\n", "t.yaml:11:3: workload.lanes"},
      {"", trace + "  concurrency: 4\n  num_requests: 4\n", "t.yaml:11:3: workload.num_requests"},
      {"", "  kind: agentx\n  generate: {seed: 1, sesions: 3}\n  concurrency: 4\n",
       "t.yaml:9:23: workload.generate.sesions"},
      {"", "  kind: agentx\n  generate: {sessions: 0}\n  concurrency: 4\n",
       "t.yaml:9:24: workload.generate.sessions: value 0 out of range"},
      {"  max_model_len: 4096\n", "  kind: agentx\n  generate: {sessions: 2}\n  concurrency: 4\n",
       "workload.generate: the deployment's max_model_len 4096 is too small"},
  };
  for (const Row& r : rows) {
    const std::string e = error_of(minimal(r.deployment, r.workload));
    EXPECT_NE(e.find(r.expected), std::string::npos) << "expected '" << r.expected << "' for\n"
                                                     << r.workload << "got: " << e;
  }
  // A file that is no AgentX corpus fails while parsing, naming the file.
  const std::string csv =
      error_of(minimal("", "  kind: agentx\n  trace: scenarios/traces/splitwise_conv.csv\n  concurrency: 4\n"));
  EXPECT_NE(csv.find("splitwise_conv.csv"), std::string::npos) << csv;
}

}  // namespace
}  // namespace engramsim::sim
