// Unit tests for what `make fuzz` found in loaders outside a fuzz target's own reader
// (docs/fuzzing.md, "Findings"): each failed before its fix.
#include <gtest/gtest.h>

#include <string>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "hardware/hardware_loader.hpp"
#include "scenario/schema/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/scenario/scenario_test_util.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

// A file name longer than the file system allows (NAME_MAX is 255 bytes on Linux).
const std::string kLongName(300, 'd');

std::string shipped(const std::string& rel) { return testing::read_file(engramsim::test::source_root() + "/" + rel); }

std::string replaced_line(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// std::filesystem::is_regular_file(path) throws filesystem_error ("File name too long") for such a
// name: `engramsim validate` ended in std::terminate instead of a located error.
TEST(FuzzFindings, AModelOrNodeNameTooLongForTheFileSystemIsUnknown) {
  const fuzz::ScratchDir dir;
  const std::string text = shipped("scenarios/default.yaml");
  for (const auto& [from, field] :
       {std::pair<std::string, std::string>{"model: deepseek-v4.1-flash", "model"}, {"node: hgx-b300", "node"}}) {
    const std::string path = dir.write("scenario.yaml", replaced_line(text, from, field + ": " + kLongName));
    const std::string msg = test::config_error_of([&] { scenario::parse_scenario(ConfigNode::load_file(path)); });
    EXPECT_NE(msg.find(path + ":"), std::string::npos) << msg;
    EXPECT_NE(msg.find(field + ": no "), std::string::npos) << msg;
  }
}

// The same for a path beside the scenario (resolve_data_path), here a trace.
TEST(FuzzFindings, ATracePathTooLongForTheFileSystemIsMissing) {
  const fuzz::ScratchDir dir;
  const std::string text = shipped("scenarios/agentx-v41-b200-tp4.yaml");
  const std::string path = dir.write(
      "scenario.yaml",
      replaced_line(text, "trace: traces/agentx-synthetic-seed42.jsonl.gz", "trace: " + kLongName + ".jsonl"));
  const std::string msg = test::config_error_of([&] { scenario::parse_scenario(ConfigNode::load_file(path)); });
  EXPECT_NE(msg.find("workload.trace: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("no such file"), std::string::npos) << msg;
}

// And for a node preset's `gpu:`.
TEST(FuzzFindings, ANodeGpuNameTooLongForTheFileSystemIsUnknown) {
  const fuzz::ScratchDir dir;
  const std::string path = dir.write(
      "node.yaml", replaced_line(shipped("hardware/nodes/hgx-h100.yaml"), "gpu: h100-sxm", "gpu: " + kLongName));
  const std::string msg = test::config_error_of([&] { load_node(path); });
  EXPECT_NE(msg.find(path + ":5:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown GPU"), std::string::npos) << msg;
}

}  // namespace
}  // namespace engramsim
