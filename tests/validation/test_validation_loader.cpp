// The validation-set loader (strict schema, same_as resolution, units of published values), the
// tolerance check on both sides of its limit, the decode-pool step model, the per-kind MAPE, and
// the `engramsim validate-set` exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/test_paths.hpp"
#include "validation/pool_step_model.hpp"
#include "validation/recorded_accuracy.hpp"
#include "validation/validation_case.hpp"
#include "validation/validation_runner.hpp"

namespace engramsim::validation {
namespace {

// One step case around `body` (the lines after `metric`, indented 4).
std::string step_case(const std::string& id, const std::string& extra = "",
                      const std::string& tolerance = "{rel: 0.1, why: \"test\"}") {
  return "  - id: " + id +
         "\n"
         "    level: step\n"
         "    metric: layer_linear_ops_time_s\n"
         "    published: {value: \"2.383ms\", basis: derived, derivation: \"sum\"}\n"
         "    source: {name: vidur-profiling, url: \"u\", where: \"w\"}\n"
         "    config: {model: llama-2-70b, gpu: h100-sxm, tp: 4, anything: [1, 2]}\n"
         "    representable: full\n"
         "    suggested_tolerance: {rel: 0.25}\n"
         "    reproduce:\n"
         "      step: {model: llama-2-70b, node: hgx-h100, tp: 4, prefill: {tokens: 4096}, ops: [attn.q, attn.kv, "
         "attn.o, ffn.dense], layer: 0}\n" +
         extra + "    tolerance: " + tolerance + "\n";
}

ValidationSet parse(const std::string& cases) {
  return validation_set_from_yaml("schema_version: 1\ncases:\n" + cases, "test.yaml",
                                  engramsim::test::source_root() + "/scenarios/validation");
}

void expect_error(const std::string& cases, const std::string& fragment) {
  try {
    parse(cases);
    FAIL() << "expected a ConfigError containing '" << fragment << "'";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_GT(e.where().line, 0) << e.what();
  }
}

TEST(ValidationLoader, ReadsAStepCase) {
  const ValidationSet s = parse(step_case("a"));
  ASSERT_EQ(s.cases.size(), 1u);
  const ValidationCase& c = s.cases[0];
  EXPECT_EQ(c.id, "a");
  EXPECT_EQ(c.level, CaseLevel::step);
  EXPECT_EQ(c.kind, MetricKind::step);
  EXPECT_DOUBLE_EQ(c.published, 2.383e-3);  // "2.383ms" in the metric's unit, seconds
  EXPECT_EQ(c.model, "llama-2-70b");
  EXPECT_EQ(c.gpu, "h100-sxm");
  ASSERT_TRUE(c.step.has_value());
  EXPECT_EQ(c.step->tp, 4);
  EXPECT_EQ(c.step->prefill_chunks, 1);
  EXPECT_EQ(c.step->ops.size(), 4u);
  ASSERT_TRUE(c.tolerance.has_value());
  EXPECT_EQ(c.tolerance->type, ToleranceType::rel);
  EXPECT_TRUE(c.supported());
}

TEST(ValidationLoader, StrictSchema) {
  expect_error(step_case("a", "    typo: 1\n"), "typo");
  expect_error(step_case("a", "", "{rel: 0.1}"), "why");
  expect_error(step_case("a", "", "{rel: 0.1, abs: 2, why: \"x\"}"), "exactly one of rel, abs, abs_pp");
  expect_error(step_case("a", "    unsupported: \"no\"\n"), "exactly one of reproduce and unsupported");
  expect_error(step_case("a") + step_case("a"), "duplicate case id");
  // A time metric needs a unit; a throughput must be a plain number.
  std::string c = step_case("a");
  c.replace(c.find("\"2.383ms\""), 9, "2.383");
  expect_error(c, "needs a unit");
  // Unknown keys inside the reproduction are errors too.
  c = step_case("a");
  c.replace(c.find("layer: 0}"), 9, "layer: 0, tp_size: 4}");
  expect_error(c, "tp_size");
}

// A case's engine is a preset: a catalog name, or a file relative to the cases file.
TEST(ValidationLoader, EnginePresetsResolveBesideTheCasesFile) {
  const auto dir = std::filesystem::path(engramsim::test::binary_dir()) / "tests" / "validation" / "engines";
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "good.yaml") << "name: good\nper_step: 10us\nper_sequence: 1ns\n";
  std::ofstream(dir / "sub" / "bad.yaml") << "name: bad\nper_step: 10\nper_sequence: 1ns\n";
  const auto with_engine = [](const std::string& engine) {
    std::string c = step_case("a");
    c.replace(c.find("layer: 0}"), 9, "layer: 0, engine: " + engine + "}");
    return "schema_version: 1\ncases:\n" + c;
  };
  const ValidationSet ok = validation_set_from_yaml(with_engine("sub/good.yaml"), "cases.yaml", dir.string());
  EXPECT_EQ(ok.cases.at(0).step->engine, (dir / "sub" / "good.yaml").string());
  EXPECT_NO_THROW(validation_set_from_yaml(with_engine("trtllm"), "cases.yaml", dir.string()));
  try {
    validation_set_from_yaml(with_engine("tgi"), "cases.yaml", dir.string());
    ADD_FAILURE() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cases.yaml:12:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("engine: no engine preset 'tgi'"), std::string::npos) << e.what();
  }
  try {
    validation_set_from_yaml(with_engine("sub/bad.yaml"), "cases.yaml", dir.string());
    ADD_FAILURE() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:2:11: per_step"), std::string::npos) << e.what();
  }
}

