#include <gtest/gtest.h>
#include <zlib.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "sim/workload/line_reader.hpp"
#include "sim/workload/timestamp.hpp"
#include "sim/workload/trace_format.hpp"
#include "sim/workload/transformed_source.hpp"
#include "tests/support/scratch_files.hpp"
#include "tests/support/test_paths.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

std::string trace_path(const std::string& name) { return engramsim::test::source_root() + "/scenarios/traces/" + name; }

const engramsim::test::ScratchFiles files("engramsim_test_sim_");

struct Stats {
  std::uint64_t n = 0;
  std::int64_t in = 0, out = 0;
  Time first, last;
  std::size_t hashes = 0;
};

Stats read_all(RequestSource& s) {
  Stats st;
  Request r;
  while (s.next(r)) {
    if (st.n == 0) st.first = r.arrival;
    EXPECT_GE(r.arrival, st.last);
    st.last = r.arrival;
    ++st.n;
    st.in += r.prompt_tokens;
    st.out += r.output_tokens;
    st.hashes += r.prefix_hashes.size();
  }
  return st;
}

// Expects a ConfigError whose text starts with "<file>:<line>:" and contains `what`.
// `where` is "line" or "line:col: field" as the message starts after the path.
void expect_trace_error(const std::string& path, const std::string& format, const std::string& where,
                        const std::string& what) {
  try {
    auto src = open_trace(path, format);
    read_all(*src);
    ADD_FAILURE() << "no error for " << path;
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path + ":" + where + ":", 0), 0u) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

}  // namespace

TEST(Timestamp, ParsesBothAzureGenerations) {
  std::int64_t a = 0, b = 0, c = 0;
  ASSERT_TRUE(parse_timestamp_ns("2023-11-16 18:15:46.6805900", a));
  EXPECT_EQ(a, (days_from_civil(2023, 11, 16) * 86400 + 18 * 3600 + 15 * 60 + 46) * 1000000000LL + 680590000LL);
  ASSERT_TRUE(parse_timestamp_ns("2024-05-10 00:00:00.0090000+00:00", b));
  EXPECT_EQ(b, days_from_civil(2024, 5, 10) * 86400 * 1000000000LL + 9000000LL);
  ASSERT_TRUE(parse_timestamp_ns("2024-05-10T02:00:00+02:00", c));
  EXPECT_EQ(c, days_from_civil(2024, 5, 10) * 86400 * 1000000000LL);
  EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
  EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
  std::int64_t x = 0;
  EXPECT_FALSE(parse_timestamp_ns("2023-13-16 18:15:46", x));
  EXPECT_FALSE(parse_timestamp_ns("yesterday", x));
  EXPECT_FALSE(parse_timestamp_ns("2023-11-16 18:15:46.", x));
  EXPECT_FALSE(parse_timestamp_ns("2023-11-16 18:15:46+0", x));
  // Dates that do not exist, leap seconds and years whose nanoseconds overflow are not timestamps.
  EXPECT_FALSE(parse_timestamp_ns("2023-02-31 18:15:46", x));
  EXPECT_FALSE(parse_timestamp_ns("2023-02-29 00:00:00", x));
  EXPECT_TRUE(parse_timestamp_ns("2024-02-29 00:00:00", x));
  EXPECT_FALSE(parse_timestamp_ns("2023-11-16 18:15:60", x));
  EXPECT_FALSE(parse_timestamp_ns("9999-12-31 23:59:59", x));
}

TEST(TraceReaders, AzureConversationTrace) {
  auto s = open_trace(trace_path("AzureLLMInferenceTrace_conv.csv"), "azure");
  const Stats st = read_all(*s);
  EXPECT_EQ(st.n, 19366u);
  EXPECT_EQ(st.first, Time::zero());
  EXPECT_NEAR(static_cast<double>(st.in) / st.n, 1155, 1);
  EXPECT_NEAR(static_cast<double>(st.out) / st.n, 211, 1);
  EXPECT_NEAR(st.last.seconds(), 58 * 60, 120);
}

