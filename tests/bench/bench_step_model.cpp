// The step model's fast path, as the simulator calls it once per scheduler step: summarize the
// batch, evaluate each distinct op template, run the Engram fetch/window chain. Target: under a
// microsecond per call. Also the construction cost (templates, fetch tables) and the detailed
// breakdown that reports use.
//
// Four kinds of step() cases:
//   Uncached  the model alone: every call summarizes and evaluates;
//   Cached    the model behind its memo (models/step_memo.hpp), the same shape every call: the
//             last-batch check answers (no summary);
//   CachedAlternating  two shapes in turn: the statistics memo answers after the summary;
//   Advancing every sequence's context grows by its positions each call, as in a running decode
//             batch: the memo misses, the token-count templates come from the token cache.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"
#include "models/step_memo.hpp"

namespace engramsim {
namespace {

std::shared_ptr<const RooflineStepModel> make_roofline(const char* card, const char* node, int tp, EngramTier tier) {
  RooflineOptions o;
  o.layout = ParallelLayout{tp, 1, false};
  o.engram.tier = tier;
  o.host = load_engine("vllm");
  return std::make_shared<const RooflineStepModel>(load_model_card(card), load_node(node), o);
}

// The model alone, or behind its memo.
std::shared_ptr<const StepTimeModel> make_model(const char* card, const char* node, int tp, EngramTier tier,
                                                bool cache) {
  auto m = make_roofline(card, node, tp, tier);
  if (!cache) return m;
  return std::make_shared<const MemoStepModel>(m);
}

// A batch that owns its sequences (BatchShape only views them).
struct Batch {
  std::vector<PrefillChunk> prefill;
  std::vector<DecodeSeq> decode;
  BatchShape shape() const { return BatchShape{prefill, decode}; }
};

// Contexts differ per sequence as in a running batch.
Batch v41_decode(std::size_t n) {
  std::vector<DecodeSeq> decode(n, DecodeSeq{8192, 6});
  for (std::size_t i = 0; i < decode.size(); ++i) decode[i].context = static_cast<std::int32_t>(4096 + 97 * i);
  return Batch{{}, decode};
}

Batch v41_mixed() {
  std::vector<DecodeSeq> decode(64, DecodeSeq{8192, 6});
  std::vector<PrefillChunk> prefill = {{2048, 4096}, {1024, 0}};
  return Batch{prefill, decode};
}

Batch llama_decode(std::size_t n) {
  std::vector<DecodeSeq> decode(n, DecodeSeq{2000, 1});
  for (std::size_t i = 0; i < decode.size(); ++i) decode[i].context = static_cast<std::int32_t>(100 + 37 * i);
  return Batch{{}, decode};
}

void run_same(benchmark::State& state, const StepTimeModel& m, const Batch& owned) {
  const BatchShape batch = owned.shape();
  for (auto _ : state) {
    StepCost c = m.step(batch);
    benchmark::DoNotOptimize(c);
  }
  state.SetItemsProcessed(state.iterations());
}

// Contexts advance by the verified positions every call (a fresh shape each time).
void run_advancing(benchmark::State& state, const StepTimeModel& m, Batch owned) {
  const std::vector<DecodeSeq> start = owned.decode;
  const BatchShape batch = owned.shape();
  std::int64_t calls = 0;
  for (auto _ : state) {
    if (++calls % 4096 == 0) std::copy(start.begin(), start.end(), owned.decode.begin());  // keep contexts in range
    for (DecodeSeq& d : owned.decode) d.context += d.positions;
    StepCost c = m.step(batch);
    benchmark::DoNotOptimize(c);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_V41DecodeStep(benchmark::State& state) {
  const auto m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::dram, false);
  run_same(state, *m, v41_decode(static_cast<std::size_t>(state.range(0))));
}
BENCHMARK(BM_V41DecodeStep)->Arg(1)->Arg(64)->Arg(256);

void BM_V41DecodeStepCached(benchmark::State& state) {
  const auto m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::dram, true);
  run_same(state, *m, v41_decode(static_cast<std::size_t>(state.range(0))));
}
BENCHMARK(BM_V41DecodeStepCached)->Arg(1)->Arg(64)->Arg(256);

// Two shapes in turn: the last-batch check misses, the statistics memo answers after the summary.
void BM_V41DecodeStepCachedAlternating(benchmark::State& state) {
  const auto m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::dram, true);
  const Batch a = v41_decode(static_cast<std::size_t>(state.range(0)));
  Batch b = a;
  b.decode.back().context += 1;
  const BatchShape shapes[2] = {a.shape(), b.shape()};
  std::size_t k = 0;
  for (auto _ : state) {
    StepCost c = m->step(shapes[k]);
    k ^= 1;
    benchmark::DoNotOptimize(c);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_V41DecodeStepCachedAlternating)->Arg(1)->Arg(64)->Arg(256);

void BM_V41DecodeStepAdvancing(benchmark::State& state) {
  const auto m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::dram, true);
  run_advancing(state, *m, v41_decode(static_cast<std::size_t>(state.range(0))));
}
BENCHMARK(BM_V41DecodeStepAdvancing)->Arg(1)->Arg(64)->Arg(256);

void BM_V41MixedStep(benchmark::State& state) {
  const auto m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::ssd, false);
  run_same(state, *m, v41_mixed());
}
BENCHMARK(BM_V41MixedStep);