TEST(ValidationLoader, MetricMustBeComputableAtItsLevel) {
  std::string c = step_case("a");
  c.replace(c.find("layer_linear_ops_time_s"), 23, "mean_tpot_ms");
  c.replace(c.find("\"2.383ms\""), 9, "\"50ms\"");
  expect_error(c, "cannot compute mean_tpot_ms at level step");
}

TEST(ValidationLoader, UnsupportedCaseNeedsAReasonAndNoTolerance) {
  const std::string base =
      "  - id: u\n"
      "    level: serving\n"
      "    metric: pareto_gain_max_ratio\n"
      "    published: {value: 1.6, unit: \"x\"}\n"
      "    source: {name: s, url: \"u\", where: \"w\"}\n"
      "    config: {model: deepseek-v4.1-flash}\n"
      "    representable: partial\n";
  const ValidationSet s = parse(base + "    unsupported: \"the trace is not in the repository\"\n");
  EXPECT_FALSE(s.cases[0].supported());
  EXPECT_EQ(s.cases[0].unsupported, "the trace is not in the repository");
  expect_error(base + "    unsupported: \"\"\n", "say why");
  expect_error(base + "    unsupported: \"x\"\n    tolerance: {rel: 0.1, why: \"x\"}\n", "no tolerance");
  expect_error(base + "    unsupported: \"x\"\n    known_miss: \"a reason long enough to read\"\n", "cannot miss");
}

TEST(ValidationLoader, SameAsCopiesTheReproduction) {
  std::string second = step_case("b");
  second.replace(second.find("      step:"), second.find("    tolerance:") - second.find("      step:"),
                 "      same_as: a\n");
  const ValidationSet s = parse(step_case("a") + second);
  ASSERT_TRUE(s.cases[1].step.has_value());
  EXPECT_EQ(s.cases[1].step->ops, s.cases[0].step->ops);
  EXPECT_EQ(s.cases[1].same_as, "a");
  std::string dangling = step_case("b");
  dangling.replace(dangling.find("      step:"), dangling.find("    tolerance:") - dangling.find("      step:"),
                   "      same_as: nowhere\n");
  expect_error(step_case("a") + dangling, "no case 'nowhere'");
}

TEST(ValidationLoader, PenaltyTakesPercentagePoints) {
  const std::string c =
      "  - id: p\n"
      "    level: serving\n"
      "    metric: throughput_penalty_pct\n"
      "    published: {value: 1.92, unit: \"%\"}\n"
      "    source: {name: engram-paper, url: \"u\", where: \"w\"}\n"
      "    config: {model: engram-offload-dense-4b}\n"
      "    representable: partial\n"
      "    reproduce:\n"
      "      serving: {scenario: ../engram-paper-offload.yaml, variant: dense4b-dram, baseline: dense4b-baseline}\n";
  const ValidationSet s = parse(c + "    tolerance: {abs_pp: 1.5, why: \"x\"}\n");
  EXPECT_EQ(s.cases[0].kind, MetricKind::engram_penalty);
  EXPECT_EQ(s.cases[0].serving->scenario,
            std::filesystem::path(engramsim::test::source_root() + "/scenarios/engram-paper-offload.yaml")
                .lexically_normal()
                .string());
  expect_error(c + "    tolerance: {rel: 0.5, why: \"x\"}\n", "only be narrower");
}

// Tolerances are the metric kind's, stated once; a case may narrow its own, never widen it, and a
// case outside it is a known miss only when the file says so with a cause.
TEST(ValidationLoader, KindToleranceNarrowerOnlyAndKnownMisses) {
  EXPECT_EQ(kind_tolerance(MetricKind::serving_throughput).value, 0.20);
  EXPECT_EQ(kind_tolerance(MetricKind::latency).value, 0.15);
  EXPECT_EQ(kind_tolerance(MetricKind::step).value, 0.10);
  EXPECT_EQ(mape_target(MetricKind::serving_throughput), 0.15);
  EXPECT_EQ(mape_target(MetricKind::latency), 0.15);
  EXPECT_EQ(mape_target(MetricKind::step), 0.10);
  // No tolerance: the kind's.
  std::string c = step_case("a");
  c.erase(c.find("    tolerance:"));
  ValidationSet s = parse(c);
  ASSERT_TRUE(s.cases[0].tolerance.has_value());
  EXPECT_EQ(s.cases[0].tolerance->value, 0.10);
  EXPECT_EQ(parse(step_case("a", "", "{rel: 0.05, why: \"tighter\"}")).cases[0].tolerance->value, 0.05);
  expect_error(step_case("a", "", "{rel: 0.1001, why: \"wider\"}"), "only be narrower");
  expect_error(step_case("a", "", "{abs: 0.001, why: \"other type\"}"), "only be narrower");
  s = parse(step_case("a", "    known_miss: \"the kernel is slower than the roofline says\"\n"));
  EXPECT_EQ(s.cases[0].known_miss, "the kernel is slower than the roofline says");
  expect_error(step_case("a", "    known_miss: \"slow\"\n"), "say in a sentence");
}

