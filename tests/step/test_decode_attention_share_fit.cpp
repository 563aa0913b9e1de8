// The MI300X preset's attention_decode_efficiency against the measurement it is fitted to: AMD's
// latency table for vLLM 0.9.1 on 8 x MI300X (models/data/amd-mi300x-latency). At a fixed batch the
// rows with 2,048-token prompts differ from those with 128-token prompts only by the KV each decode
// step reads (the prompts are served from the prefix cache, which the first test shows), so the
// difference per step is the time the decode-attention kernels take to read 1,920 more tokens of KV per
// sequence. The preset's share is the mean, over both models at 128 sequences, of the model's time for
// that difference at share 1 divided by the measured one (README in that folder).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"
#include "tests/support/csv_table.hpp"

namespace engramsim {
namespace {

constexpr int kOutputLen = 2048;
constexpr int kShortPrompt = 128;
constexpr int kLongPrompt = 2048;

// (model, batch, input_len) -> latency in seconds of one batch of kOutputLen output tokens.
using LatencyTable = std::map<std::tuple<std::string, int, int>, double>;

LatencyTable latency_table() {
  const test::CsvTable csv("models/data/amd-mi300x-latency/latency.csv");
  LatencyTable t;
  for (std::size_t i = 0; i < csv.size(); ++i) {
    if (static_cast<int>(csv.number(i, "output_len")) != kOutputLen) continue;
    t[{csv.text(i, "model"), static_cast<int>(csv.number(i, "batch")), static_cast<int>(csv.number(i, "input_len"))}] =
        csv.number(i, "latency_s");
  }
  return t;
}

// The published checkpoints (amd/Llama-3.1-*-Instruct-FP8-KV): FP8 weights and KV cache.
ModelCard fp8_card(const std::string& name) {
  ModelCard c = load_model_card(name);
  c.precisions.attention = Precision::fp8;
  c.precisions.dense_ffn = Precision::fp8;
  c.kv.precision = Precision::fp8;
  return c;
}

// Seconds of one decode step of `batch` sequences at `context` tokens of KV, TP8 on mi300x-8 with
// the preset's decode-attention share replaced by `share`.
double decode_step_s(const std::string& model, int batch, int context, double share) {
  NodeSpec node = load_node("mi300x-8");
  node.gpu.attention_decode_efficiency = share;
  RooflineOptions o;
  o.layout = ParallelLayout{8, 1, false};
  o.host = load_engine("vllm-sync");
  const RooflineStepModel m(fp8_card(model), node, o);
  const std::vector<DecodeSeq> decode(static_cast<std::size_t>(batch), DecodeSeq{context, 1});
  return m.breakdown({{}, decode}).cost.total.seconds();
}

// Mean KV context over the decode steps of a row with `prompt` tokens.
int mean_context(int prompt) { return prompt + kOutputLen / 2; }

TEST(DecodeAttentionShareFit, LongPromptsComeFromThePrefixCache) {
  // Even at the FP8 datasheet peak of all eight GPUs, prefilling 128 prompts of 2,048 tokens through
  // Llama 3.1 405B takes longer than the whole measured difference between the long- and short-prompt
  // rows; the benchmark re-sends the same prompts every iteration, so they hit vLLM's prefix cache.
  const LatencyTable t = latency_table();
  ASSERT_EQ(t.size(), 32u) << "models/data/amd-mi300x-latency/latency.csv";
  const double params = static_cast<double>(load_model_card("llama-3.1-405b").published_params);
  const double prefill_flops = 2.0 * params * 128 * (kLongPrompt - kShortPrompt);
  const double peak = 8 * load_gpu("mi300x").dense_flops.at(Precision::fp8).value();
  const double measured = t.at({"llama-3.1-405b", 128, kLongPrompt}) - t.at({"llama-3.1-405b", 128, kShortPrompt});
  EXPECT_GT(prefill_flops / peak, measured);
}

// Measured and modelled (at `share`) seconds per step that 1,920 more tokens of KV per sequence add.
struct Difference {
  double measured = 0.0;
  double modelled = 0.0;
};

Difference kv_difference(const LatencyTable& t, const std::string& model, int batch, double share) {
  Difference d;
  d.measured =
      (t.at({model, batch, kLongPrompt}) - t.at({model, batch, kShortPrompt})) / static_cast<double>(kOutputLen);
  d.modelled = decode_step_s(model, batch, mean_context(kLongPrompt), share) -
               decode_step_s(model, batch, mean_context(kShortPrompt), share);
  return d;
}

TEST(DecodeAttentionShareFit, PresetIsTheMeanShareAtTheLargestBatch) {
  const LatencyTable t = latency_table();
  ASSERT_EQ(t.size(), 32u);
  const double preset = load_gpu("mi300x").attention_decode_efficiency;
  // The fit uses the 128-sequence rows: there the difference is 7-13 % of the row's latency. At 64
  // sequences it is 3-6 %, within the run-to-run spread of a five-iteration mean, so those rows are
  // printed, not fitted.
  double sum = 0.0;
  for (const std::string model : {"llama-3.1-70b", "llama-3.1-405b"}) {
    for (int batch : {64, 128}) {
      const Difference at_one = kv_difference(t, model, batch, 1.0);
      const Difference at_preset = kv_difference(t, model, batch, preset);
      ASSERT_GT(at_one.measured, 0.0) << model << " " << batch;
      const double share = at_one.modelled / at_one.measured;
      std::printf("%-15s batch %3d: measured %.3f ms/step; model %.3f ms at share 1 (share %.3f), %.3f ms at %.2f\n",
                  model.c_str(), batch, at_one.measured * 1e3, at_one.modelled * 1e3, share, at_preset.modelled * 1e3,
                  preset);
      if (batch != 128) continue;
      sum += share;
      // With the preset, the model's extra step time is within the step-level tolerance (+-10 %).
      EXPECT_NEAR(at_preset.modelled / at_preset.measured, 1.0, 0.10) << model;
    }
  }
  // The preset carries the mean of the two estimates, rounded to two decimals.
  EXPECT_NEAR(preset, sum / 2.0, 0.005 + 1e-9);
}

TEST(DecodeAttentionShareFit, ShareSlowsOnlyDecodeAttention) {
  // A step without decode sequences (one prefill chunk) does not move with the share.
  NodeSpec node = load_node("mi300x-8");
  RooflineOptions o;
  o.layout = ParallelLayout{8, 1, false};
  const ModelCard card = fp8_card("llama-3.1-70b");
  const std::vector<PrefillChunk> chunk{PrefillChunk{2048, 0}};
  node.gpu.attention_decode_efficiency = 1.0;
  const double full = RooflineStepModel(card, node, o).breakdown({chunk, {}}).cost.total.seconds();
  node.gpu.attention_decode_efficiency = 0.5;
  const double half = RooflineStepModel(card, node, o).breakdown({chunk, {}}).cost.total.seconds();
  EXPECT_DOUBLE_EQ(full, half);
  // A decode step slows by the decode-attention op alone.
  const std::vector<DecodeSeq> decode(64, DecodeSeq{4096, 1});
  node.gpu.attention_decode_efficiency = 1.0;
  const StepBreakdown a = RooflineStepModel(card, node, o).breakdown({{}, decode});
  node.gpu.attention_decode_efficiency = 0.5;
  const StepBreakdown b = RooflineStepModel(card, node, o).breakdown({{}, decode});
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    if (a.ops[i].work.op_class == OpClass::attention_decode)
      EXPECT_GT(b.ops[i].total.seconds(), a.ops[i].total.seconds()) << a.ops[i].name;
    else
      EXPECT_DOUBLE_EQ(b.ops[i].total.seconds(), a.ops[i].total.seconds()) << a.ops[i].name;
  }
}

}  // namespace
}  // namespace engramsim