void BM_V41MixedStepCached(benchmark::State& state) {
  const auto m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::ssd, true);
  run_same(state, *m, v41_mixed());
}
BENCHMARK(BM_V41MixedStepCached);

void BM_Llama8bDecodeStep(benchmark::State& state) {
  const auto m = make_model("llama-3.1-8b", "hgx-h100", 1, EngramTier::hbm, false);
  run_same(state, *m, llama_decode(static_cast<std::size_t>(state.range(0))));
}
BENCHMARK(BM_Llama8bDecodeStep)->Arg(64)->Arg(256);

void BM_Llama8bDecodeStepCached(benchmark::State& state) {
  const auto m = make_model("llama-3.1-8b", "hgx-h100", 1, EngramTier::hbm, true);
  run_same(state, *m, llama_decode(static_cast<std::size_t>(state.range(0))));
}
BENCHMARK(BM_Llama8bDecodeStepCached)->Arg(64)->Arg(256);

void BM_Llama8bDecodeStepAdvancing(benchmark::State& state) {
  const auto m = make_model("llama-3.1-8b", "hgx-h100", 1, EngramTier::hbm, true);
  run_advancing(state, *m, llama_decode(static_cast<std::size_t>(state.range(0))));
}
BENCHMARK(BM_Llama8bDecodeStepAdvancing)->Arg(64)->Arg(256);

// The batch summary alone (one pass over the sequences).
void BM_V41Summarize(benchmark::State& state) {
  const auto m = make_roofline("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::dram);
  const Batch owned = v41_decode(static_cast<std::size_t>(state.range(0)));
  const BatchShape batch = owned.shape();
  for (auto _ : state) {
    BatchStats s = m->work().summarize(batch);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_V41Summarize)->Arg(64)->Arg(256);

void BM_V41Construct(benchmark::State& state) {
  const ModelCard card = load_model_card("deepseek-v4.1-flash");
  const NodeSpec node = load_node("hgx-b300");
  RooflineOptions o;
  o.layout = ParallelLayout{2, 1, false};
  o.engram.tier = EngramTier::ssd;
  o.host = load_engine("vllm");
  o.engram.access.zipf_s = 1.0;
  o.engram.dram_cache = Bytes::gib(64);
  for (auto _ : state) {
    RooflineStepModel m(card, node, o);
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_V41Construct)->Unit(benchmark::kMillisecond);

void BM_V41Breakdown(benchmark::State& state) {
  const auto m = make_roofline("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::dram);
  std::vector<DecodeSeq> decode(64, DecodeSeq{8192, 6});
  const BatchShape batch{{}, decode};
  for (auto _ : state) {
    StepBreakdown b = m->breakdown(batch);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_V41Breakdown)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engramsim

BENCHMARK_MAIN();