TEST(Tolerance, BothSidesOfTheLimit) {
  Tolerance rel{ToleranceType::rel, 0.10, "x"};
  EXPECT_TRUE(rel.holds(109.9, 100.0));
  EXPECT_TRUE(rel.holds(90.1, 100.0));
  EXPECT_FALSE(rel.holds(110.1, 100.0));
  EXPECT_FALSE(rel.holds(89.9, 100.0));
  EXPECT_FALSE(rel.holds(std::nan(""), 100.0));
  Tolerance pp{ToleranceType::abs_pp, 1.5, "x"};
  EXPECT_TRUE(pp.holds(0.43, 1.92));
  EXPECT_FALSE(pp.holds(0.41, 1.92));
  EXPECT_EQ(rel.describe(), "±10%");
  EXPECT_EQ(pp.describe(), "±1.5 pp");
}

// A step model whose cost counts the prefill tokens and decode sequences it was given.
class CountingModel final : public StepTimeModel {
 public:
  StepCost step(const BatchShape& b) const override {
    double tokens = 0;
    for (const auto& p : b.prefill) tokens += p.tokens;
    StepCost c;
    c.total = Time::ms(1.0 + tokens + 10.0 * static_cast<double>(b.decode.size()));
    c.compute = c.total;
    return c;
  }
};

TEST(DecodePool, ChargesOnlyDecodeSequences) {
  const CountingModel inner;
  const DecodePoolStepModel pool(inner);
  const std::vector<PrefillChunk> prefill = {{500, 0}, {300, 100}};
  const std::vector<DecodeSeq> decode = {{1000, 1}, {2000, 1}};
  EXPECT_EQ(pool.step(BatchShape{prefill, decode}).total, Time::ms(21.0));  // the prompts cost nothing
  EXPECT_EQ(inner.step(BatchShape{prefill, decode}).total, Time::ms(821.0));
  EXPECT_EQ(pool.step(BatchShape{prefill, {}}).total, Time::us(1.0));  // KV handed over
}

TEST(KindSummary, MapeAndMeanAbsoluteErrorPerKind) {
  std::vector<CaseResult> r(4);
  r[0].kind = MetricKind::step;
  r[0].status = CaseStatus::pass;
  r[0].rel_error = 0.05;
  r[0].abs_error = 1.0;
  r[1].kind = MetricKind::step;
  r[1].status = CaseStatus::fail;
  r[1].rel_error = -0.15;
  r[1].abs_error = -3.0;
  r[2].kind = MetricKind::engram_penalty;
  r[2].status = CaseStatus::pass;
  r[2].rel_error = -0.8;
  r[2].abs_error = -1.54;
  r[3].kind = MetricKind::step;
  r[3].status = CaseStatus::unsupported;  // not counted
  r[3].rel_error = 9.0;
  const auto k = summarize_kinds(r);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].kind, MetricKind::step);
  EXPECT_EQ(k[0].cases, 2);
  EXPECT_EQ(k[0].failed, 1);
  EXPECT_DOUBLE_EQ(k[0].mape, 0.10);
  EXPECT_DOUBLE_EQ(k[0].mean_abs_error, 2.0);
  EXPECT_DOUBLE_EQ(k[0].lean, 0.05);  // step times 5 % long and 15 % short: on average 5 % fast
  EXPECT_DOUBLE_EQ(k[1].mean_abs_error, 1.54);
  EXPECT_DOUBLE_EQ(k[1].lean, 0.0);  // a penalty in percentage points says nothing of speed
}

