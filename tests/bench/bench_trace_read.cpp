// Trace loading rate: every row of a shipped trace read through open_trace (parse, checks, block
// hashes), in rows/s and bytes/s of the file as stored. The Azure CSV, the Mooncake JSON lines
// (gzip), the synthetic AgentX session trees (gzip) and the Vidur CSV (Splitwise conversation arrivals) are the files
// under scenarios/traces/; Bailian and BurstGPT rows are written once per run in their published layouts, since no such
// file ships.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/workload/agentx_trace_reader.hpp"
#include "sim/workload/trace_format.hpp"
#include "tests/support/test_paths.hpp"

using namespace engramsim;
using namespace engramsim::sim;

namespace {

std::string shipped(const char* name) { return engramsim::test::source_root() + "/scenarios/traces/" + name; }

// 50,000 rows: conversations of 1-4 turns, 16-token hash blocks covering each prompt.
std::string bailian_file() {
  static const std::string path = [] {
    const std::string p = (std::filesystem::temp_directory_path() / "engramsim-bench-bailian.jsonl").string();
    std::ofstream out(p);
    std::int64_t parent = -1;
    for (int i = 0; i < 50000; ++i) {
      const int input = 200 + (i * 37) % 3000;
      const bool first = i % 4 == 0;
      out << "{\"chat_id\": " << i << ", \"parent_chat_id\": " << (first ? -1 : parent)
          << ", \"timestamp\": " << i * 0.01 << ", \"input_length\": " << input
          << ", \"output_length\": " << 20 + i % 400 << ", \"type\": \"text\", \"turn\": " << i % 4 + 1
          << ", \"hash_ids\": [";
      for (int b = 0; b < input / 16; ++b) out << (b ? ", " : "") << i * 200 + b;
      out << "]}\n";
      parent = i;
    }
    return p;
  }();
  return path;
}

std::string burstgpt_file() {
  static const std::string path = [] {
    const std::string p = (std::filesystem::temp_directory_path() / "engramsim-bench-burstgpt.csv").string();
    std::ofstream out(p);
    out << "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
    for (int i = 0; i < 200000; ++i) {
      const int in = 10 + (i * 53) % 2000, o = 1 + (i * 17) % 600;
      out << i / 4 << "," << (i % 3 ? "ChatGPT" : "GPT-4") << "," << in << "," << o << "," << in + o
          << ",Conversation log\n";
    }
    return p;
  }();
  return path;
}

void read_trace(benchmark::State& state, const std::string& path, const char* format) {
  std::int64_t rows = 0;
  for (auto _ : state) {
    auto src = open_trace(path, format);
    Request r;
    std::int64_t n = 0;
    while (src->next(r)) ++n;
    benchmark::DoNotOptimize(n);
    rows += n;
  }
  state.SetItemsProcessed(rows);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(std::filesystem::file_size(path)));
}

// Session trees of the shipped synthetic AgentX corpus; items are calls (main and subagent).
void BM_ReadAgentxJsonlGz(benchmark::State& state) {
  const std::string path = shipped("agentx-synthetic-seed42.jsonl.gz");
  std::int64_t calls = 0;
  for (auto _ : state) {
    auto src = open_agentx_trace(path);
    AgenticSession s;
    while (src->next(s))
      for (const AgenticEntry& e : s.entries)
        calls += std::holds_alternative<AgenticCall>(e)
                     ? 1
                     : static_cast<std::int64_t>(std::get<AgenticSubagent>(e).calls.size());
  }
  state.SetItemsProcessed(calls);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(std::filesystem::file_size(path)));
}

void BM_ReadAzureCsv(benchmark::State& s) { read_trace(s, shipped("AzureLLMInferenceTrace_conv.csv"), "azure"); }
void BM_ReadMooncakeJsonlGz(benchmark::State& s) { read_trace(s, shipped("conversation_trace.jsonl.gz"), "mooncake"); }
void BM_ReadVidurCsv(benchmark::State& s) { read_trace(s, shipped("splitwise_conv.csv"), "vidur"); }
void BM_ReadBailianJsonl(benchmark::State& s) { read_trace(s, bailian_file(), "bailian"); }
void BM_ReadBurstGptCsv(benchmark::State& s) { read_trace(s, burstgpt_file(), "burstgpt"); }

}  // namespace

BENCHMARK(BM_ReadAzureCsv)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadMooncakeJsonlGz)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadVidurCsv)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadBailianJsonl)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadBurstGptCsv)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadAgentxJsonlGz)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
