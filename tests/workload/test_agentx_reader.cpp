// The AgentX (Weka trace v7) reader: a good tree read from plain and gzip files, and each bad
// value named by its exact file:line:col and field.
#include <gtest/gtest.h>
#include <zlib.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "sim/workload/agentx_trace_reader.hpp"
#include "sim/workload/line_reader.hpp"
#include "tests/support/scratch_files.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

const engramsim::test::ScratchFiles files("engramsim_test_agentx_reader_");

const std::string kSubCall =
    R"({"t":2,"type":"n","model":"m","in":64,"out":7,"hash_ids":[21],"api_time":0.5,"input_types":["text"],)"
    R"("output_types":["text"],"stop":"end_turn"})";
const std::string kGood =
    R"({"id":"s1","models":["m"],"block_size":64,"hash_id_scope":"local","tool_tokens":10,"requests":[)"
    R"({"t":0,"type":"n","model":"m","in":100,"out":5,"hash_ids":[11,12],"api_time":1.5,"input_types":["text"],)"
    R"("output_types":["text"],"stop":"end_turn"},)"
    R"({"type":"subagent","agent_id":"a1","subagent_type":"general-purpose","status":"completed","duration_ms":900,)"
    R"("models":["m"],"requests":[)" +
    kSubCall +
    R"(]},)"
    R"({"t":3.25,"type":"s","model":"m","in":129,"out":9,"hash_ids":[11,12,13],"api_time":2,"think_time":0.75,)"
    R"("input_types":["text"],"output_types":["text"],"stop":"end_turn"}]})";

std::string replaced(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

std::vector<AgenticSession> read_all(const std::string& path) {
  auto src = open_agentx_trace(path);
  std::vector<AgenticSession> all;
  AgenticSession s;
  while (src->next(s)) all.push_back(s);
  return all;
}

}  // namespace

