// The accuracy ratchet: every supported case of the shipped validation set
// (scenarios/validation/cases.yaml) is reproduced with the default efficiencies and held to its
// metric kind's tolerance; the cases outside it must be the recorded known misses, and no kind's
// MAPE may rise above the value in scenarios/validation/recorded-accuracy.yaml, so a change to the
// step model, the footprint or the simulator can move accuracy only up. The set must also cover
// the breadth the issue asks for.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "models/card_loader.hpp"
#include "planner/sweep_spec.hpp"
#include "study/validation_sweep.hpp"
#include "tests/support/test_paths.hpp"
#include "validation/recorded_accuracy.hpp"
#include "validation/validation_case.hpp"
#include "validation/validation_runner.hpp"

namespace engramsim::validation {
namespace {

EvalOptions options(int jobs) {
  EvalOptions o;
  o.evaluate_sweep = study::make_validation_sweep_evaluator();
  o.jobs = jobs;
  return o;
}

std::string gpu_generation(const std::string& gpu) {
  static const std::map<std::string, std::string> gen = {
      {"a100-80gb", "ampere"}, {"h100-sxm", "hopper"}, {"h200-sxm", "hopper"}, {"h800-sxm", "hopper"},
      {"b200", "blackwell"},   {"b300", "blackwell"},  {"gb200", "blackwell"}, {"gb300", "blackwell"},
      {"mi300x", "cdna3"},     {"mi325x", "cdna3"},    {"mi355x", "cdna4"}};
  const auto it = gen.find(gpu);
  return it == gen.end() ? gpu : it->second;
}

class ShippedSet : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    set_ = new ValidationSet(load_validation_set(default_validation_set_path()));
    // Every case but the sweep cases (each a sweep of one-hour AgentX replays, minutes of CPU):
    // `engramsim validate-set` runs those, and docs/validation.md records their outcome.
    EvalOptions o = options(2);
    for (const ValidationCase& c : set_->cases)
      if (!c.sweep) o.only.push_back(c.id);
    report_ = new ValidationReport(evaluate_set(*set_, o));
  }
  static void TearDownTestSuite() {
    delete report_;
    delete set_;
  }
  static ValidationSet* set_;
  static ValidationReport* report_;
};
ValidationSet* ShippedSet::set_ = nullptr;
ValidationReport* ShippedSet::report_ = nullptr;

// The ratchet: every case within its kind's tolerance or a recorded known miss, no MAPE above the
// value recorded in scenarios/validation/recorded-accuracy.yaml, and the known-miss list no longer
// than recorded. The MAPE targets themselves are `validate-set`'s exit code, not this test's:
// while a target is missed the test still holds the line already reached.
TEST_F(ShippedSet, AccuracyOnlyRatchetsUp) {
  const RecordedAccuracy recorded = load_recorded_accuracy(default_recorded_accuracy_path());
  const RatchetResult ratchet = check_ratchet(*report_, recorded);
  for (const std::string& p : ratchet.problems) ADD_FAILURE() << p;
  for (const std::string& n : ratchet.notes) std::printf("[ NOTE     ] %s\n", n.c_str());
  for (const CaseResult& r : report_->results)
    if (r.status == CaseStatus::fail)
      std::printf("[ MISS     ] %s: %+.1f %% against %s\n", r.id.c_str(), 100.0 * r.rel_error,
                  r.tolerance->describe().c_str());
  for (const KindSummary& k : report_->kinds) {
    std::printf("[ MAPE     ] %-24s %2d cases  %6.1f %%  mean |error| %.3g  known misses %d\n", to_string(k.kind),
                k.cases, 100.0 * k.mape, k.mean_abs_error, k.known_misses);
    RecordProperty(std::string("mape_") + to_string(k.kind), std::to_string(k.mape));
  }
}