TEST(TraceReaders, AzureAndVidurCopiesOfTheSameTraceAgree) {
  auto a = open_trace(trace_path("AzureLLMInferenceTrace_conv.csv"), "auto");
  auto v = open_trace(trace_path("splitwise_conv.csv"), "auto");
  Request ra, rv;
  for (int i = 0; i < 19366; ++i) {
    ASSERT_TRUE(a->next(ra));
    ASSERT_TRUE(v->next(rv));
    ASSERT_EQ(ra.prompt_tokens, rv.prompt_tokens) << i;
    ASSERT_EQ(ra.output_tokens, rv.output_tokens) << i;
    ASSERT_NEAR(ra.arrival.seconds(), rv.arrival.seconds(), 1e-5) << i;
  }
  EXPECT_FALSE(a->next(ra));
  EXPECT_FALSE(v->next(rv));
}

TEST(TraceReaders, MooncakeGzipTraceWithPrefixHashes) {
  auto s = open_trace(trace_path("conversation_trace.jsonl.gz"), "auto");
  Request r;
  ASSERT_TRUE(s->next(r));
  EXPECT_EQ(r.prompt_tokens, 6758);
  EXPECT_EQ(r.output_tokens, 500);
  EXPECT_EQ(r.hash_block_tokens, 512);
  EXPECT_EQ(r.prefix_hashes.size(), 14u);
  const Stats st = read_all(*s);
  EXPECT_EQ(st.n + 1, 12031u);
  EXPECT_NEAR(st.last.seconds(), 59 * 60, 120);
}

TEST(TraceReaders, Azure2024FormatWithZone) {
  const std::string p = files.write("azure2024.csv",
                                    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                    "2024-05-10 00:00:00.0090000+00:00,100,10\n"
                                    "2024-05-10 00:00:01.5090000+00:00,200,20\n");
  auto s = open_trace(p, "auto");
  Request r;
  ASSERT_TRUE(s->next(r));
  EXPECT_EQ(r.arrival, Time::zero());
  ASSERT_TRUE(s->next(r));
  EXPECT_EQ(r.arrival, Time::ms(1500));
  EXPECT_EQ(r.prompt_tokens, 200);
  EXPECT_FALSE(s->next(r));
}

TEST(TraceReaders, BurstGptBailianAndCanonical) {
  const std::string burst = files.write("burst.csv",
                                        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                                        "5,ChatGPT,472,18,490,Conversation log\n"
                                        "45,GPT-4,1087,0,1087,Conversation log\n"
                                        "46,ChatGPT,417,276,693,API log\n");
  TraceOptions skip;
  skip.skip_zero_output = true;
  auto b = open_trace(burst, "auto", skip);
  const Stats bs = read_all(*b);
  EXPECT_EQ(bs.n, 2u);
  EXPECT_EQ(bs.last, Time::from_seconds(41));
  expect_trace_error(burst, "burstgpt", "3:15: Response tokens", "output tokens must be >= 1");

  const std::string bailian = files.write(
      "bailian.jsonl",
      R"({"chat_id": 10, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 5, "type": "text", "turn": 1, "hash_ids": [1, 2]})"
      "\n"
      R"({"chat_id": 11, "parent_chat_id": -1, "timestamp": 0.75, "input_length": 30, "output_length": 5, "type": "text", "turn": 1, "hash_ids": [3]})"
      "\n"
      R"({"chat_id": 12, "parent_chat_id": 10, "timestamp": 2.5, "input_length": 90, "output_length": 7, "type": "text", "turn": 2, "hash_ids": [1, 2, 4, 5, 6, 7]})"
      "\n");
  auto q = open_trace(bailian, "auto");
  Request r0, r1, r2;
  ASSERT_TRUE(q->next(r0));
  ASSERT_TRUE(q->next(r1));
  ASSERT_TRUE(q->next(r2));
  EXPECT_EQ(r0.session, r2.session);  // second turn joins the first turn's session
  EXPECT_NE(r0.session, r1.session);
  EXPECT_NE(r0.session, 0u);
  EXPECT_EQ(r2.arrival, Time::from_seconds(2.0));
  EXPECT_EQ(r2.hash_block_tokens, 16);
  EXPECT_EQ(r2.prefix_hashes.size(), 6u);

  const std::string canon = files.write("canon.csv",
                                        "arrival_s,input_tokens,output_tokens,session,hash_ids\n"
                                        "1.0,1000,5,3,\"[7, 8]\"\n"
                                        "1.5,1100,6,0,9;10;11\n"
                                        "2.0,300,7,,\n");
  TraceOptions keep;
  keep.rebase = false;
  auto c = open_trace(canon, "auto", keep);
  Request c0;
  ASSERT_TRUE(c->next(c0));
  EXPECT_EQ(c0.arrival, Time::from_seconds(1.0));
  EXPECT_EQ(c0.session, 3u);
  EXPECT_EQ(c0.prefix_hashes, (std::vector<std::uint64_t>{7, 8}));
  EXPECT_EQ(c0.hash_block_tokens, 512);
  ASSERT_TRUE(c->next(c0));
  EXPECT_EQ(c0.prefix_hashes, (std::vector<std::uint64_t>{9, 10, 11}));
  ASSERT_TRUE(c->next(c0));
  EXPECT_TRUE(c0.prefix_hashes.empty());
  EXPECT_EQ(c0.session, 0u);
}