// The lean reads every kind as speed: a throughput above its measurement and a time below it are
// both the model being optimistic.
TEST(ValidationSummary, SpeedErrorSignsRatesAndTimesAlike) {
  EXPECT_DOUBLE_EQ(speed_error(MetricKind::serving_throughput, 0.2), 0.2);
  EXPECT_DOUBLE_EQ(speed_error(MetricKind::latency, 0.2), -0.2);
  EXPECT_DOUBLE_EQ(speed_error(MetricKind::step, -0.1), 0.1);
  EXPECT_DOUBLE_EQ(speed_error(MetricKind::footprint, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(speed_error(MetricKind::ratio, 0.5), 0.0);
  EXPECT_TRUE(is_speed_kind(MetricKind::latency));
  EXPECT_FALSE(is_speed_kind(MetricKind::engram_penalty));
}

TEST(ValidationSummary, GroupsBySourceAndGpuOverRelativeErrorKinds) {
  std::vector<CaseResult> r(5);
  const auto set = [&](std::size_t i, const char* id, const char* source, const char* gpu, MetricKind kind,
                       CaseStatus status, double rel) {
    r[i].id = id;
    r[i].source = source;
    r[i].gpu = gpu;
    r[i].kind = kind;
    r[i].status = status;
    r[i].rel_error = rel;
  };
  set(0, "a", "s1", "h100", MetricKind::step, CaseStatus::pass, 0.05);
  set(1, "b", "s1", "b200", MetricKind::serving_throughput, CaseStatus::fail, -0.25);
  set(2, "c", "s2", "b200", MetricKind::latency, CaseStatus::pass, 0.10);
  set(3, "d", "s2", "b200", MetricKind::engram_penalty, CaseStatus::pass, 0.90);  // percentage points: left out
  set(4, "e", "s3", "h100", MetricKind::step, CaseStatus::unsupported, 0.0);      // not evaluated
  const auto by_source = summarize_by(r, &CaseResult::source);
  ASSERT_EQ(by_source.size(), 2u);
  EXPECT_EQ(by_source[0].group, "s1");
  EXPECT_EQ(by_source[0].cases, 2);
  EXPECT_DOUBLE_EQ(by_source[0].mape, 0.15);
  EXPECT_EQ(by_source[0].worst_id, "b");
  EXPECT_DOUBLE_EQ(by_source[0].worst_rel, -0.25);
  EXPECT_DOUBLE_EQ(by_source[0].lean, -0.15);  // a step 5 % long and a throughput 25 % low: both slow
  EXPECT_EQ(by_source[1].cases, 1);
  EXPECT_DOUBLE_EQ(by_source[1].lean, -0.10);  // a latency 10 % long
  const auto by_gpu = summarize_by(r, &CaseResult::gpu);
  ASSERT_EQ(by_gpu.size(), 2u);
  EXPECT_EQ(by_gpu[0].group, "b200");
  EXPECT_DOUBLE_EQ(by_gpu[0].mape, 0.175);
  EXPECT_DOUBLE_EQ(by_gpu[0].lean, -0.175);
  EXPECT_EQ(by_gpu[1].group, "h100");
  EXPECT_EQ(by_gpu[1].cases, 1);
}

// Cases grouped by the decode batch they ran at, smallest first, prefill last.
TEST(ValidationSummary, BatchRegimesGroupFromSmallestToPrefill) {
  // A serving run's mean decode rows per step is fractional: it rounds to the nearer regime.
  const std::vector<std::pair<double, std::string>> regimes = {
      {1, "decode 1-8"},      {8.4, "decode 1-8"},   {8.6, "decode 9-64"}, {64, "decode 9-64"},
      {200, "decode 65-256"}, {3000, "decode 257+"}, {0, "prefill"}};
  for (const auto& [rows, regime] : regimes) EXPECT_EQ(batch_regime(rows), regime) << rows;
  std::vector<CaseResult> r(4);
  const char* batches[] = {"prefill", "decode 257+", "decode 1-8", "decode 9-64"};
  const double errors[] = {0.2, 0.1, -0.1, 0.0};
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i].id = batches[i];
    r[i].batch = batches[i];
    r[i].kind = MetricKind::serving_throughput;
    r[i].status = CaseStatus::pass;
    r[i].rel_error = errors[i];
  }
  const auto g = summarize_by(r, &CaseResult::batch);
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[0].group, "decode 1-8");
  EXPECT_DOUBLE_EQ(g[0].lean, -0.1);
  EXPECT_EQ(g[1].group, "decode 9-64");
  EXPECT_EQ(g[2].group, "decode 257+");
  EXPECT_EQ(g[3].group, "prefill");
}

CaseResult result(const char* id, MetricKind kind, CaseStatus status, double rel, const char* known_miss = "") {
  CaseResult r;
  r.id = id;
  r.kind = kind;
  r.status = status;
  r.rel_error = rel;
  r.abs_error = rel;
  r.known_miss = known_miss;
  return r;
}

ValidationReport report_of(std::vector<CaseResult> results) {
  ValidationReport rep;
  rep.results = std::move(results);
  rep.kinds = summarize_kinds(rep.results);
  return rep;
}

TEST(ValidationReport, GateNeedsEveryTargetMetAndNoUnlistedMiss) {
  // Step MAPE 8 %: target met, one known miss.
  ValidationReport r = report_of({result("a", MetricKind::step, CaseStatus::pass, 0.04),
                                  result("b", MetricKind::step, CaseStatus::known_miss, -0.12, "cause")});
  EXPECT_TRUE(r.gate_passed());
  EXPECT_EQ(r.known_misses(), 1);
  // The same known miss further off: the MAPE target (10 %) is missed.
  r = report_of({result("a", MetricKind::step, CaseStatus::pass, 0.04),
                 result("b", MetricKind::step, CaseStatus::known_miss, -0.17, "cause")});
  EXPECT_TRUE(r.all_within_tolerance());
  ASSERT_EQ(r.targets_missed().size(), 1u);
  EXPECT_FALSE(r.gate_passed());
  // An unlisted miss fails even with the target met.
  r = report_of(
      {result("a", MetricKind::step, CaseStatus::pass, 0.0), result("b", MetricKind::step, CaseStatus::fail, 0.11)});
  EXPECT_FALSE(r.gate_passed());
  // A known miss that has come within tolerance is reported as stale.
  r = report_of({result("a", MetricKind::step, CaseStatus::pass, 0.01, "cause")});
  EXPECT_EQ(r.stale_known_misses(), std::vector<std::string>{"a"});
}