// Every known miss names its cause, and no case of the shipped set widens its kind's tolerance
// (the loader refuses that; this pins the set's own use).
TEST_F(ShippedSet, KnownMissesSayWhy) {
  for (const ValidationCase& c : set_->cases) {
    if (!c.supported()) continue;
    ASSERT_TRUE(c.tolerance.has_value()) << c.id;
    EXPECT_LE(c.tolerance->value, kind_tolerance(c.kind).value) << c.id;
    if (!c.known_miss.empty()) {
      EXPECT_GE(c.known_miss.size(), 40u) << c.id << ": a cause, not a label";
    }
  }
}

TEST_F(ShippedSet, EveryUnsupportedCaseSaysWhy) {
  int unsupported = 0;
  for (const ValidationCase& c : set_->cases) {
    if (c.supported()) continue;
    ++unsupported;
    EXPECT_GE(c.unsupported.size(), 40u) << c.id << ": a reason, not a label";
  }
  EXPECT_LT(unsupported, static_cast<int>(set_->cases.size()) / 2);
}

TEST_F(ShippedSet, CoversTheBreadthTheIssueAsks) {
  std::set<std::string> sources, generations, families;
  bool step = false, serving = false;
  int evaluated = 0;
  for (const CaseResult& r : report_->results) {
    if (r.status == CaseStatus::unsupported || r.status == CaseStatus::error) continue;
    ++evaluated;
    sources.insert(r.source);
    generations.insert(gpu_generation(r.gpu));
    const ValidationCase* c = set_->find(r.id);
    const std::string model = c->step ? c->step->model : r.model;
    families.insert(load_model_card(model).family);
    (r.level == CaseLevel::step ? step : serving) = true;
  }
  EXPECT_GE(evaluated, 10);
  EXPECT_GE(sources.size(), 4u);
  EXPECT_GE(generations.size(), 3u);
  EXPECT_GE(families.size(), 3u);
  EXPECT_TRUE(step);
  EXPECT_TRUE(serving);
}

TEST(ValidationRunner, ResultsDoNotDependOnThreads) {
  const ValidationSet set = load_validation_set(default_validation_set_path());
  EvalOptions one = options(1);
  EvalOptions two = options(2);
  one.only = two.only = {"trtllm-llama33-70b-h200-tp2-fp8-1k1k", "engram-paper-dense4b-h800-offload-penalty",
                         "vidur-h100-llama2-70b-tp1-4096tok-layer-linear"};
  const ValidationReport a = evaluate_set(set, one);
  const ValidationReport b = evaluate_set(set, two);
  ASSERT_EQ(a.results.size(), 3u);
  ASSERT_EQ(b.results.size(), 3u);
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    EXPECT_EQ(a.results[i].id, b.results[i].id);
    EXPECT_EQ(a.results[i].predicted, b.results[i].predicted) << a.results[i].id;
  }
}

// A GPU-only profile: GEMMs at half the H100's BF16 peak at every M.
CalibrationProfile half_speed_gemm_profile(const std::string& gpu) {
  CalibrationProfile p;
  p.name = "half";
  p.provenance.host = "h";
  p.provenance.gpu = gpu;
  p.provenance.gpu_count = 1;
  GemmSection g;
  g.library = "test";
  for (const std::int64_t m : {16, 128, 1024, 4096, 16384}) {
    GemmPoint pt;
    pt.precision = Precision::bf16;
    pt.m = m;
    pt.n = 8192;
    pt.k = 8192;
    pt.achieved = FlopRate::tflops(989.0 * 0.5);
    pt.time = Time::from_seconds(2.0 * m * 8192.0 * 8192.0 / pt.achieved.value());
    g.points.push_back(pt);
  }
  p.gemm = g;
  return p;
}

