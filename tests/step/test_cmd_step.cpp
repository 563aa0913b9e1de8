// `engramsim step`: the JSON schema the docs promise, the arithmetic of the total, and exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "tests/support/cli_run.hpp"
#include "tests/support/test_paths.hpp"

namespace {

#ifdef ENGRAMSIM_HAVE_CLI
using engramsim::test::CliRun;

CliRun run_cli(const std::string& args) { return engramsim::test::run_cli(args, engramsim::test::Stderr::dropped); }

bool cli_built() { return std::filesystem::exists(engramsim::test::cli_path()); }

TEST(CmdStep, JsonSchemaAndTotals) {
  if (!cli_built()) GTEST_SKIP() << "engramsim not built";
  const CliRun r = run_cli(
      "step --model deepseek-v4.1-flash --node hgx-b300 --tp 2 --engram-tier ssd --decode-seqs 64 --context 8192 "
      "--json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const double total = j.at("step_time_s").get<double>();
  EXPECT_GT(total, 0.0);
  EXPECT_NEAR(
      total,
      j.at("compute_s").get<double>() + j.at("engram_stall_s").get<double>() + j.at("host_overhead_s").get<double>(),
      1e-8);
  const auto& layers = j.at("engram").at("layers");
  ASSERT_EQ(layers.size(), 2u);
  double stall = 0.0;
  for (const auto& l : layers) {
    EXPECT_GE(l.at("fetch_s").get<double>(), 0.0);
    EXPECT_GE(l.at("window_s").get<double>(), 0.0);
    stall += l.at("stall_s").get<double>();
    EXPECT_FALSE(l.at("reason").get<std::string>().empty());
  }
  EXPECT_NEAR(stall, j.at("engram_stall_s").get<double>(), 1e-8);
  EXPECT_GT(layers[0].at("stall_s").get<double>(), 0.0);  // SSD without a cache cannot hide behind layer 0
  double op_time = 0.0;
  for (const auto& o : j.at("ops")) {
    EXPECT_FALSE(o.at("name").get<std::string>().empty());
    const std::string bound = o.at("bound").get<std::string>();
    EXPECT_TRUE(bound == "compute" || bound == "memory" || bound == "network" || bound == "overhead") << bound;
    op_time += o.at("time_s").get<double>();
  }
  // Ops sum to the compute time (the SSD tier has no in-stream gather).
  EXPECT_NEAR(op_time, j.at("compute_s").get<double>(), 1e-6);
}

TEST(CmdStep, ShowsTheGemmSharePerPrecision) {
  if (!cli_built()) GTEST_SKIP() << "engramsim not built";
  // B200's preset prices GEMMs at a share of the default curves per precision; Hopper's at the curves.
  const CliRun b200 = run_cli("step --model llama-3.1-70b --node hgx-b200 --tp 1 --decode-seqs 64 --context 1024");
  ASSERT_EQ(b200.rc, 0) << b200.out;
  EXPECT_NE(b200.out.find("GEMM share of the default efficiency curves: fp4 0.53 (GPU preset), fp8 0.73 (GPU preset)"),
            std::string::npos)
      << b200.out;
  const CliRun h200 = run_cli("step --model llama-3.1-70b --node hgx-h200 --tp 2 --decode-seqs 64 --context 1024");
  ASSERT_EQ(h200.rc, 0) << h200.out;
  EXPECT_EQ(h200.out.find("GEMM share"), std::string::npos) << h200.out;
  EXPECT_EQ(h200.out.find("Dense GEMMs:"), std::string::npos) << h200.out;
  // MI300X's preset also states how its dense GEMMs stream weights and overlap them with their math.
  const CliRun mi300x = run_cli("step --model llama-3.1-70b --node mi300x-8 --tp 8 --decode-seqs 64 --context 1024");
  ASSERT_EQ(mi300x.rc, 0) << mi300x.out;
  EXPECT_NE(mi300x.out.find("Dense GEMMs: weight stream at 0.81 of the bandwidth curves, overlap with their math 0.00"),
            std::string::npos)
      << mi300x.out;
  const CliRun json =
      run_cli("step --model llama-3.1-70b --node hgx-b200 --tp 1 --decode-seqs 64 --context 1024 --json");
  ASSERT_EQ(json.rc, 0);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(json.out).at("gemm_share").at("fp4").get<double>(), 0.53);
}

TEST(CmdStep, BadInputExitsTwo) {
  if (!cli_built()) GTEST_SKIP() << "engramsim not built";
  // Tensor-parallel attention cannot split 64 heads over 3 ranks.
  EXPECT_EQ(
      run_cli("step --model deepseek-v4.1-flash --node hgx-b300 --tp 3 --attention tensor --decode-seqs 1 --context 10")
          .rc,
      2);
  EXPECT_EQ(run_cli("step --model no-such-model --node hgx-b300 --tp 1 --decode-seqs 1 --context 10").rc, 2);
  EXPECT_EQ(run_cli("step --model llama-3.1-8b --node hgx-h100 --tp 1 --context 10").rc, 2);     // no batch
  EXPECT_EQ(run_cli("step --model llama-3.1-8b --node hgx-h100 --tp 1 --decode-seqs 8").rc, 2);  // no --context
  // No --tp: the layout is stated, never assumed (footprint too).
  EXPECT_EQ(run_cli("step --model llama-3.1-8b --node hgx-h100 --decode-seqs 8 --context 10").rc, 2);
  // A tier on a card without Engram is bad input, as in a scenario.
  EXPECT_EQ(
      run_cli("step --model llama-3.1-8b --node hgx-h100 --tp 1 --engram-tier ssd --decode-seqs 8 --context 10").rc, 2);
  EXPECT_EQ(run_cli("footprint --model llama-3.1-8b --node hgx-h100 --tp 1 --engram-tier ssd").rc, 2);
  EXPECT_EQ(run_cli("no-such-command").rc, 2);
}

// list names the catalog and the shipped scenarios (by the path to run them with).
TEST(CmdList, CatalogAndScenarios) {
  if (!cli_built()) GTEST_SKIP() << "engramsim not built";
  const CliRun models = run_cli("list models");
  ASSERT_EQ(models.rc, 0);
  EXPECT_NE(models.out.find("deepseek-v4.1-flash"), std::string::npos) << models.out;
  const CliRun scenarios = run_cli("list scenarios");
  ASSERT_EQ(scenarios.rc, 0);
  EXPECT_NE(scenarios.out.find("scenarios/default.yaml"), std::string::npos) << scenarios.out;
  EXPECT_EQ(run_cli("list bogus").rc, 2);
  const CliRun engines = run_cli("list engines");
  ASSERT_EQ(engines.rc, 0);
  EXPECT_NE(engines.out.find("trtllm"), std::string::npos) << engines.out;
}

// --engine takes a catalog name or a preset file; `validate` checks presets.
TEST(CmdStep, EnginePresetByNameOrFile) {
  if (!cli_built()) GTEST_SKIP() << "engramsim not built";
  const auto dir = std::filesystem::temp_directory_path() / ("engramsim-engine-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "mine.yaml").string(), bad = (dir / "bad.yaml").string();
  { std::ofstream(good) << "name: mine\nper_step: 40us\nper_sequence: 100ns\n"; }
  { std::ofstream(bad) << "name: bad\nper_step: 40\nper_sequence: 100ns\n"; }
  const std::string base =
      "step --model llama-3.1-8b --node hgx-h100 --tp 1 --decode-seqs 8 --context 100 --json --engine ";
  const CliRun mine = run_cli(base + good);
  ASSERT_EQ(mine.rc, 0) << mine.out;
  const nlohmann::json j = nlohmann::json::parse(mine.out);
  EXPECT_EQ(j.at("engine"), "mine");
  EXPECT_DOUBLE_EQ(j.at("host_overhead_us").at("per_step").get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(
      nlohmann::json::parse(run_cli(base + "sglang").out).at("host_overhead_us").at("per_step").get<double>(), 200.0);
  EXPECT_EQ(run_cli(base + bad).rc, 2);
  EXPECT_EQ(run_cli(base + "tgi").rc, 2);
  EXPECT_EQ(run_cli("validate " + good).rc, 0);
  EXPECT_EQ(run_cli("validate " + bad).rc, 2);
  std::filesystem::remove_all(dir);
}

// step resolves the layout by footprint's rule (data-parallel attention and EP = TP for an MoE card
// whose KV cannot be split over heads), names the Engram tier it priced, and --engram-tier none
// drops the module.
TEST(CmdStep, LayoutAndEngramTierFollowFootprint) {
  if (!cli_built()) GTEST_SKIP() << "engramsim not built";
  const CliRun v41 = run_cli("step --model deepseek-v4.1-flash --node hgx-b300 --tp 2 --decode-seqs 8 --context 100");
  ASSERT_EQ(v41.rc, 0);
  EXPECT_NE(v41.out.find("TP2 EP2 DP-attention, Engram tier dram"), std::string::npos) << v41.out;
  const CliRun fp = run_cli("footprint --model deepseek-v4.1-flash --node hgx-b300 --tp 2");
  EXPECT_NE(fp.out.find("TP2, EP2, data-parallel attention"), std::string::npos) << fp.out;
  const CliRun llama = run_cli("step --model llama-3.1-8b --node hgx-h100 --tp 1 --decode-seqs 8 --context 100");
  ASSERT_EQ(llama.rc, 0);
  EXPECT_NE(llama.out.find("TP1 EP1, Engram tier none"), std::string::npos) << llama.out;
  const CliRun none = run_cli(
      "step --model deepseek-v4.1-flash --node hgx-b300 --tp 2 --engram-tier none --decode-seqs 8 --context 100 "
      "--json");
  ASSERT_EQ(none.rc, 0);
  const nlohmann::json j = nlohmann::json::parse(none.out);
  EXPECT_EQ(j.at("engram").at("tier"), "none");
  EXPECT_TRUE(j.at("engram").at("layers").empty());
}

// A flag with a scenario key is that key with dashes, read by the scenario's parser: it takes the
// key's values (any size spelling), and refuses what the key refuses, naming both.
TEST(CmdStep, FlagsNameTheirScenarioKeys) {
  if (!cli_built()) GTEST_SKIP() << "engramsim not built";
  const std::string base =
      "step --model deepseek-v4.1-flash --node hgx-b300 --tp 2 --decode-seqs 8 --context 100 --json ";
  const CliRun now = run_cli(base + "--attention automatic --hbm-cache 4GiB --fetch staged --acceptance-length 2");
  ASSERT_EQ(now.rc, 0) << now.out;
  const CliRun same = run_cli(base + "--attention automatic --hbm-cache 4096MiB --fetch staged --acceptance-length 2");
  EXPECT_EQ(now.out, same.out);
  const CliRun plain = run_cli(base);
  EXPECT_NE(now.out, plain.out) << "the flags change the step";
  const CliRun bad = run_cli(base + "--acceptance-length 9");
  EXPECT_EQ(bad.rc, 2);
  const std::string fp = "footprint --model deepseek-v4.1-flash --node hgx-b300 --tp 2 --json ";
  const CliRun f_now =
      run_cli(fp + "--max-num-batched-tokens 4096 --kv-cache-free-gpu-mem-fraction 0.8 --share-across-replicas");
  ASSERT_EQ(f_now.rc, 0) << f_now.out;
  EXPECT_NE(f_now.out, run_cli(fp).out);
  EXPECT_EQ(run_cli(fp + "--gpu-memory-utilization 0.8 --kv-cache-free-gpu-mem-fraction 0.8").rc, 2);
}
#endif

}  // namespace
