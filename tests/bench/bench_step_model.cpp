// The step model's fast path, as the simulator calls it once per scheduler step: summarize the
// batch, evaluate each distinct op template, run the Engram fetch/window chain. Target: under a
// microsecond for a typical decode step. Also the construction cost (templates, fetch tables) and
// the detailed breakdown that reports use.
#include <benchmark/benchmark.h>

#include <vector>

#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/roofline_step_model.hpp"

namespace engramsim {
namespace {

RooflineStepModel make_model(const char* card, const char* node, int tp, EngramTier tier) {
  RooflineOptions o;
  o.layout = ParallelLayout{tp, 1, false};
  o.engram.tier = tier;
  return RooflineStepModel(load_model_card(card), load_node(node), o);
}

void BM_V41DecodeStep(benchmark::State& state) {
  const RooflineStepModel m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::dram);
  std::vector<DecodeSeq> decode(static_cast<std::size_t>(state.range(0)), DecodeSeq{8192, 6});
  // Contexts differ per sequence as in a running batch.
  for (std::size_t i = 0; i < decode.size(); ++i) decode[i].context = static_cast<std::int32_t>(4096 + 97 * i);
  const BatchShape batch{{}, decode};
  for (auto _ : state) {
    StepCost c = m.step(batch);
    benchmark::DoNotOptimize(c);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_V41DecodeStep)->Arg(1)->Arg(64)->Arg(256);

void BM_V41MixedStep(benchmark::State& state) {
  const RooflineStepModel m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::ssd);
  std::vector<DecodeSeq> decode(64, DecodeSeq{8192, 6});
  std::vector<PrefillChunk> prefill = {{2048, 4096}, {1024, 0}};
  const BatchShape batch{prefill, decode};
  for (auto _ : state) {
    StepCost c = m.step(batch);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_V41MixedStep);

void BM_Llama8bDecodeStep(benchmark::State& state) {
  const RooflineStepModel m = make_model("llama-3.1-8b", "hgx-h100", 1, EngramTier::hbm);
  std::vector<DecodeSeq> decode(static_cast<std::size_t>(state.range(0)), DecodeSeq{2000, 1});
  for (std::size_t i = 0; i < decode.size(); ++i) decode[i].context = static_cast<std::int32_t>(100 + 37 * i);
  const BatchShape batch{{}, decode};
  for (auto _ : state) {
    StepCost c = m.step(batch);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_Llama8bDecodeStep)->Arg(64)->Arg(256);

void BM_V41Construct(benchmark::State& state) {
  const ModelCard card = load_model_card("deepseek-v4.1-flash");
  const NodeSpec node = load_node("hgx-b300");
  RooflineOptions o;
  o.layout = ParallelLayout{2, 1, false};
  o.engram.tier = EngramTier::ssd;
  o.engram.access.zipf_s = 1.0;
  o.engram.dram_cache = Bytes::gib(64);
  for (auto _ : state) {
    RooflineStepModel m(card, node, o);
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_V41Construct)->Unit(benchmark::kMillisecond);

void BM_V41Breakdown(benchmark::State& state) {
  const RooflineStepModel m = make_model("deepseek-v4.1-flash", "hgx-b300", 2, EngramTier::dram);
  std::vector<DecodeSeq> decode(64, DecodeSeq{8192, 6});
  const BatchShape batch{{}, decode};
  for (auto _ : state) {
    StepBreakdown b = m.breakdown(batch);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_V41Breakdown)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engramsim

BENCHMARK_MAIN();