TEST(TraceReaders, BadTracesNameFileAndLine) {
  // Problems of the file: file:line.
  expect_trace_error(files.write("empty.csv", ""), "vidur", "1", "empty trace");
  expect_trace_error(files.write("header_only.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n"), "vidur", "1",
                     "no requests");
  expect_trace_error(files.write("missing_col.csv", "arrived_at,num_prefill_tokens\n0,1\n"), "vidur", "1",
                     "missing column 'num_decode_tokens'");
  // Problems of a value: file:line:column: field.
  expect_trace_error(files.write("nonnum.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,5\n1,abc,5\n"),
                     "vidur", "3:3: num_prefill_tokens", "not an integer: 'abc'");
  expect_trace_error(files.write("short_row.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,10\n"), "vidur",
                     "2:5: num_decode_tokens", "missing field");
  expect_trace_error(files.write("negative.csv", "arrival_s,input_tokens,output_tokens\n-1,10,5\n"), "canonical",
                     "2:1: arrival_s", "negative timestamp");
  expect_trace_error(files.write("bad_hashes.jsonl",
                                 "{\"timestamp\": 0, \"input_length\": 60000, \"output_length\": 1, "
                                 "\"hash_ids\": [1]}\n"),
                     "mooncake", "1:73: hash_ids", "1 block hashes for 60000 input tokens");
  expect_trace_error(files.write("huge.csv", "arrival_s,input_tokens,output_tokens\n1e12,10,5\n"), "canonical",
                     "2:1: arrival_s", "timestamp out of range");
  expect_trace_error(files.write("long_row.csv", "arrival_s,input_tokens,output_tokens\n0,10,5\n1,10,5,7,8\n"),
                     "canonical", "3:8", "row has 5 fields, the header 3");
  expect_trace_error(
      files.write("decreasing.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,5\n2,10,5\n1.5,10,5\n"),
      "vidur", "4:1: arrived_at", "timestamp decreases");
  expect_trace_error(files.write("zero_out.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,5\n1,10,0\n"),
                     "vidur", "3:6: num_decode_tokens", "output tokens must be >= 1");
  expect_trace_error(files.write("zero_in.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0, 0,5\n"), "vidur",
                     "2:4: num_prefill_tokens", "input tokens must be >= 1");
  expect_trace_error(files.write("bad_time.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 25:00:00,1,1\n"),
                     "azure", "2:1: TIMESTAMP", "not a timestamp");
  expect_trace_error(files.write("quote.csv", "arrival_s,input_tokens,output_tokens\n0,\"10,5\n"), "canonical", "2:3",
                     "unterminated quoted field");
  expect_trace_error(files.write("bad.jsonl", "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1}\n{oops\n"),
                     "mooncake", "2:2", "invalid JSON");
  expect_trace_error(files.write("missing.jsonl", "{\"timestamp\": 0, \"input_length\": 5}\n"), "mooncake",
                     "1:1: output_length", "missing field");
  expect_trace_error(files.write("str.jsonl", "{\"timestamp\": \"0\", \"input_length\": 5, \"output_length\": 1}\n"),
                     "mooncake", "1:15: timestamp", "not a number");
  // A key's name inside a string value is not the key; the message carries the file's position only.
  expect_trace_error(files.write("decoy.jsonl",
                                 "{\"note\": \"input_length\", \"timestamp\": 0, \"input_length\": 0, "
                                 "\"output_length\": 1}\n"),
                     "mooncake", "1:58: input_length", "input tokens must be >= 1");
  expect_trace_error(files.write("bad2.jsonl", "{\"timestamp\": 0, \"input_length\": }\n"), "mooncake", "1:34",
                     "invalid JSON: syntax error");
  expect_trace_error(
      files.write("overflow.jsonl", "{\"timestamp\": 0, \"input_length\": 1e999, \"output_length\": 1}\n"), "mooncake",
      "1:34", "invalid JSON: number overflow");
  expect_trace_error(files.write("csv_quote.csv", "arrival_s,input_tokens,output_tokens\n0,10,\"5\n"), "canonical",
                     "2:6: output_tokens", "unterminated quoted field");
  // BurstGPT: the log's total must be the sum of its two counts.
  expect_trace_error(files.write("burst_total.csv",
                                 "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                                 "5,ChatGPT,472,18,490,Conversation log\n"
                                 "6,ChatGPT,472,18,491,Conversation log\n"),
                     "burstgpt", "3:18: Total tokens", "is not Request tokens + Response tokens (472 + 18)");
  // Bailian: ids and the conversation structure.
  const std::string turn0 =
      "{\"chat_id\": 7, \"parent_chat_id\": -1, \"timestamp\": 0.5, \"input_length\": 20, "
      "\"output_length\": 4, \"type\": \"text\", \"turn\": 1}\n";
  expect_trace_error(files.write("bl_dup.jsonl", turn0 + turn0), "bailian", "2:13: chat_id",
                     "7 already names the request of line 1");
  expect_trace_error(files.write("bl_self.jsonl",
                                 "{\"chat_id\": 3, \"parent_chat_id\": 3, \"timestamp\": 0, "
                                 "\"input_length\": 1, \"output_length\": 1}\n"),
                     "bailian", "1:34: parent_chat_id", "cannot follow itself");
  expect_trace_error(files.write("bl_neg.jsonl",
                                 "{\"chat_id\": -4, \"parent_chat_id\": 2, \"timestamp\": 0, "
                                 "\"input_length\": 1, \"output_length\": 1}\n"),
                     "bailian", "1:13: chat_id", "must be >= 0");
  expect_trace_error(files.write("bl_parent.jsonl",
                                 "{\"chat_id\": 4, \"parent_chat_id\": -2, \"timestamp\": 0, "
                                 "\"input_length\": 1, \"output_length\": 1}\n"),
                     "bailian", "1:34: parent_chat_id", "must be -1");
  expect_trace_error(files.write("bl_huge.jsonl",
                                 "{\"chat_id\": 18446744073709551615, \"parent_chat_id\": -1, "
                                 "\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\n"),
                     "bailian", "1:13: chat_id", "too large");
  EXPECT_THROW(open_trace(files.path("does_not_exist.csv"), "vidur"), ConfigError);
  EXPECT_THROW(open_trace(files.write("x.csv", "a,b,c\n1,2,3\n"), "auto"), ConfigError);
  EXPECT_THROW(open_trace(files.write("y.csv", "a\n"), "nonsense"), ConfigError);
}