TEST(RecordedAccuracy, StrictFile) {
  const RecordedAccuracy r = recorded_accuracy_from_yaml(
      "schema_version: 1\nmape_percent: {step: 7.8, serving_throughput: 36.3, latency: 8.7}\nknown_misses: [b, c]\n",
      "r.yaml");
  EXPECT_DOUBLE_EQ(r.mape.at(MetricKind::serving_throughput), 0.363);
  EXPECT_EQ(r.known_misses.size(), 2u);
  EXPECT_THROW(
      recorded_accuracy_from_yaml("schema_version: 1\nmape_percent: {step: 7.8, serving_throughput: 36}\n", "r.yaml"),
      ConfigError);  // latency has a target: it must be recorded
  EXPECT_THROW(
      recorded_accuracy_from_yaml(
          "schema_version: 1\nmape_percent: {step: 1, serving_throughput: 1, latency: 1, typo: 1}\n", "r.yaml"),
      ConfigError);
  EXPECT_THROW(
      recorded_accuracy_from_yaml(
          "schema_version: 1\nmape_percent: {step: 1, serving_throughput: 1, latency: 1}\nknown_misses: [a, a]\n",
          "r.yaml"),
      ConfigError);
  const auto with_gpu_group = [](const char* group) {
    std::string text = "schema_version: 1\nmape_percent: {step: 1, serving_throughput: 1, latency: 1}\nby_gpu:\n";
    text.append(group);
    return text;
  };
  const RecordedAccuracy g = recorded_accuracy_from_yaml(
      with_gpu_group("  h100: {cases: 2, mape_percent: 10.0, lean_percent: -3.1}\n"), "r.yaml");
  EXPECT_DOUBLE_EQ(g.by_gpu.at("h100").lean, -0.031);
  // A group without its lean: the error names the file, the line and the field.
  try {
    recorded_accuracy_from_yaml(with_gpu_group("  h100: {cases: 2, mape_percent: 10.0}\n"), "r.yaml");
    ADD_FAILURE() << "a group without lean_percent was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("r.yaml:4:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("lean_percent"), std::string::npos) << e.what();
  }
}

TEST(RecordedAccuracy, RatchetOnlyLetsAccuracyImprove) {
  RecordedAccuracy rec;
  rec.mape = {{MetricKind::step, 0.080}};
  rec.known_misses = {"b"};
  const auto problems = [&](std::vector<CaseResult> rs) {
    return check_ratchet(report_of(std::move(rs)), rec).problems.size();
  };
  // At the record: passes (MAPE 8.0 %, the recorded miss still a miss).
  EXPECT_EQ(problems({result("a", MetricKind::step, CaseStatus::pass, 0.04),
                      result("b", MetricKind::step, CaseStatus::known_miss, 0.12, "cause")}),
            0u);
  // MAPE up by a tenth of a point: fails.
  EXPECT_EQ(problems({result("a", MetricKind::step, CaseStatus::pass, 0.042),
                      result("b", MetricKind::step, CaseStatus::known_miss, 0.12, "cause")}),
            1u);
  // A new known miss: the list grew.
  EXPECT_EQ(problems({result("a", MetricKind::step, CaseStatus::known_miss, 0.02, "cause"),
                      result("b", MetricKind::step, CaseStatus::known_miss, 0.12, "cause")}),
            1u);
  // The recorded miss now within tolerance: its entries must go (cases file and record).
  EXPECT_EQ(problems({result("a", MetricKind::step, CaseStatus::pass, 0.04),
                      result("b", MetricKind::step, CaseStatus::pass, 0.05, "cause")}),
            2u);
  // An improvement of the MAPE is a note, not a problem.
  const RatchetResult better =
      check_ratchet(report_of({result("a", MetricKind::step, CaseStatus::pass, 0.0),
                               result("b", MetricKind::step, CaseStatus::known_miss, 0.12, "c")}),
                    rec);
  EXPECT_TRUE(better.passed());
  EXPECT_EQ(better.notes.size(), 1u);
}

