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