TEST(TraceReaders, JsonValueColumnFindsTopLevelKeysOnly) {
  EXPECT_EQ(json_value_column(R"({"a": 1, "b": 2})", "b"), 15);
  EXPECT_EQ(json_value_column(R"({"a":1,"b":2})", "b"), 12);
  // Not a string value that repeats the key, nor a key inside a nested object or array.
  EXPECT_EQ(json_value_column(R"({"note": "b", "x": {"b": 1}, "y": [{"b": 2}], "b": 3})", "b"), 52);
  EXPECT_EQ(json_value_column(R"({"x": {"b": 1}})", "b"), 0);
  // Escaped quotes and braces inside strings do not confuse it.
  EXPECT_EQ(json_value_column(R"({"s": "q\"}{", "b": 4})", "b"), 21);
  // The last of a repeated key, as the parser takes it; an escaped key is not found.
  EXPECT_EQ(json_value_column(R"({"b": 1, "b": 2})", "b"), 15);
  EXPECT_EQ(json_value_column(R"({"\u0062": 1})", "b"), 0);
  EXPECT_EQ(json_value_column(R"({"a": 1})", "b"), 0);
}

TEST(TraceReaders, SixtyFourBitHashIdsAreKept) {
  auto s = open_trace(files.write("u64.jsonl",
                                  "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 2, "
                                  "\"hash_ids\": [18446744073709551615, 9223372036854775808]}\n"),
                      "mooncake");
  Request r;
  ASSERT_TRUE(s->next(r));
  ASSERT_EQ(r.prefix_hashes.size(), 2u);
  EXPECT_EQ(r.prefix_hashes[0], 18446744073709551615ull);
  EXPECT_EQ(r.prefix_hashes[1], 9223372036854775808ull);
}