TEST(RecordedAccuracy, GpuAndEngineGroupsAreHeldAndQuoted) {
  RecordedAccuracy rec;
  rec.mape = {{MetricKind::step, 1.0}};
  rec.by_gpu = {{"h100", RecordedGroup{2, 0.10, 0.05}}};
  const auto on = [](const char* id, const char* gpu, double rel) {
    CaseResult r = result(id, MetricKind::step, CaseStatus::pass, rel);
    r.gpu = gpu;
    return r;
  };
  EXPECT_TRUE(check_ratchet(report_of({on("a", "h100", 0.05), on("b", "h100", -0.15)}), rec).passed());
  EXPECT_FALSE(check_ratchet(report_of({on("a", "h100", 0.05), on("b", "h100", -0.16)}), rec).passed());  // above
  EXPECT_FALSE(check_ratchet(report_of({on("a", "h100", 0.05)}), rec).passed());  // one case fewer
  EXPECT_FALSE(check_ratchet(report_of({on("a", "h100", 0.05), on("b", "h100", 0.0), on("c", "b200", 0.0)}), rec)
                   .passed());  // b200 not recorded
  // The lean is the run's, to a tenth: steps 5 % long and 15 % short lean 5 % fast, not 5.2 %.
  rec.by_gpu.at("h100").lean = 0.052;
  EXPECT_FALSE(check_ratchet(report_of({on("a", "h100", 0.05), on("b", "h100", -0.15)}), rec).passed());
  rec.by_gpu.at("h100").lean = 0.05;
  EXPECT_EQ(validation_accuracy_for(rec.by_gpu, "h100"),
            std::optional<std::string>(
                "MAPE 10.0 % over 2 validation cases, predicting 5.0 % faster than measured on average"));
  rec.by_gpu.at("h100").lean = -0.031;
  EXPECT_EQ(validation_accuracy_for(rec.by_gpu, "h100"),
            std::optional<std::string>(
                "MAPE 10.0 % over 2 validation cases, predicting 3.1 % slower than measured on average"));
  rec.by_gpu.at("h100").lean = 0.0;
  EXPECT_EQ(validation_accuracy_for(rec.by_gpu, "h100"),
            std::optional<std::string>("MAPE 10.0 % over 2 validation cases, no lean on average"));
  EXPECT_FALSE(validation_accuracy_for(rec.by_gpu, "mi300x").has_value());
}

#ifdef ENGRAMSIM_HAVE_CLI
using engramsim::test::CliRun;

CliRun run_cli(const std::string& args, bool with_stderr = false) {
  return engramsim::test::run_cli(args,
                                  with_stderr ? engramsim::test::Stderr::merged : engramsim::test::Stderr::dropped);
}

std::string write_cases(const std::string& name, const std::string& cases) {
  const auto dir = std::filesystem::path(engramsim::test::binary_dir()) / "tests" / "validation";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << "schema_version: 1\ncases:\n" << cases;
  return path.string();
}

TEST(CmdValidateSet, ExitCodesAndJson) {
  if (!std::filesystem::exists(engramsim::test::cli_path())) GTEST_SKIP() << "engramsim not built";
  // Node and model are catalog names, so the files may sit anywhere.
  const std::string ok = write_cases("ok.yaml", step_case("vidur"));
  CliRun r = run_cli("validate-set --cases " + ok + " --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("cases").size(), 1u);
  EXPECT_EQ(j.at("cases")[0].at("status"), "pass");
  EXPECT_GT(j.at("cases")[0].at("predicted").get<double>(), 0.0);
  EXPECT_EQ(j.at("kinds")[0].at("kind"), "step-level");
  EXPECT_TRUE(j.at("all_within_tolerance").get<bool>());

  // The same case held to a tolerance it cannot meet: exit 4.
  const std::string tight = write_cases("tight.yaml", step_case("vidur", "", "{rel: 0.0001, why: \"too tight\"}"));
  r = run_cli("validate-set --cases " + tight);
  EXPECT_EQ(r.rc, 4) << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;

  // Outside its tolerance but listed as a known miss, the MAPE target met: exit 0.
  const std::string known = write_cases(
      "known.yaml", step_case("vidur", "    known_miss: \"held to a tolerance it cannot meet, for the test\"\n",
                              "{rel: 0.0001, why: \"too tight\"}"));
  r = run_cli("validate-set --cases " + known + " --json");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("cases")[0].at("status"), "known miss");
  // A known miss far enough off to miss the step MAPE target (10 %): exit 4.
  std::string far = step_case("vidur", "    known_miss: \"published value changed for the test\"\n");
  far.replace(far.find("\"2.383ms\""), 9, "\"1.000ms\"");
  r = run_cli("validate-set --cases " + write_cases("far.yaml", far));
  EXPECT_EQ(r.rc, 4) << r.out;
  EXPECT_NE(r.out.find("MAPE target missed"), std::string::npos) << r.out;

  // Bad input: exit 2.
  const std::string bad = write_cases("bad.yaml", step_case("vidur", "    typo: 1\n"));
  EXPECT_EQ(run_cli("validate-set --cases " + bad).rc, 2);
  EXPECT_EQ(run_cli("validate-set --cases " + ok + " --case nosuch").rc, 2);

  // A calibration profile that is missing or malformed: exit 2, naming the file, line and field.
  EXPECT_EQ(run_cli("validate-set --cases " + ok + " --calibration " + ok + ".absent").rc, 2);
  const auto prof = std::filesystem::path(engramsim::test::binary_dir()) / "tests" / "validation" / "bad-profile.yaml";
  std::ofstream(prof) << "schema: engramsim-calibration/1\nname: t\nprovenance:\n  host: h\n";
  r = run_cli("validate-set --cases " + ok + " --calibration " + prof.string(), true);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("bad-profile.yaml:4:3: provenance.cpu_model"), std::string::npos) << r.out;
}
#endif

