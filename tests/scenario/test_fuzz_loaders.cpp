// Every loader against damaged copies of a valid file: characters deleted, inserted or replaced,
// lines repeated, swapped or cut. Each copy must load or be refused with a ConfigError (exit 2 in
// the CLI); any other exception, a crash or a sanitizer report is a defect. The damage is drawn
// from a fixed seed, so a failure names a copy that reproduces; it is also kept beside the test's
// scratch folder for reading.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "hardware/calibration_profile.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario_test_util.hpp"
#include "sim/workload/trace_format.hpp"
#include "tests/support/test_paths.hpp"
#include "validation/validation_case.hpp"

namespace engramsim::sim {

using namespace engramsim::scenario;
namespace {

constexpr int kCopiesPerFile = 150;

std::string source(const std::string& rel) { return testing::read_file(engramsim::test::source_root() + "/" + rel); }

std::string first_lines(const std::string& text, int n) {
  std::istringstream in(text);
  std::string out, line;
  for (int i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// One to three edits of `text`.
std::string damage(const std::string& text, std::mt19937_64& rng) {
  static const std::string alphabet = "0123456789abcxyzAZ:-.,#[]{}\"' \t\n/\\e+%";
  std::string s = text;
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const std::size_t at = rng() % s.size();
    switch (rng() % 7) {
      case 0:
        s.erase(at, 1 + rng() % 8);
        break;
      case 1:
        s.insert(at, 1, alphabet[rng() % alphabet.size()]);
        break;
      case 2:
        s[at] = alphabet[rng() % alphabet.size()];
        break;
      case 3:
        s.resize(at);
        break;
      case 4: {
        std::vector<std::string> lines = split_lines(s);
        if (lines.size() > 1) {
          const std::size_t i = rng() % (lines.size() - 1);
          std::swap(lines[i], lines[i + 1]);
        }
        s = join(lines);
        break;
      }
      case 5: {
        std::vector<std::string> lines = split_lines(s);
        if (!lines.empty()) {
          const std::size_t i = rng() % lines.size();
          lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i), lines[i]);
        }
        s = join(lines);
        break;
      }
      default: {  // a digit becomes a large, negative or fractional number
        const std::size_t d = s.find_first_of("0123456789", at);
        if (d != std::string::npos) s.replace(d, 1, rng() % 2 ? "99999999999999999999" : "-0.5");
        break;
      }
    }
  }
  return s;
}

// Writes each damaged copy to `name` in a scratch folder and calls `load` on its path.
void fuzz(const std::string& name, const std::string& valid, const std::function<void(const std::string&)>& load,
          std::uint64_t seed) {
  testing::ScratchDir dir;
  const std::string path = dir.file(name);
  // The undamaged file loads: otherwise the test would only ever see refusals.
  testing::write_file(path, valid);
  ASSERT_NO_THROW(load(path)) << name;
  std::mt19937_64 rng(seed);
  int refused = 0;
  for (int i = 0; i < kCopiesPerFile; ++i) {
    const std::string copy = damage(valid, rng);
    testing::write_file(path, copy);
    try {
      load(path);
    } catch (const ConfigError&) {
      ++refused;
    } catch (const std::exception& e) {
      const std::string kept = engramsim::test::binary_dir() + "/fuzz-failure-" + name;
      testing::write_file(kept, copy);
      ADD_FAILURE() << name << " copy " << i << " (kept as " << kept << "): not a ConfigError: " << e.what();
    }
  }
  EXPECT_GT(refused, 0) << name << ": no damaged copy was refused";
}

void read_all(const std::string& path, const std::string& format) {
  auto s = open_trace(path, format);
  Request r;
  while (s->next(r)) {
  }
}

// The inputs the longer fuzz runs found, kept as fixed cases: a stray ',' where a YAML value should
// start (the YAML library's document loop allocated until the process was killed) and a JSON number
// beyond double's range (it escaped as a non-input error).
TEST(FuzzLoaders, InputsLongerRunsFound) {
  testing::ScratchDir dir;
  const auto refused = [&](const std::string& name, const std::string& text,
                           const std::function<void(const std::string&)>& load) {
    const std::string path = dir.file(name);
    testing::write_file(path, text);
    EXPECT_THROW(load(path), ConfigError) << name;
  };
  for (const std::string& text :
       {std::string(",\n"), std::string("# c\n,ame: x\n"), std::string("name: x\n---\n, y\n")}) {
    refused("engine.yaml", text, [](const std::string& p) { load_engine(p); });
    refused("gpu.yaml", text, [](const std::string& p) { load_gpu(p); });
    refused("card.yaml", text, [](const std::string& p) { load_model_card(p); });
    refused("scenario.yaml", text, [](const std::string& p) { scenario::parse_scenario(ConfigNode::load_file(p)); });
  }
  refused("overflow.jsonl", "{\"timestamp\": 1e999, \"input_length\": 5, \"output_length\": 1}\n",
          [](const std::string& p) { read_all(p, "mooncake"); });
}

TEST(FuzzLoaders, CatalogFilesAndProfiles) {
  fuzz(
      "card.yaml", source("models/cards/llama-3.1-8b.yaml"), [](const std::string& p) { load_model_card(p); }, 1);
  fuzz(
      "mla-card.yaml", source("models/cards/deepseek-v4.1-flash.yaml"),
      [](const std::string& p) { load_model_card(p); }, 2);
  fuzz(
      "gpu.yaml", source("hardware/gpus/h100-sxm.yaml"), [](const std::string& p) { load_gpu(p); }, 3);
  fuzz(
      "node.yaml", source("hardware/nodes/hgx-h100.yaml"), [](const std::string& p) { load_node(p); }, 4);
  fuzz(
      "engine.yaml", source("models/engines/nano-vllm.yaml"), [](const std::string& p) { load_engine(p); }, 5);
  fuzz(
      "profile.yaml", source("hardware/calibrations/dev-vm-epyc-2c.yaml"),
      [](const std::string& p) { parse_calibration_profile(testing::read_file(p), p); }, 6);
}

TEST(FuzzLoaders, ValidationCases) {
  // The first cases of the shipped set, each with its reproduction (the loader resolves scenario
  // files beside the set, so the copy sits where the set does).
  const std::string set = source("scenarios/validation/cases.yaml");
  const std::size_t third = set.find("\n  - id:", set.find("\n  - id:", set.find("\n  - id:") + 1) + 1);
  fuzz(
      "cases.yaml", set.substr(0, third) + "\n", [](const std::string& p) { validation::load_validation_set(p); }, 16);
}

TEST(FuzzLoaders, Scenarios) {
  fuzz(
      "scenario.yaml", source("scenarios/v41-ssd-tier.yaml"),
      [](const std::string& p) { scenario::parse_scenario(ConfigNode::load_file(p)); }, 7);
  fuzz(
      "trace-scenario.yaml", source("scenarios/azure-conv-llama70b-h100.yaml"),
      [](const std::string& p) { scenario::parse_scenario(ConfigNode::load_file(p)); }, 8);
  fuzz(
      "disaggregated-scenario.yaml", source("scenarios/disagg-v41-agentx-b200.yaml"),
      [](const std::string& p) { scenario::parse_scenario(ConfigNode::load_file(p)); }, 17);
}

TEST(FuzzLoaders, Traces) {
  fuzz(
      "azure.csv", first_lines(source("scenarios/traces/AzureLLMInferenceTrace_conv.csv"), 30),
      [](const std::string& p) { read_all(p, "azure"); }, 9);
  fuzz(
      "vidur.csv", first_lines(source("scenarios/traces/splitwise_conv.csv"), 30),
      [](const std::string& p) { read_all(p, "vidur"); }, 10);
  fuzz(
      "auto.csv", first_lines(source("scenarios/traces/splitwise_conv.csv"), 30),
      [](const std::string& p) { read_all(p, "auto"); }, 11);
  const std::string mooncake =
      "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0, 1]}\n"
      "{\"timestamp\": 10, \"input_length\": 1100, \"output_length\": 7, \"hash_ids\": [0, 1, 2]}\n"
      "{\"timestamp\": 25, \"input_length\": 90, \"output_length\": 2, \"hash_ids\": [3]}\n";
  fuzz(
      "mooncake.jsonl", mooncake, [](const std::string& p) { read_all(p, "mooncake"); }, 12);
  const std::string bailian =
      "{\"chat_id\": 4, \"parent_chat_id\": -1, \"timestamp\": 0.5, \"input_length\": 40, \"output_length\": 5, "
      "\"type\": \"text\", \"turn\": 1, \"hash_ids\": [1, 2]}\n"
      "{\"chat_id\": 9, \"parent_chat_id\": 4, \"timestamp\": 2.0, \"input_length\": 70, \"output_length\": 3, "
      "\"type\": \"text\", \"turn\": 2, \"hash_ids\": [1, 2, 3, 4]}\n";
  fuzz(
      "bailian.jsonl", bailian, [](const std::string& p) { read_all(p, "bailian"); }, 13);
  const std::string burst =
      "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
      "5,ChatGPT,472,18,490,Conversation log\n"
      "45,GPT-4,1087,3,1090,Conversation log\n"
      "46,ChatGPT,417,276,693,API log\n";
  fuzz(
      "burstgpt.csv", burst, [](const std::string& p) { read_all(p, "burstgpt"); }, 14);
  const std::string canonical =
      "arrival_s,input_tokens,output_tokens,session,hash_ids\n0,600,4,1,[1;2]\n0.5,700,3,1,[1;2]\n";
  fuzz(
      "canonical.csv", canonical, [](const std::string& p) { read_all(p, "canonical"); }, 15);
}

}  // namespace
}  // namespace engramsim::sim