TEST(TraceReaders, CorruptAndTruncatedGzip) {
  std::string body;
  for (int i = 0; i < 20000; ++i) {
    body += "{\"timestamp\": " + std::to_string(i) + ", \"input_length\": " + std::to_string(100 + i % 7) +
            ", \"output_length\": 3, \"hash_ids\": [" + std::to_string(i) + "]}\n";
  }
  const std::string good = files.write_gz("good.jsonl.gz", body);
  auto s = open_trace(good, "auto");
  EXPECT_EQ(read_all(*s).n, 20000u);

  std::string bytes(std::filesystem::file_size(good), '\0');
  std::ifstream(good, std::ios::binary).read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const std::string truncated = files.write("trunc.jsonl.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW(
      {
        auto t = open_trace(truncated, "mooncake");
        read_all(*t);
      },
      ConfigError);
  std::string flipped = bytes;
  for (std::size_t i = 100; i < 140; ++i) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  const std::string corrupt = files.write("corrupt.jsonl.gz", flipped);
  EXPECT_THROW(
      {
        auto t = open_trace(corrupt, "mooncake");
        read_all(*t);
      },
      ConfigError);
}

TEST(TraceReaders, LinesLongerThanTheReadBuffer) {
  std::string hashes;
  for (int i = 0; i < 60000; ++i) hashes += (i ? ", " : "") + std::to_string(i);  // ~400 KB line
  const std::string p = files.write("long.jsonl",
                                    "{\"timestamp\": 0, \"input_length\": 30720000, \"output_length\": 1, "
                                    "\"hash_ids\": [" +
                                        hashes +
                                        "]}\n"
                                        "{\"timestamp\": 1, \"input_length\": 6, \"output_length\": 2}");
  auto s = open_trace(p, "mooncake");
  Request r;
  ASSERT_TRUE(s->next(r));
  EXPECT_EQ(r.prefix_hashes.size(), 60000u);
  EXPECT_EQ(r.prefix_hashes.back(), 59999u);
  ASSERT_TRUE(s->next(r));  // last line has no newline
  EXPECT_EQ(r.prompt_tokens, 6);
  EXPECT_FALSE(s->next(r));
}