TEST(ValidationRunner, ACalibrationProfileAppliesToTheCasesOnItsGpuOnly) {
  const ValidationSet set = load_validation_set(default_validation_set_path());
  const std::vector<std::string> ids = {"vidur-h100-llama2-70b-tp1-4096tok-layer-linear",
                                        "vidur-a100-llama3-8b-tp1-3072tok-layer-linear",
                                        "trtllm-llama31-8b-h100-tp1-fp8-1k1k"};
  EvalOptions plain = options(2);
  plain.only = ids;
  EvalOptions cal = plain;
  cal.calibrations.push_back({"h100.yaml", half_speed_gemm_profile("NVIDIA H100 80GB HBM3")});
  const ValidationReport a = evaluate_set(set, plain);
  const ValidationReport b = evaluate_set(set, cal);
  const auto by_id = [](const ValidationReport& r, const std::string& id) -> const CaseResult& {
    for (const CaseResult& c : r.results)
      if (c.id == id) return c;
    throw std::runtime_error("no result " + id);
  };
  ASSERT_EQ(a.results.size(), 3u);
  ASSERT_EQ(b.results.size(), 3u);
  // H100 step case: calibrated, and half-speed GEMMs make its linear layers slower.
  EXPECT_EQ(by_id(a, ids[0]).calibration, "");
  EXPECT_EQ(by_id(b, ids[0]).calibration, "h100.yaml");
  EXPECT_GT(by_id(b, ids[0]).predicted, by_id(a, ids[0]).predicted * 1.2);
  // A100 case: another GPU, default efficiencies, same prediction.
  EXPECT_EQ(by_id(b, ids[1]).calibration, "");
  EXPECT_EQ(by_id(b, ids[1]).predicted, by_id(a, ids[1]).predicted);
  // H100 serving case: the profile reaches the simulator's step model too (slower GEMMs, lower
  // throughput).
  EXPECT_EQ(by_id(b, ids[2]).calibration, "h100.yaml");
  EXPECT_LT(by_id(b, ids[2]).predicted, by_id(a, ids[2]).predicted);
  // A profile of another GPU applies nowhere.
  EvalOptions other = plain;
  other.calibrations.push_back({"b200.yaml", half_speed_gemm_profile("NVIDIA B200")});
  const ValidationReport c = evaluate_set(set, other);
  for (std::size_t i = 0; i < c.results.size(); ++i) {
    EXPECT_EQ(c.results[i].calibration, "") << c.results[i].id;
    EXPECT_EQ(c.results[i].predicted, a.results[i].predicted) << c.results[i].id;
  }
}

}  // namespace
}  // namespace engramsim::validation