TEST(AgentxReader, ReadsATreePlainAndGzip) {
  for (const std::string& path : {files.write("good.jsonl", kGood + "\n\n" + kGood + "\n"),
                                  files.write_gz("good.jsonl.gz", kGood + "\n" + kGood)}) {
    const auto all = read_all(path);
    ASSERT_EQ(all.size(), 2u) << path;
    const AgenticSession& s = all[0];
    EXPECT_EQ(s.id, "s1");
    EXPECT_EQ(s.block_tokens, 64);
    ASSERT_EQ(s.entries.size(), 3u);
    const auto& first = std::get<AgenticCall>(s.entries[0]);
    EXPECT_EQ(first.input_tokens, 100);
    EXPECT_EQ(first.output_tokens, 5);
    EXPECT_EQ(first.api_time, Time::ns(1'500'000'000));
    EXPECT_EQ(first.hash_ids, (std::vector<std::uint64_t>{11, 12}));
    const auto& group = std::get<AgenticSubagent>(s.entries[1]);
    EXPECT_EQ(group.agent_id, "a1");
    ASSERT_EQ(group.calls.size(), 1u);
    EXPECT_EQ(group.calls[0].start, Time::ns(2'000'000'000));
    const auto& last = std::get<AgenticCall>(s.entries[2]);
    EXPECT_EQ(last.type, AgenticCallType::subagent_call);
    EXPECT_EQ(last.start, Time::ns(3'250'000'000));
    EXPECT_EQ(last.think_time, Time::ns(750'000'000));
  }
}

TEST(AgentxReader, ZeroOutputIsClampedAndCountedSmallOverlapIsRounding) {
  const std::string path = files.write(
      "zero.jsonl", replaced(R"("out":5)", R"("out":0)") + "\n" + replaced(R"("t":3.25)", R"("t":1.4995)") + "\n");
  AgentxTraceSource src(path);
  AgenticSession s;
  ASSERT_TRUE(src.next(s));
  EXPECT_EQ(std::get<AgenticCall>(s.entries[0]).output_tokens, 1);
  ASSERT_TRUE(src.next(s));
  EXPECT_EQ(std::get<AgenticCall>(s.entries[2]).start, Time::ns(1'500'000'000));  // moved to the previous end
  EXPECT_FALSE(src.next(s));
  EXPECT_EQ(src.zero_outputs_clamped(), 1u);
  EXPECT_NE(src.describe().find("1 calls with out = 0"), std::string::npos);
}

// Each case: the good line with `from` replaced by `to`, written as line 2 after a good line; the
// error names line 2, the column of `value` (its first occurrence within `to`, or `marker` in the
// line when given), the field and part of the message.
TEST(AgentxReader, BadValuesNameFileLineColumnAndField) {
  struct Case {
    std::string from, to, value, field, message, marker;
  };
  const std::string sub_reqs = R"("requests":[)" + kSubCall + "]";
  const std::vector<Case> cases = {
      {R"("in":100)", R"("in":0)", "0", "requests[0].in", "must be >= 1", ""},
      {R"("out":5)", R"("out":-1)", "-1", "requests[0].out", "must be >= 0", ""},
      {R"("hash_ids":[11,12])", R"("hash_ids":[11])", "[11]", "requests[0].hash_ids",
       "expected ceil(in / block_size) = 2", ""},
      {R"("hash_ids":[11,12])", R"("hash_ids":[11,-12])", "-12", "requests[0].hash_ids[1]", "non-negative integer", ""},
      {R"({"t":0,)", R"({"t":-1,)", "-1", "requests[0].t", "must be >= 0", ""},
      {R"("api_time":1.5)", R"("api_time":"x")", "\"x\"", "requests[0].api_time", "not a number", ""},
      {R"("type":"s")", R"("type":"q")", "\"q\"", "requests[2].type", "unknown type 'q'", ""},
      {R"("type":"s","model":"m",)", R"("type":"s",)", "", "requests[2].model", "missing field", R"({"t":3.25)"},
      {sub_reqs, R"("requests":[])", "[]", "requests[1].requests", "without calls", ""},
      {R"("in":64,)", R"("in":64.5,)", "64.5", "requests[1].requests[0].in", "not an integer", ""},
      {R"("in":64,)", R"("in":65,)", "[21]", "requests[1].requests[0].hash_ids", "expected ceil", R"([21])"},
      {R"("type":"n","model":"m","in":64)", R"("type":"subagent","model":"m","in":64)", "\"subagent\"",
       "requests[1].requests[0].type", "inside a subagent group", ""},
      {R"("t":3.25)", R"("t":1.0)", "1.0", "requests[2].t", "before the previous call of this agent ended", ""},
      {R"("block_size":64)", R"("block_size":0)", "0", "block_size", "must be >= 1", ""},
      {R"("hash_id_scope":"local")", R"("hash_id_scope":"global")", "\"global\"", "hash_id_scope", "only \"local\"",
       ""},
      {R"("tool_tokens":10)", R"("tool_tokens":-3)", "-3", "tool_tokens", "must be >= 0", ""},
      {R"("duration_ms":900)", R"("duration_ms":-1)", "-1", "requests[1].duration_ms", "must be >= 0", ""},
      {R"({"id":"s1",)", R"({)", "", "id", "missing field", R"({"models")"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string line = replaced(c.from, c.to);
    const std::size_t at = c.marker.empty() ? line.find(c.to) + c.to.find(c.value) : line.find(c.marker);
    ASSERT_NE(at, std::string::npos) << c.field;
    const std::string path = files.write("bad" + std::to_string(n++) + ".jsonl", kGood + "\n" + line + "\n");
    const std::string want = path + ":2:" + std::to_string(at + 1) + ": " + c.field + ": ";
    try {
      read_all(path);
      ADD_FAILURE() << "no error for " << c.field;
    } catch (const ConfigError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(want, 0), 0u) << "want " << want << "\n got " << msg;
      EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
    }
  }
}

// Each of t and api_time fits the clock, their sum does not: it overflowed (undefined behaviour,
// found by tests/fuzz/fuzz_agentx_trace.cpp under UBSan); now refused at api_time.
TEST(AgentxReader, ACallEndingBeyondTheClockIsRefused) {
  std::string line = replaced(R"({"t":0,)", R"({"t":9e9,)");
  const std::string api = R"("api_time":1.5)";
  line.replace(line.find(api), api.size(), R"("api_time":9e9)");
  const std::string path = files.write("beyond-clock.jsonl", line + "\n");
  const std::size_t at = line.find(R"("api_time":9e9)") + std::string(R"("api_time":)").size();
  try {
    read_all(path);
    ADD_FAILURE() << "no error for t + api_time beyond the clock";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    const std::string want = path + ":1:" + std::to_string(at + 1) + ": requests[0].api_time: ";
    EXPECT_EQ(msg.rfind(want, 0), 0u) << "want " << want << "\n got " << msg;
    EXPECT_NE(msg.find("beyond the nanosecond clock"), std::string::npos) << msg;
  }
}

TEST(AgentxReader, WholeLineErrors) {
  const auto expect_error = [](const std::string& path, const std::string& where, const std::string& what) {
    try {
      read_all(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const ConfigError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(path + ":" + where, 0), 0u) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  const std::string only_sub = R"({"id":"s2","models":["m"],"block_size":64,"hash_id_scope":"local","requests":[)"
                               R"({"type":"subagent","agent_id":"a","subagent_type":"x","status":"ok","duration_ms":1,)"
                               R"("models":[],"requests":[)" +
                               kSubCall + "]}]}";
  const std::size_t reqs = only_sub.find(R"([{"type")");
  expect_error(files.write("nomain.jsonl", only_sub + "\n"),
               "1:" + std::to_string(reqs + 1) + ": requests: ", "without a main-agent call");
  expect_error(files.write("trunc.jsonl", kGood.substr(0, 40) + "\n"), "1:", "invalid JSON");
  expect_error(files.write("array.jsonl", "[1,2]\n"), "1:1: ", "expected a JSON object");
  expect_error(files.write("empty.jsonl", "\n\n"), "2: ", "holds no session");
  expect_error(files.write("missing.jsonl", ""), "", "holds no session");
  EXPECT_THROW(open_agentx_trace(files.path("absent.jsonl")), ConfigError);
}

TEST(AgentxReader, LineLengthLimit) {
  const std::string path = files.write("long.txt", "short\n" + std::string(5000, 'x') + "\n");
  LineReader r(path, 4096);
  std::string_view line;
  ASSERT_TRUE(r.next(line));
  try {
    r.next(line);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ":2: line longer than 4096 bytes, the limit for one line of this format (no newline?)");
  }
}

TEST(AgentxReader, JsonPathColumn) {
  const std::string line = R"({"a": {"b": [10, {"c": "x,]"}, 30]}, "a": 5})";
  const JsonStep last_a[] = {{"a", -1}};
  EXPECT_EQ(json_path_column(line, last_a, 1), static_cast<int>(line.find("5}")) + 1);  // a repeated key: the last
  const std::string nested = R"({"r": [{"k": 1}, {"k": [7, 8]}]})";
  const JsonStep steps[] = {{"r", -1}, {{}, 1}, {"k", -1}, {{}, 1}};
  EXPECT_EQ(json_path_column(nested, steps, 4), static_cast<int>(nested.find('8')) + 1);
  const JsonStep absent[] = {{"r", -1}, {{}, 5}};
  EXPECT_EQ(json_path_column(nested, absent, 2), 0);
}