// A file with no newline (a device, a damaged stream) is refused at the line bound rather than read
// into one line until memory runs out, for every format and for format detection.
TEST(TraceReaders, EndlessLinesStopAtTheLineBound) {
  for (const std::string format : {"auto", "canonical", "azure", "mooncake", "vidur", "burstgpt", "bailian"}) {
    try {
      Request r;
      auto s = open_trace("/dev/zero", format);
      s->next(r);
      ADD_FAILURE() << format << ": /dev/zero read without an error";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("/dev/zero:1: line longer than 16 MiB"), std::string::npos) << e.what();
    }
  }
  // 2.1 MB of gzip holding one 24 MiB line, as the fuzzer found it.
  const std::string p =
      files.write_gz("endless.jsonl.gz", "{\"timestamp\": 0, \"hash_ids\": [" + std::string(24 << 20, '1'));
  try {
    auto s = open_trace(p, "mooncake");
    Request r;
    s->next(r);
    ADD_FAILURE() << "an endless gzip line read without an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("endless.jsonl.gz:1: line longer than 16 MiB"), std::string::npos) << e.what();
  }
}

TEST(TransformedSource, WindowScaleAndLimit) {
  const std::string p = files.write("win.csv",
                                    "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                                    "0,1,1\n10,2,1\n20,3,1\n30,4,1\n40,5,1\n");
  TransformParams t;
  t.window_start = Time::from_seconds(10);
  t.window_end = Time::from_seconds(40);
  t.time_scale = 3.0;
  t.rate_scale = 2.0;
  TransformedSource s(open_trace(p, "vidur"), t);
  Request r;
  std::vector<std::pair<Time, int>> got;
  while (s.next(r)) got.emplace_back(r.arrival, r.prompt_tokens);
  EXPECT_EQ(got, (std::vector<std::pair<Time, int>>{
                     {Time::zero(), 2}, {Time::from_seconds(15), 3}, {Time::from_seconds(30), 4}}));
  TransformParams lim;
  lim.max_requests = 2;
  TransformedSource l(open_trace(p, "vidur"), lim);
  EXPECT_EQ(read_all(l).n, 2u);
  EXPECT_THROW(TransformedSource(open_trace(p, "vidur"), TransformParams{Time::zero(), Time::max(), 0.0, 1.0}),
               ConfigError);
}

// A run keeps a record of every request it takes, so a trace has a request bound: the row past it
// is refused at its own line, counted from the window's start (rows before it never reach the run).
TEST(TraceReaders, RequestBoundIsRefusedAtTheRowPastIt) {
  const std::string p =
      files.write("five.csv", "arrival_s,input_tokens,output_tokens\n0,8,2\n1,8,2\n2,8,2\n3,8,2\n4,8,2\n");
  TraceOptions bounded;
  bounded.max_requests = 3;
  try {
    auto s = open_trace(p, "canonical", bounded);
    read_all(*s);
    ADD_FAILURE() << "a trace past its request bound was read whole";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(p + ":5:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than 3 requests"), std::string::npos) << e.what();
  }
  bounded.bound_from_ns = Time::from_seconds(2.0).count_ns();  // rows at 0 s and 1 s do not count
  auto s = open_trace(p, "canonical", bounded);
  EXPECT_EQ(read_all(*s).n, 5u);
}

// A trace is read again by every run: a named pipe is refused without being opened (an open waits
// for a writer), so the refusal is immediate and names the file.
TEST(TraceReaders, NamedPipesAreRefusedWithoutWaiting) {
  const std::string fifo = files.path("pipe.csv");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(trace_file_problem(fifo).find("pipe or FIFO"), std::string::npos);
  EXPECT_EQ(trace_file_problem(files.write("plain.csv", "arrival_s,input_tokens,output_tokens\n0,8,2\n")), "");
  for (const std::string format : {"auto", "canonical", "mooncake"}) {
    try {
      open_trace(fifo, format);
      ADD_FAILURE() << format << ": a named pipe was opened";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(fifo + ": is a pipe or FIFO", 0), 0u) << e.what();
    }
  }
}
