// CUDA-graph padding of decode-only steps (sim/serving/decode_padding.hpp): TensorRT-LLM's filter of
// the captured sizes, the padded row count per step, and what a run's step model sees.
#include <gtest/gtest.h>

#include "sim/serving/decode_padding.hpp"
#include "sim_test_support.hpp"

using namespace engramsim;
using namespace engramsim::sim;
using namespace engramsim::sim::testing;

namespace {
const std::vector<std::int32_t> kPageSizes{1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192};
}

TEST(DecodePadding, SizesAboveTheLargestDecodeBatchAreReplacedByIt) {
  // max_batch_size 768, max_num_tokens 2048: 1024 and up are dropped, 768 is captured instead.
  const DecodePadding p = make_decode_padding(kPageSizes, 768, 2048, 0, 1);
  EXPECT_EQ(p.batch_sizes, (std::vector<std::int32_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 768}));
  // The token budget bounds a decode batch too: 1 + 3 draft tokens per sequence in 1,000 tokens.
  const DecodePadding q = make_decode_padding(kPageSizes, 4096, 1000, 3, 1);
  EXPECT_EQ(q.batch_sizes.back(), 250);
  // Nothing dropped: nothing added; unsorted input with repeats is sorted and deduplicated.
  const DecodePadding r = make_decode_padding({8, 1, 4, 4}, 64, 8192, 0, 2);
  EXPECT_EQ(r.batch_sizes, (std::vector<std::int32_t>{1, 4, 8}));
  EXPECT_EQ(r.ranks, 2);
  EXPECT_FALSE(make_decode_padding({}, 64, 8192, 0, 1).enabled());
  EXPECT_THROW(make_decode_padding({0, 4}, 64, 8192, 0, 1), std::invalid_argument);
}

TEST(DecodePadding, RowsAreTheNextCapturedSizePerRank) {
  const DecodePadding p = make_decode_padding(kPageSizes, 768, 2048, 0, 1);
  EXPECT_EQ(padded_decode_rows(p, 1), 1);
  EXPECT_EQ(padded_decode_rows(p, 3), 4);
  EXPECT_EQ(padded_decode_rows(p, 384), 384);
  EXPECT_EQ(padded_decode_rows(p, 385), 512);
  EXPECT_EQ(padded_decode_rows(p, 610), 768);
  EXPECT_EQ(padded_decode_rows(p, 769), 769);  // above every captured size: runs unpadded
  // Four attention ranks replay the same size, set by the busiest rank's ceil(n / 4).
  const DecodePadding dp = make_decode_padding(kPageSizes, 1792, 3584, 0, 4);
  EXPECT_EQ(padded_decode_rows(dp, 1500), 4 * 384);  // 375 per rank -> 384
  EXPECT_EQ(padded_decode_rows(dp, 1537), 4 * 512);  // busiest rank 385 -> 512
  EXPECT_EQ(padded_decode_rows(DecodePadding{}, 37), 37);
}

TEST(DecodePadding, OnlyDecodeOnlyStepsArePaddedAndOutputIsUnchanged) {
  RecordingStepModel m(Time::ms(1));
  std::vector<Request> reqs;
  for (int i = 0; i < 3; ++i) reqs.push_back(make_request(0, 16, 3));
  RunConfig cfg = one_replica(m, reqs, 100000, "vllm", 8192);
  cfg.replicas[0].decode_padding = make_decode_padding({1, 2, 4, 8}, 256, 8192, 0, 1);
  const RunResult r = run_simulation(cfg);
  const auto& shapes = m.shapes();
  ASSERT_EQ(shapes.size(), 3u);  // one prefill step, two decode steps
  EXPECT_EQ(shapes[0].prefill.size(), 3u);
  EXPECT_EQ(shapes[0].decode.size(), 0u);  // a step with prompt tokens runs without a graph
  for (std::size_t i = 1; i < shapes.size(); ++i) {
    ASSERT_EQ(shapes[i].decode.size(), 4u);  // 3 sequences padded to the captured 4
    EXPECT_EQ(shapes[i].decode[3].context, 1);
  }
  for (const auto& rec : r.requests) EXPECT_EQ(rec.generated_tokens, 3);
  EXPECT_EQ(r.summary.total_output_tokens, 9);
}