namespace engramsim::validation {
namespace {

// A reduced run of a sweep case (the shipped ones take minutes: engramsim validate-set runs them):
// the article's B200 sweep at two concurrencies and a 120 s window, read as the planner reads it
// (8 and 128: far enough apart that the two tiers' interactivity ranges overlap once the front
// end's tokenisation caps both near 200 tok/s/user).
TEST(ArticleSweep, SmokeRunReadsTheFrontiers) {
  const std::string text =
      "schema_version: 1\ncases:\n  - id: smoke\n    level: serving\n    metric: frontier_ratio_max\n"
      "    published: {value: 0.9, range: [0.5, 1.05]}\n"
      "    source: {name: semianalysis-engram-article, url: \"u\", where: \"w\"}\n"
      "    config: {model: deepseek-v4.1-flash, gpu: b200}\n    representable: partial\n"
      "    reproduce:\n      sweep:\n        scenario: ../article-b200-agentx-dram-vs-ssd.yaml\n"
      "        set: {sweep.axes.1: {key: workload.concurrency, values: [8, 128]}, workload.duration: 120s}\n"
      "        config: \"tier=ssd fetch=staged\"\n        baseline: \"tier=dram fetch=zero_copy\"\n";
  const ValidationSet set =
      validation_set_from_yaml(text, "smoke.yaml", engramsim::test::source_root() + "/scenarios/validation");
  const ValidationReport r = evaluate_set(set, options(2));
  ASSERT_EQ(r.results.size(), 1u);
  const CaseResult& c = r.results[0];
  ASSERT_NE(c.status, CaseStatus::error) << c.message;
  EXPECT_TRUE(std::isfinite(c.predicted));
  // The SSD path adds host work to every step: its frontier is not above DRAM's.
  EXPECT_LE(c.predicted, 1.0 + 1e-9) << c.detail;
  EXPECT_GT(c.predicted, 0.5) << c.detail;
  EXPECT_EQ(c.engine, "vllm");
  EXPECT_NE(c.detail.find("4-point sweep"), std::string::npos) << c.detail;
  // A configuration the sweep does not have is bad input naming what it has.
  const std::string bad = text.substr(0, text.find("        config:")) +
                          "        config: \"tier=hbm\"\n        baseline: \"tier=dram fetch=zero_copy\"\n";
  try {
    evaluate_set(validation_set_from_yaml(bad, "smoke.yaml", engramsim::test::source_root() + "/scenarios/validation"),
                 options(2));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("it has 'tier=dram fetch=zero_copy', 'tier=ssd fetch=staged'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace engramsim::validation

namespace engramsim::validation {
namespace {

// A disaggregated scenario runs whole; `pool:` names the GPUs a throughput is counted over and
// `span: loaded` reads the steady rate between the first measured arrival and the last arrival.
TEST(WholeDeployment, PoolAndSpanChooseWhatIsRead) {
  const auto one = [](const std::string& id, const std::string& metric, const std::string& reading) {
    return "  - id: " + id + "\n    level: serving\n    metric: " + metric +
           "\n    published: {value: 1000, unit: \"tok/s\", basis: published}\n"
           "    source: {name: aiconfigurator-silicon-refs, url: \"u\", where: \"w\"}\n"
           "    config: {model: deepseek-v3, gpu: b200}\n    representable: partial\n"
           "    reproduce:\n      serving:\n        scenario: aic-dsr1-disagg-sglang.yaml\n"
           "        variant: b200-fp8-c4\n        set: {workload.input.tokens: 256, workload.output.tokens: 64}\n" +
           reading;
  };
  const std::string text = "schema_version: 1\ncases:\n" + one("all", "output_tput_per_gpu", "") +
                           one("decode", "output_tput_per_gpu", "        pool: decode\n") +
                           one("decode-node", "output_tput_per_node", "        pool: decode\n") +
                           one("prefill-node", "input_tput_per_node", "        pool: prefill\n") +
                           one("decode-loaded", "output_tput_per_gpu", "        pool: decode\n        span: loaded\n");
  const ValidationSet set =
      validation_set_from_yaml(text, "whole.yaml", engramsim::test::source_root() + "/scenarios/validation");
  const ValidationReport r = evaluate_set(set, options(2));
  ASSERT_EQ(r.results.size(), 5u);
  for (const CaseResult& c : r.results) ASSERT_NE(c.status, CaseStatus::error) << c.id << ": " << c.message;
  const auto value = [&](const std::string& id) {
    for (const CaseResult& c : r.results)
      if (c.id == id) return c.predicted;
    throw std::runtime_error("no result " + id);
  };
  // 16 GPUs, 8 in each pool: the decode pool's output rate per GPU is twice the deployment's; the
  // prefill pool is one 8-GPU node, so its input rate per node is the run's whole input rate, 256 /
  // 64 times its output rate (16 x "all").
  EXPECT_NEAR(value("decode"), 2.0 * value("all"), 1e-9 * value("all"));
  EXPECT_NEAR(value("decode-node"), 8.0 * value("decode"), 1e-9 * value("decode-node"));
  EXPECT_NEAR(value("prefill-node"), 16.0 * value("all") * 256.0 / 64.0, 1e-9 * value("prefill-node"));
  // The steady rate leaves out the drain after the last arrival: above the measured span's.
  EXPECT_GT(value("decode-loaded"), value("decode"));
  EXPECT_LT(value("decode-loaded"), 1.5 * value("decode"));
  // A prefill pool's figure is grouped with prefill batches.
  for (const CaseResult& c : r.results)
    if (c.id == "prefill-node") EXPECT_EQ(c.batch, "prefill");
}

}  // namespace
}  // namespace engramsim::validation
