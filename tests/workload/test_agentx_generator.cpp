// The synthetic AgentX generator: determinism, round trip through the writer and the reader, and
// its statistics against the published corpus figures (docs/agentic.md "Generator").
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "sim/workload/agentx_generator.hpp"
#include "sim/workload/agentx_trace_reader.hpp"
#include "tests/support/file_text.hpp"
#include "tests/support/scratch_files.hpp"
#include "tests/support/test_paths.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

const engramsim::test::ScratchFiles files("engramsim_test_agentx_");

std::string corpus_text(std::uint64_t seed, std::int32_t sessions) {
  AgentxGeneratorParams p;
  p.seed = seed;
  p.sessions = sessions;
  auto g = make_agentx_generator(p);
  std::ostringstream os;
  write_agentx_trace(*g, os);
  return os.str();
}

std::string file_bytes(const std::string& path) { return test::file_text(path); }

bool same_call(const AgenticCall& a, const AgenticCall& b) {
  return a.start == b.start && a.api_time == b.api_time && a.think_time == b.think_time &&
         a.input_tokens == b.input_tokens && a.output_tokens == b.output_tokens && a.type == b.type &&
         a.hash_ids == b.hash_ids;
}

bool same_session(const AgenticSession& a, const AgenticSession& b) {
  if (a.id != b.id || a.block_tokens != b.block_tokens || a.entries.size() != b.entries.size()) return false;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    if (a.entries[i].index() != b.entries[i].index()) return false;
    if (const auto* c = std::get_if<AgenticCall>(&a.entries[i])) {
      if (!same_call(*c, std::get<AgenticCall>(b.entries[i]))) return false;
      continue;
    }
    const auto& ga = std::get<AgenticSubagent>(a.entries[i]);
    const auto& gb = std::get<AgenticSubagent>(b.entries[i]);
    if (ga.agent_id != gb.agent_id || ga.calls.size() != gb.calls.size()) return false;
    for (std::size_t k = 0; k < ga.calls.size(); ++k)
      if (!same_call(ga.calls[k], gb.calls[k])) return false;
  }
  return true;
}

}  // namespace

TEST(AgentxGenerator, SameSeedSameBytesOtherSeedOtherBytes) {
  EXPECT_EQ(corpus_text(42, 3), corpus_text(42, 3));
  EXPECT_NE(corpus_text(42, 3), corpus_text(43, 3));
  // Session k does not depend on how many sessions are drawn.
  const std::string two = corpus_text(42, 2);
  EXPECT_EQ(corpus_text(42, 3).substr(0, two.size()), two);
  // The gzip file is deterministic too (no time stamp in the header).
  AgentxGeneratorParams p;
  p.sessions = 2;
  auto g1 = make_agentx_generator(p);
  auto g2 = make_agentx_generator(p);
  const std::string a = files.path("a.jsonl.gz"), b = files.path("b.jsonl.gz");
  EXPECT_EQ(write_agentx_trace_file(*g1, a), 2);
  EXPECT_EQ(write_agentx_trace_file(*g2, b), 2);
  EXPECT_EQ(file_bytes(a), file_bytes(b));
}

TEST(AgentxGenerator, RoundTripsThroughWriterAndReader) {
  AgentxGeneratorParams p;
  p.sessions = 6;
  for (const char* name : {"rt.jsonl", "rt.jsonl.gz"}) {
    const std::string path = files.path(name);
    auto w = make_agentx_generator(p);
    ASSERT_EQ(write_agentx_trace_file(*w, path), 6);
    auto expect = make_agentx_generator(p);
    auto got = open_agentx_trace(path);
    AgenticSession a, b;
    int n = 0;
    while (expect->next(a)) {
      ASSERT_TRUE(got->next(b)) << name;
      EXPECT_TRUE(same_session(a, b)) << name << " session " << n;
      ++n;
    }
    EXPECT_FALSE(got->next(b));
    EXPECT_EQ(n, 6);
  }
}

TEST(AgentxGenerator, RejectsBadParams) {
  AgentxGeneratorParams p;
  p.sessions = 0;
  EXPECT_THROW(make_agentx_generator(p), ConfigError);
  p.sessions = 1;
  p.max_model_len = 4096;
  EXPECT_THROW(make_agentx_generator(p), ConfigError);
}

// The shipped corpus is what its documented command writes (scenarios/traces/README.md).
TEST(AgentxGenerator, ShippedCorpusIsTheSeed42Output) {
  AgentxGeneratorParams p;
  p.sessions = 6;
  auto expect = make_agentx_generator(p);
  auto got = open_agentx_trace(engramsim::test::source_root() + "/scenarios/traces/agentx-synthetic-seed42.jsonl.gz");
  AgenticSession a, b;
  while (expect->next(a)) {
    ASSERT_TRUE(got->next(b));
    EXPECT_TRUE(same_session(a, b)) << a.id;
  }
  EXPECT_FALSE(got->next(b));
}