// The cases on one GPU with one engine are a group of their own, with their known misses: a miss
// the run holds must be listed, a listed one the run holds must still be a miss, and a listed one
// the run does not hold (a sweep case) is not judged.
TEST(RecordedAccuracy, GpuWithEngineGroupsHoldTheirKnownMisses) {
  const RecordedAccuracy parsed = recorded_accuracy_from_yaml(
      "schema_version: 1\nmape_percent: {step: 1, serving_throughput: 1, latency: 1}\nby_gpu_engine:\n"
      "  h100/vllm: {cases: 2, mape_percent: 10.0, lean_percent: 5.0, known_misses: [b, sweep-case]}\n",
      "r.yaml");
  ASSERT_EQ(parsed.by_gpu_engine.at("h100/vllm").known_misses.size(), 2u);
  RecordedAccuracy rec;
  rec.mape = {{MetricKind::step, 1.0}};
  rec.known_misses = {"b"};
  rec.by_gpu_engine = parsed.by_gpu_engine;
  rec.by_gpu = {{"h100", RecordedGroup{2, 0.10, 0.05}}};
  rec.by_engine = {{"vllm", RecordedGroup{2, 0.10, 0.05}}};
  const auto on = [](const char* id, CaseStatus st, double rel) {
    CaseResult r = result(id, MetricKind::step, st, rel, st == CaseStatus::known_miss ? "cause" : "");
    r.gpu = "h100";
    r.engine = "vllm";
    return r;
  };
  const std::vector<CaseResult> run = {on("a", CaseStatus::pass, 0.05), on("b", CaseStatus::known_miss, -0.15)};
  EXPECT_TRUE(check_ratchet(report_of(run), rec).passed()) << check_ratchet(report_of(run), rec).problems.front();
  rec.by_gpu_engine.at("h100/vllm").known_misses = {"sweep-case"};  // b is a miss the group does not list
  EXPECT_FALSE(check_ratchet(report_of(run), rec).passed());
  const auto groups = summarize_by_gpu_engine(run);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].group, "h100/vllm");
  EXPECT_EQ(groups[0].known_misses, std::vector<std::string>{"b"});
}

}  // namespace
}  // namespace engramsim::validation

