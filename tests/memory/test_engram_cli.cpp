// `engramsim run --trace-out`: the option writes a Perfetto/Chrome trace of an in-run scenario, one
// file per compare variant, and a bad --trace-window is bad input (exit 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/cli_run.hpp"
#include "tests/support/test_paths.hpp"

namespace {

namespace fs = std::filesystem;

struct Dir {
  Dir() : path(fs::temp_directory_path() / ("engram_cli_" + std::to_string(::getpid()))) {
    fs::create_directories(path);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

int run(const std::string& args) {
  return engramsim::test::run_cli(args + " > /dev/null", engramsim::test::Stderr::dropped).rc;
}

const char* kScenario = R"(name: trace-test
model: deepseek-v4.1-flash
node: hgx-b300
fabric: {placement: spread}
deployment:
  replicas: 2
  tp: 2
  engram: {tier: ssd, ssd_path: direct, in_run: true, access: {model: uniform}, dram_cache: {policy: lru, capacity: 1GiB}}
workload:
  kind: closed_loop
  concurrency: 8
  num_requests: 16
  input: {distribution: fixed, tokens: 512}
  output: {distribution: fixed, tokens: 16}
compare:
  - name: uniform
    set: {deployment.engram.access.model: uniform}
  - name: text
    set: {deployment.engram.access.model: text}
)";

TEST(EngramCli, TraceOutWritesOneTracePerVariant) {
  Dir d;
  const fs::path scenario = d.path / "s.yaml";
  std::ofstream(scenario) << kScenario;
  const fs::path trace = d.path / "run.json";
  ASSERT_EQ(run("run " + scenario.string() + " --trace-out " + trace.string() + " --trace-window 50ms"), 0);
  for (const char* v : {"run-uniform.json", "run-text.json"}) {
    std::ifstream f(d.path / v);
    ASSERT_TRUE(f.good()) << v;
    const auto j = nlohmann::json::parse(f);
    int flows = 0, steps = 0;
    for (const auto& e : j.at("traceEvents")) {
      if (e.at("ph") != "X") continue;
      flows += e.at("cat") == "flow";
      steps += e.at("cat") == "step";
      EXPECT_LT(e.at("ts").get<double>(), 50000.0);
    }
    EXPECT_GT(flows, 0) << v;
    EXPECT_GT(steps, 0) << v;
  }
  EXPECT_EQ(run("run " + scenario.string() + " --trace-out " + trace.string() + " --trace-window soon"), 2);
}

}  // namespace

namespace {

// The number under `key` of a JSON object.
double json_number(const std::string& text, const std::string& key) {
  return nlohmann::json::parse(text).at(key).get<double>();
}

}  // namespace

// `step` and `run` price the ssd tier's page-cache path with the same cache state: a run holds the
// table pages the node's host leaves for the page cache, step --page-cache warm (the default) the
// same, so their Engram stall shares agree within 20 % on a decode-bound run (bound stated before
// the first run); --page-cache cold is the state with no page resident and stalls far more.
TEST(EngramCli, StepAndRunAgreeOnTheSsdStallAtTheSameCacheState) {
  Dir d;
  const fs::path scenario = d.path / "ssd.yaml";
  std::ofstream(scenario) << R"(name: ssd-stall
model: deepseek-v4.1-flash
node: hgx-b200
deployment:
  replicas: 1
  tp: 4
  ep: 1
  attention: tensor
  engine: vllm
  engram: {tier: ssd, fetch: staged, ssd_path: page_cache}
  spec_decode: {enabled: false}
workload:
  kind: closed_loop
  concurrency: 32
  num_requests: 64
  input: {distribution: fixed, tokens: 128}
  output: {distribution: fixed, tokens: 1024}
)";
  const auto run = engramsim::test::run_cli("run " + scenario.string() + " --json", engramsim::test::Stderr::dropped);
  ASSERT_EQ(run.rc, 0) << run.out;
  const double run_share = json_number(run.out, "engram_stall_share");
  const std::string step_args =
      "step --model deepseek-v4.1-flash --node hgx-b200 --tp 4 --ep 1 --attention tensor --engine vllm "
      "--engram-tier ssd --fetch staged --no-spec --decode-seqs 32 --context 640 --json";
  const auto share_of = [](const std::string& out) {
    const auto j = nlohmann::json::parse(out);
    return j.at("engram_stall_s").get<double>() / j.at("step_time_s").get<double>();
  };
  const auto warm = engramsim::test::run_cli(step_args, engramsim::test::Stderr::dropped);
  ASSERT_EQ(warm.rc, 0) << warm.out;
  EXPECT_EQ(nlohmann::json::parse(warm.out).at("engram").at("page_cache").at("state"), "warm");
  const double step_share = share_of(warm.out);
  ASSERT_GT(run_share, 0.0);
  EXPECT_NEAR(step_share / run_share, 1.0, 0.20) << "step " << step_share << " run " << run_share;
  const auto cold = engramsim::test::run_cli(step_args + " --page-cache cold", engramsim::test::Stderr::dropped);
  ASSERT_EQ(cold.rc, 0) << cold.out;
  EXPECT_GT(share_of(cold.out), 1.5 * step_share);
}
