// The KV a disaggregated request moves between prefill and decode ranks
// (sim/serving/kv/kv_transfer.hpp): sharded KV is resharded by head overlap, replicated KV goes
// whole to each decode rank from one prefill rank; the bytes add up to what the decode side holds.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/serving/kv/kv_transfer.hpp"

namespace engramsim::sim {
namespace {

double total_bytes(const std::vector<KvRankFlow>& flows) {
  double sum = 0.0;
  for (const KvRankFlow& f : flows) sum += f.bytes.value();
  return sum;
}

TEST(KvTransfer, EqualTpShardedPairsRankToRank) {
  const auto flows = kv_transfer_flows(1000, Bytes(4096), KvLayout::sharded, 4, 4);
  ASSERT_EQ(flows.size(), 4u);
  for (const KvRankFlow& f : flows) {
    EXPECT_EQ(f.prefill_rank, f.decode_rank);
    EXPECT_DOUBLE_EQ(f.bytes.value(), 1000 * 4096 / 4.0);
  }
}

// TP4 prefill to TP2 decode: decode rank 0 takes the heads of prefill ranks 0 and 1.
TEST(KvTransfer, ShardedReshardsByHeadOverlap) {
  const auto down = kv_transfer_flows(100, Bytes(800), KvLayout::sharded, 4, 2);
  ASSERT_EQ(down.size(), 4u);
  EXPECT_EQ(down[0].prefill_rank, 0);
  EXPECT_EQ(down[1].prefill_rank, 1);
  EXPECT_EQ(down[1].decode_rank, 0);
  EXPECT_DOUBLE_EQ(down[0].bytes.value(), 100 * 800 / 4.0);
  EXPECT_DOUBLE_EQ(total_bytes(down), 100 * 800.0);
  // TP2 to TP3: uneven overlaps, still the whole KV once.
  const auto odd = kv_transfer_flows(90, Bytes(600), KvLayout::sharded, 2, 3);
  EXPECT_EQ(odd.size(), 4u);  // decode 1 straddles both prefill ranks
  EXPECT_NEAR(total_bytes(odd), 90 * 600.0, 1e-6);
}

// MLA/MQA under TP: every decode rank needs the whole KV; prefill ranks take turns sending it.
TEST(KvTransfer, ReplicatedGoesWholeToEachDecodeRank) {
  const auto flows = kv_transfer_flows(1000, Bytes(1000), KvLayout::replicated, 2, 4);
  ASSERT_EQ(flows.size(), 4u);
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(flows[j].decode_rank, j);
    EXPECT_EQ(flows[j].prefill_rank, j % 2);
    EXPECT_DOUBLE_EQ(flows[j].bytes.value(), 1e6);
  }
}

TEST(KvTransfer, NothingLackingMovesNothingAndBadInputIsRefused) {
  EXPECT_TRUE(kv_transfer_flows(0, Bytes(1000), KvLayout::sharded, 4, 4).empty());
  EXPECT_THROW(kv_transfer_flows(10, Bytes(1000), KvLayout::sharded, 0, 4), std::invalid_argument);
  EXPECT_THROW(kv_transfer_flows(-1, Bytes(1000), KvLayout::replicated, 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace engramsim::sim