namespace engramsim::validation {
namespace {

std::string sweep_case(const std::string& metric, const std::string& published, const std::string& sweep) {
  return "  - id: s\n    level: serving\n    metric: " + metric + "\n    published: " + published +
         "\n    source: {name: semianalysis-engram-article, url: \"u\", where: \"w\"}\n"
         "    config: {model: deepseek-v4.1-flash, gpu: b300}\n    representable: partial\n"
         "    reproduce:\n      sweep: " +
         sweep + "\n";
}

TEST(ValidationLoader, SweepCasesAndPublishedRanges) {
  const std::string sweep = "{scenario: ../article-b300-agentx-tp4-vs-tp2.yaml, config: a, baseline: b}";
  const ValidationSet s = parse(sweep_case("frontier_ratio_max", "{value: 1.6, range: [1.3, 1.65]}", sweep));
  const ValidationCase& c = s.cases[0];
  ASSERT_TRUE(c.sweep.has_value());
  EXPECT_EQ(c.kind, MetricKind::ratio);
  EXPECT_EQ(c.sweep->config, "a");
  EXPECT_EQ(c.sweep->baseline, "b");
  ASSERT_TRUE(c.tolerance.has_value());
  EXPECT_EQ(c.tolerance->type, ToleranceType::range);
  EXPECT_TRUE(c.tolerance->holds(1.3, 1.6));
  EXPECT_TRUE(c.tolerance->holds(1.65, 1.6));
  EXPECT_FALSE(c.tolerance->holds(1.29, 1.6));
  EXPECT_FALSE(c.tolerance->holds(1.66, 1.6));
  EXPECT_EQ(c.tolerance->describe(), "[1.3, 1.65]");
  // The range must hold the value, and is then the tolerance.
  expect_error(sweep_case("frontier_ratio_max", "{value: 2.0, range: [1.3, 1.65]}", sweep), "must hold the published");
  expect_error(sweep_case("frontier_ratio_max", "{value: 1.6, range: [1.3]}", sweep), "expected [lo, hi]");
  // What each metric reads: a ratio needs its baseline, a point read its interactivity.
  expect_error(sweep_case("tokens_per_dollar_ratio", "{value: 0.35}",
                          "{scenario: ../article-b300-agentx-tp4-vs-tp2.yaml, config: a, at_interactivity: 125}"),
               "baseline");
  expect_error(sweep_case("total_tokens_per_dollar", "{value: 1e8}",
                          "{scenario: ../article-b300-agentx-tp4-vs-tp2.yaml, config: a}"),
               "at_interactivity");
  expect_error(
      sweep_case("frontier_ratio_max", "{value: 1.6}",
                 "{scenario: ../article-b300-agentx-tp4-vs-tp2.yaml, config: a, baseline: b, at_interactivity: 125}"),
      "overlap");
  expect_error(
      sweep_case("mean_ttft_ms", "{value: \"10ms\"}",
                 "{scenario: ../article-b300-agentx-tp4-vs-tp2.yaml, config: a, baseline: b, at_interactivity: 125}"),
      "cannot read");
  expect_error(sweep_case("frontier_ratio_max", "{value: 1.6}", "{scenario: no-such.yaml, config: a, baseline: b}"),
               "no-such.yaml");
}

std::string load_point_case(const std::string& metric, const std::string& serving) {
  return "  - id: l\n    level: serving\n    metric: " + metric +
         "\n    published: {value: 0.5, range: [0.0, 1.0], unit: \"x\"}\n"
         "    source: {name: inferencex-dsv41flash-agentx-logs, url: \"u\", where: \"w\"}\n"
         "    config: {model: deepseek-v4.1-flash, gpu: b200}\n    representable: partial\n"
         "    reproduce:\n      serving: " +
         serving + "\n";
}

// A curve's shape is one scenario at two loads: the second run is the first with `baseline_set`
// applied after `set`; a one-run metric takes neither baseline key, a two-run one needs one.
TEST(ValidationLoader, BaselineSetGivesTheSecondLoadPoint) {
  const std::string two =
      "{scenario: ../article-b200-agentx-dram-vs-ssd.yaml, set: {workload.concurrency: 128}, "
      "baseline_set: {workload.concurrency: 64}}";
  const ValidationSet s = parse(load_point_case("tput_ratio_over_baseline", two));
  const ServingReproduction& r = *s.cases[0].serving;
  EXPECT_EQ(s.cases[0].kind, MetricKind::ratio);
  ASSERT_TRUE(has_baseline(r));
  const ServingReproduction b = baseline_run(r);
  ASSERT_EQ(b.set.size(), 2u);
  EXPECT_EQ(b.set[0].key, "workload.concurrency");
  EXPECT_EQ(b.set[0].value, "128");
  EXPECT_EQ(b.set[1].value, "64");
  EXPECT_TRUE(b.baseline_set.empty());
  EXPECT_EQ(b.variant, r.variant);
  EXPECT_FALSE(has_baseline(b));
  expect_error(load_point_case("tput_ratio_over_baseline",
                               "{scenario: ../article-b200-agentx-dram-vs-ssd.yaml, set: {workload.concurrency: 128}}"),
               "compares two runs");
  expect_error(load_point_case("p50_tpot_ratio_over_baseline",
                               "{scenario: ../article-b200-agentx-dram-vs-ssd.yaml, baseline_set: [64]}"),
               "expected a map");
  expect_error(load_point_case("mean_input_per_request", two), "reads one run");
  const ValidationSet one = parse(load_point_case(
      "prefix_hit_rate", "{scenario: ../article-b200-agentx-dram-vs-ssd.yaml, set: {workload.concurrency: 64}}"));
  EXPECT_EQ(one.cases[0].kind, MetricKind::traffic);
  EXPECT_EQ(one.cases[0].unit, "fraction");
}

TEST(ValidationLoader, FootprintCases) {
  const std::string head =
      "  - id: f\n    level: footprint\n    metric: kv_gib_per_gpu\n    published: {value: -13.5}\n"
      "    source: {name: inferencex, url: \"u\", where: \"w\"}\n    config: {model: deepseek-v4.1-flash, gpu: "
      "mi300x}\n"
      "    representable: full\n    reproduce:\n";
  const ValidationSet s = parse(
      head + "      footprint: {model: deepseek-v4.1-flash, node: mi300x-8, tp: 2, max_num_batched_tokens: 4096}\n");
  const ValidationCase& c = s.cases[0];
  ASSERT_TRUE(c.footprint.has_value());
  EXPECT_EQ(c.kind, MetricKind::footprint);
  EXPECT_EQ(c.footprint->tp, 2);
  EXPECT_EQ(c.footprint->max_num_batched_tokens, 4096);
  EXPECT_EQ(c.tolerance->describe(), "±20%");
  expect_error(head + "      footprint: {model: deepseek-v4.1-flash, node: mi300x-8, tp: 2, ep: 3}\n",
               "must divide tp");
  expect_error(head + "      footprint: {model: deepseek-v4.1-flash, node: mi300x-8, tiers: hbm}\n", "tiers");
  // The engine whose start-up profile applies, and the capture size, are checked where they are written.
  EXPECT_EQ(c.footprint->engine, "vllm");
  expect_error(head + "      footprint: {model: deepseek-v4.1-flash, node: mi300x-8, engine: tgi}\n",
               "footprint.engine: no engine preset 'tgi'");
  expect_error(head + "      footprint: {model: deepseek-v4.1-flash, node: mi300x-8, max_cudagraph_capture_size: -1}\n",
               "max_cudagraph_capture_size: value -1 out of range");
  std::string serving = head;
  serving.replace(serving.find("level: footprint"), 16, "level: serving");
  expect_error(serving + "      footprint: {model: deepseek-v4.1-flash, node: mi300x-8}\n", "level footprint");
  // Evaluated without the planner: the footprint of one replica, negative when it does not fit.
  EvalOptions o;
  const ValidationReport r = evaluate_set(s, o);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_TRUE(std::isfinite(r.results[0].predicted)) << r.results[0].message;
  EXPECT_NE(r.results[0].detail.find("TP2 EP1 on mi300x-8"), std::string::npos) << r.results[0].detail;
}

}  // namespace
}  // namespace engramsim::validation
