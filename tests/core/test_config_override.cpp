// Overrides at a dotted key path (core/config_override.hpp): `--set` and a file's `set:` blocks.
#include <gtest/gtest.h>

#include <functional>

#include "core/config_override.hpp"
#include "tests/support/config_error.hpp"

using namespace engramsim;

namespace {

const char* kScenario = R"(name: what-if
deployment:
  tp: 4
  scheduler: {max_num_seqs: 256}
workload:
  concurrency: 1
  phases: [{rate: 1}, {rate: 2}]
)";

}  // namespace

TEST(Override, SetsScalarsListsMapsAndListElements) {
  YAML::Node root = YAML::Load(kScenario);
  apply_override(root, "deployment.tp", "8");
  EXPECT_EQ(root["deployment"]["tp"].as<int>(), 8);
  apply_override(root, "deployment.scheduler", "{max_num_seqs: 64, chunk: 512}");
  EXPECT_EQ(root["deployment"]["scheduler"]["chunk"].as<int>(), 512);
  apply_override(root, "workload.phases.1.rate", "5.5");
  EXPECT_DOUBLE_EQ(root["workload"]["phases"][1]["rate"].as<double>(), 5.5);
  apply_override(root, "name", "");
  EXPECT_EQ(root["name"].as<std::string>(), "");
  EXPECT_TRUE(root["name"].IsScalar());
}

TEST(Override, KeysTheFileLeavesOutAreAdded) {
  // An optional key the file omits, and a map above it: added, for the strict loader to judge.
  YAML::Node root = YAML::Load(kScenario);
  apply_override(root, "workload.num_requests", "16");
  EXPECT_EQ(root["workload"]["num_requests"].as<int>(), 16);
  apply_override(root, "prices.gpu_hour.b200", "2USD/h");
  EXPECT_EQ(root["prices"]["gpu_hour"]["b200"].as<std::string>(), "2USD/h");
}

TEST(Override, MissingOrBadPathsAreErrors) {
  YAML::Node root = YAML::Load(kScenario);
  EXPECT_NE(test::config_error_of([&] { apply_override(root, "workload.phases.2.rate", "1"); }).find("not an index"),
            std::string::npos);
  EXPECT_NE(test::config_error_of([&] { apply_override(root, "deployment.tp.x", "1"); }).find("is a scalar"),
            std::string::npos);
  EXPECT_NE(test::config_error_of([&] { apply_override(root, "deployment.tp", "[1, "); }).find("not valid YAML"),
            std::string::npos);
}

TEST(Override, ParseSetArgument) {
  EXPECT_EQ(parse_set_argument("a.b=c=d"), (std::pair<std::string, std::string>{"a.b", "c=d"}));
  EXPECT_EQ(parse_set_argument("a="), (std::pair<std::string, std::string>{"a", ""}));
  EXPECT_NE(test::config_error_of([] { parse_set_argument("a.b"); }).find("expected key.path=value"),
            std::string::npos);
  EXPECT_NE(test::config_error_of([] { parse_set_argument("=1"); }).find("key is empty"), std::string::npos);
}

TEST(Override, AFileSetBlockDoesNotAddKeys) {
  // Only the command line adds keys; a compare entry's `set:` names its own line when a key is missing.
  YAML::Node root = YAML::Load(kScenario);
  const std::string e = test::config_error_of([&] {
    apply_override(root, "workload.num_requests", YAML::Load("16"), SourceLocation{"s.yaml", 7, 9});
  });
  EXPECT_NE(e.find("s.yaml:7:9"), std::string::npos) << e;
  EXPECT_NE(e.find("no key 'num_requests' under 'workload'"), std::string::npos) << e;
  EXPECT_FALSE(root["workload"]["num_requests"]);
}

TEST(Override, SplitKeyPathKeepsEmptyComponents) {
  EXPECT_EQ(split_key_path("a.0.b"), (std::vector<std::string>{"a", "0", "b"}));
  EXPECT_EQ(split_key_path("a..b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_NE(test::config_error_of([] {
              YAML::Node root = YAML::Load(kScenario);
              apply_override(root, "deployment..tp", "2");
            }).find("empty component"),
            std::string::npos);
}
