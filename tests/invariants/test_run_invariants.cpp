// Property test: random valid scenarios (scenario_generator.hpp) run under an InvariantProbe and
// every invariant of docs/invariants.md holds for every run; every tenth case also runs a second
// time without the probe and must write byte-identical output files.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>

#include "../scenario/scenario_test_util.hpp"
#include "run_checker.hpp"
#include "scenario/build/scenario_build.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario_generator.hpp"

namespace engramsim::testing {
namespace {

constexpr std::uint64_t kBaseSeed = 0x1a7e0000;

struct Coverage {
  int cases = 0, ran = 0, infeasible = 0, preempted = 0, recomputed = 0, rejected = 0, unfinished = 0, prefix_hits = 0,
      compared = 0;
  int tight = 0, tight_ran = 0, tight_preempted = 0;  // the cases tight on KV (GeneratedCase::tight)
  int disaggregated_ran = 0, remote_prefills = 0;     // disaggregated runs, those that used the prefill pool
};

std::string describe(const GeneratedCase& c, const std::vector<std::string>& violations) {
  std::string s = "case seed " + std::to_string(c.seed) + ", KV cap " + std::to_string(c.kv_block_cap) +
                  (c.tight ? " (tight)" : "") + (c.disaggregated ? " (disaggregated)" : "") + "\n" + c.yaml;
  for (const auto& v : violations) s += "  violated: " + v + "\n";
  return s;
}

void expect_same_outputs(const std::string& a, const std::string& b, const GeneratedCase& c) {
  for (const char* f : {"summary.json", "requests.csv", "timeseries.csv"})
    EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f << " differs between two runs of\n"
                                                              << describe(c, {});
}

void run_case(std::uint64_t seed, bool compare, Coverage& cov) {
  ScratchDir dir;
  const GeneratedCase c = generate_case(seed, dir.path());
  cov.tight += c.tight ? 1 : 0;
  std::optional<scenario::BuiltScenario> built;
  try {
    built.emplace(scenario::build_scenario(scenario::parse_scenario(ConfigNode::load_string(c.yaml, c.scenario_path))));
  } catch (const scenario::InfeasibleScenario&) {
    ++cov.infeasible;
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the generator wrote an invalid scenario: " << e.what() << "\n" << describe(c, {});
    return;
  }
  sim::RunConfig cfg = built->run;
  if (c.kv_block_cap > 0)
    for (auto& r : cfg.replicas) r.kv.num_blocks = std::min(r.kv.num_blocks, c.kv_block_cap);
  InvariantProbe probe(cfg, roofline_bound(*built));
  cfg.probe = &probe;
  if (compare) cfg.output_dir = dir.file("with-probe");
  std::optional<sim::RunResult> result;
  try {
    result.emplace(sim::run_simulation(cfg));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the run threw: " << e.what() << "\n" << describe(c, probe.violations());
    return;
  }
  probe.check_result(*result, c.generated_requests, c.num_requests, c.has_horizon);
  EXPECT_TRUE(probe.violations().empty()) << describe(c, probe.violations());
  ++cov.ran;
  cov.preempted += probe.preemptions() > 0 ? 1 : 0;
  cov.recomputed += probe.recomputed_tokens() > 0 ? 1 : 0;
  cov.tight_ran += c.tight ? 1 : 0;
  cov.tight_preempted += c.tight && probe.preemptions() > 0 ? 1 : 0;
  cov.disaggregated_ran += c.disaggregated ? 1 : 0;
  cov.remote_prefills += result->disaggregation && result->disaggregation->remote_prefills > 0 ? 1 : 0;
  cov.rejected += result->summary.rejected > 0 ? 1 : 0;
  cov.unfinished += result->summary.unfinished > 0 ? 1 : 0;
  bool hits = false;
  for (const auto& r : result->requests) hits = hits || r.cached_prompt_tokens > 0;
  cov.prefix_hits += hits ? 1 : 0;
  if (!compare) return;
  sim::RunConfig again = built->run;
  if (c.kv_block_cap > 0)
    for (auto& r : again.replicas) r.kv.num_blocks = std::min(r.kv.num_blocks, c.kv_block_cap);
  again.output_dir = dir.file("without-probe");
  sim::run_simulation(again);
  expect_same_outputs(cfg.output_dir, again.output_dir, c);
  ++cov.compared;
}

TEST(RunInvariants, RandomValidScenariosKeepEveryInvariant) {
  Coverage cov;
  cov.cases = property_cases(300);
  for (int i = 0; i < cov.cases; ++i) run_case(kBaseSeed + static_cast<std::uint64_t>(i), i % 10 == 0, cov);
  std::printf(
      "%d cases: %d ran, %d infeasible; runs with preemption %d (%.1f %% of the runs), with recompute %d, "
      "rejections %d, unfinished %d, prefix hits %d; %d compared for identical files; tight on KV: %d cases, "
      "%d ran, %d preempted; disaggregated: %d ran, %d through the prefill pool\n",
      cov.cases, cov.ran, cov.infeasible, cov.preempted, cov.ran > 0 ? 100.0 * cov.preempted / cov.ran : 0.0,
      cov.recomputed, cov.rejected, cov.unfinished, cov.prefix_hits, cov.compared, cov.tight, cov.tight_ran,
      cov.tight_preempted, cov.disaggregated_ran, cov.remote_prefills);
  // The generator must keep producing runnable cases that reach the interesting paths.
  EXPECT_GE(cov.ran * 2, cov.cases);
  if (cov.cases >= 100) {
    // The tight cases exist to reach preemption and recompute: a fifth of the runs at least.
    EXPECT_GE(cov.preempted * 5, cov.ran);
    EXPECT_GT(cov.recomputed, 0);
    EXPECT_GT(cov.rejected, 0);
    EXPECT_GT(cov.unfinished, 0);
    EXPECT_GT(cov.prefix_hits, 0);
    EXPECT_GT(cov.remote_prefills, 0);
  }
}

// The checks can fail: a sequence whose ledger does not add up, and events out of time order.
TEST(RunInvariants, TheProbeReportsABrokenLedgerAndTimeGoingBack) {
  sim::RunConfig cfg;
  InvariantProbe probe(cfg, RooflineBound{});
  sim::Sequence s;
  s.request.prompt_tokens = 10;
  s.request.output_tokens = 2;
  s.generated = 2;
  s.computed = 11;
  s.prefill_tokens_total = 10;
  s.decode_tokens_total = 1;
  s.prefill_samples = 1;
  probe.on_sequence_done(0, s);
  EXPECT_TRUE(probe.violations().empty());
  s.decode_tokens_total = 2;  // one more token decoded than emitted
  probe.on_sequence_done(0, s);
  EXPECT_EQ(probe.violations().size(), 2u);
  sim::Event e;
  e.key.time = Time::ns(5);
  probe.on_dispatch(e);
  e.key.time = Time::ns(4);
  probe.on_dispatch(e);
  EXPECT_EQ(probe.violations().size(), 3u);
}

}  // namespace
}  // namespace engramsim::testing
