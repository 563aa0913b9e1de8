// The in-run Engram tier service on its own: fetch times worked out by hand on small nodes, link
// sharing, the SSD page path, the caches against analytic hit ratios, sampling against analytic
// distinct-row counts, the text access model, KV offload flows, and the node-preset conversion.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/zipf_sampler.hpp"
#include "engram_tier_test_util.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engram_fetch.hpp"
#include "sim/memory/engram_access.hpp"
#include "sim/memory/engram_tier_service.hpp"
#include "sim/memory/node_fabric_params.hpp"

namespace engramsim {
namespace {

using test::toy_node;
using test::toy_tier;

EngramLayerStep analytic_layer(Time window, double host_rows, double ssd_pages = 0.0) {
  EngramLayerStep l;
  l.window = window;
  l.positions = 1.0;
  l.lookups = host_rows;
  l.distinct_rows = host_rows;
  l.host_rows = host_rows;
  l.ssd_pages = ssd_pages;
  return l;
}

// Runs the service until idle; returns every outcome in completion order.
std::vector<EngramStepOutcome> drain(EngramTierService& s) {
  std::vector<EngramStepOutcome> done;
  for (Time t = s.next_event_time(); t != Time::max(); t = s.next_event_time()) s.advance_to(t, done);
  return done;
}

TEST(EngramTier, DramFetchTimesAndStallChainByHand) {
  EngramTierService s(toy_tier(EngramTier::dram, toy_node(8, 2), 1));
  // Layer 1: 1,000 rows of 264 B at 64 GB/s after 1 us of route latency: done at 5.125 us, the GPU
  // is there at once (window 0): stall 5.125 us. Layer 2 starts then: 1 us + 8.25 us -> 14.375 us;
  // the GPU arrives at 10 us + 5.125 us = 15.125 us: no stall.
  const std::vector<EngramLayerStep> layers = {analytic_layer(Time::zero(), 1000), analytic_layer(Time::us(10), 2000)};
  EngramStepInput in;
  in.layers = layers;
  EngramStepOutcome now;
  ASSERT_TRUE(s.start_step(in, now));
  EXPECT_EQ(s.next_event_time(), Time::ns(5125));
  const auto done = drain(s);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].ready, Time::ns(14375));
  EXPECT_EQ(done[0].stall, Time::ns(5125));
  EXPECT_EQ(done[0].fetch, Time::ns(14375));
  EXPECT_DOUBLE_EQ(done[0].stats.host_bytes, 3000 * 264.0);
  // A later window exposes the second layer: arrival 4 us + 5.125 us = 9.125 us < 14.375 us.
  const std::vector<EngramLayerStep> tight = {analytic_layer(Time::zero(), 1000), analytic_layer(Time::us(4), 2000)};
  in.layers = tight;
  in.start = Time::us(100);
  ASSERT_TRUE(s.start_step(in, now));
  const auto again = drain(s);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].stall, Time::ns(5125) + (Time::ns(14375) - Time::ns(9125)));
}

TEST(EngramTier, UvaEfficiencyInflatesWireBytes) {
  auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 1);
  p.uva_efficiency = 0.5;
  EngramTierService s(p);
  const std::vector<EngramLayerStep> layers = {analytic_layer(Time::zero(), 1000)};
  EngramStepInput in;
  in.layers = layers;
  EngramStepOutcome now;
  ASSERT_TRUE(s.start_step(in, now));
  const auto done = drain(s);
  EXPECT_EQ(done.at(0).ready, Time::ns(1000 + 8250));  // twice the wire bytes
  EXPECT_DOUBLE_EQ(done[0].stats.wire_bytes, 2 * 264000.0);
}

TEST(EngramTier, GpusBehindOneSwitchShareItsUplink) {
  for (const bool spread : {false, true}) {
    auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 2);
    p.spread = spread;
    EngramTierService s(p);
    // Packed: replicas on GPUs 0 and 1 (one switch); spread: GPUs 0 and 2.
    EXPECT_EQ(s.gpu_of(1, 0).second, spread ? 2 : 1);
    const std::vector<EngramLayerStep> layers = {analytic_layer(Time::zero(), 1000)};
    EngramStepOutcome now;
    for (std::uint32_t r = 0; r < 2; ++r) {
      EngramStepInput in;
      in.replica = r;
      in.layers = layers;
      ASSERT_TRUE(s.start_step(in, now));
    }
    const auto done = drain(s);
    ASSERT_EQ(done.size(), 2u);
    // Shared uplink: 32 GB/s each, 8.25 us + 1 us; alone: 4.125 us + 1 us.
    for (const auto& o : done) EXPECT_EQ(o.ready, Time::ns(spread ? 5125 : 9250)) << spread;
    const EngramTierReport rep = s.report();
    EXPECT_NEAR(rep.per_gpu_fetch_bandwidth(), 264000.0 / (spread ? 5.125e-6 : 9.25e-6), 1e3);
  }
}

TEST(EngramTier, SsdPagesOnDrivesThenCopy) {
  auto p = toy_tier(EngramTier::ssd, toy_node(8, 2, 4), 1);
  EngramTierService s(p);
  // 400 pages spread over 4 drives: 100 pages at 1 M IOPS (4.096 GB/s < 7 GB/s and the QD bound
  // 128 x 4 KiB / 90 us) = 100 us after 90 us of latency; then 300 rows copied in 1 us + 1.2375 us.
  const std::vector<EngramLayerStep> layers = {analytic_layer(Time::zero(), 300, 400)};
  EngramStepInput in;
  in.layers = layers;
  EngramStepOutcome now;
  ASSERT_TRUE(s.start_step(in, now));
  const auto done = drain(s);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].ready, Time::ns(190000 + 1000 + 1238));
  EXPECT_EQ(done[0].stall, done[0].ready);
  EXPECT_DOUBLE_EQ(done[0].stats.ssd_pages, 400);
  EXPECT_EQ(s.report().flows, 5u);
}

TEST(EngramTier, QueueDepthBoundsOneIssuersPageRate) {
  auto p = toy_tier(EngramTier::ssd, toy_node(8, 2, 1), 1);
  p.ssd_queue_depth = 9;  // 9 x 4 KiB / 90 us = 409.6 MB/s: a tenth of the drive's IOPS
  EngramTierService s(p);
  const std::vector<EngramLayerStep> layers = {analytic_layer(Time::zero(), 0.0, 100)};
  EngramStepInput in;
  in.layers = layers;
  EngramStepOutcome now;
  ASSERT_TRUE(s.start_step(in, now));
  const auto done = drain(s);
  EXPECT_EQ(done.at(0).ready, Time::us(90) + Time::us(1000));
}

TEST(EngramTier, NothingToMoveCompletesAtOnce) {
  EngramTierService s(toy_tier(EngramTier::dram, toy_node(8, 2), 1));
  const std::vector<EngramLayerStep> layers = {analytic_layer(Time::zero(), 0.0)};
  EngramStepInput in;
  in.layers = layers;
  in.start = Time::us(3);
  EngramStepOutcome now;
  EXPECT_FALSE(s.start_step(in, now));
  EXPECT_EQ(now.stall, Time::zero());
  EXPECT_EQ(now.ready, Time::us(3));
  EXPECT_EQ(s.next_event_time(), Time::max());
}

TEST(EngramTier, KvOffloadFlowsShareTheLinksWithoutGating) {
  auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 1);
  p.swap_preempted_kv = true;
  p.kv_bytes_per_token = Bytes(1000.0);
  const std::vector<EngramLayerStep> layers = {analytic_layer(Time::zero(), 1000)};
  for (const bool back : {false, true}) {
    EngramTierService s(p);
    EngramStepInput in;
    in.layers = layers;
    // 264 tokens of 1 kB: as large as the Engram fetch. Written out (other direction): no effect;
    // read back (same direction, same links): the fetch shares them.
    (back ? in.kv_swap_in_tokens : in.kv_swap_out_tokens) = 264;
    EngramStepOutcome now;
    ASSERT_TRUE(s.start_step(in, now));
    const auto done = drain(s);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].ready, Time::ns(back ? 9250 : 5125)) << back;
    EXPECT_DOUBLE_EQ(done[0].stats.kv_swap_bytes, 264000.0);
  }
}

class RecordingSink final : public EngramTraceSink {
 public:
  void on_flow(int node, const std::string& route, const char* what, std::uint32_t, int gpu, Time start, Time finish,
               double) override {
    flows.push_back(std::to_string(node) + " " + route + " " + what + " gpu" + std::to_string(gpu) + " " +
                    std::to_string(start.count_ns()) + "-" + std::to_string(finish.count_ns()));
  }
  void on_layer_fetch(int, int, std::uint32_t, int layer, Time issue, Time done, double) override {
    layers.push_back(std::to_string(layer) + " " + std::to_string(issue.count_ns()) + "-" +
                     std::to_string(done.count_ns()));
  }
  std::vector<std::string> flows, layers;
};

TEST(EngramTier, TraceSinkSeesFlowsAndLayers) {
  EngramTierService s(toy_tier(EngramTier::dram, toy_node(8, 2), 1));
  RecordingSink sink;
  s.set_trace(&sink);
  const std::vector<EngramLayerStep> layers = {analytic_layer(Time::zero(), 1000), analytic_layer(Time::us(10), 2000)};
  EngramStepInput in;
  in.layers = layers;
  EngramStepOutcome now;
  ASSERT_TRUE(s.start_step(in, now));
  drain(s);
  EXPECT_EQ(sink.flows,
            (std::vector<std::string>{"0 dram->gpu0 engram gpu0 0-5125", "0 dram->gpu0 engram gpu0 5125-14375"}));
  EXPECT_EQ(sink.layers, (std::vector<std::string>{"0 0-5125", "1 5125-14375"}));
}

// Decode steps of `seqs` sequences (one position each) through the sampled path; returns the
// per-lookup HBM hit ratio over the second half of the steps.
// `seqs` sequences of one position each, at position `at`.
std::vector<EngramSeqSpan> one_position_spans(int seqs, std::int64_t at) {
  std::vector<EngramSeqSpan> spans;
  for (int i = 0; i < seqs; ++i) spans.push_back({static_cast<std::uint64_t>(i), at, 1, false});
  return spans;
}

// Runs `steps` steps of `spans` over `layers` back to back (each starts 1 us after the previous one
// is ready) and hands each step's number and outcome to `seen`.
void run_steps(EngramTierService& s, const std::vector<EngramLayerStep>& layers,
               const std::vector<EngramSeqSpan>& spans, int steps,
               const std::function<void(int, const EngramStepOutcome&)>& seen) {
  Time t;
  for (int k = 0; k < steps; ++k) {
    EngramStepInput in;
    in.start = t;
    in.layers = layers;
    in.seqs = spans;
    EngramStepOutcome o;
    if (s.start_step(in, o)) o = drain(s).at(0);
    t = std::max(t, o.ready) + Time::us(1);
    seen(k, o);
  }
}

double steady_hbm_hit_ratio(EngramTierParams p, int steps, int seqs, double* mean_host_rows = nullptr) {
  EngramTierService s(p);
  double lookups = 0, hits = 0, rows = 0;
  run_steps(s, {analytic_layer(Time::zero(), 0.0)}, one_position_spans(seqs, 100), steps,
            [&](int k, const EngramStepOutcome& o) {
              rows += o.stats.host_rows;
              if (k >= steps / 2) {
                lookups += o.stats.lookups;
                hits += o.stats.hbm_hit_lookups;
              }
            });
  if (mean_host_rows) *mean_host_rows = rows / steps;
  return hits / lookups;
}

TEST(EngramTier, IdealHotRowSetHitsTheAnalyticTopShare) {
  // 24 sub-tables of 20,000 rows, Zipf 1, 500 rows per sub-table pinned: every lookup of a top-500
  // row hits, so the per-lookup hit ratio is the top-500 share. Sampled positions (budget 64 of
  // 192 lookups per step) must not bias it.
  auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 1, 1, 20000);
  p.hbm_cache = Bytes(24 * 500 * 264.0);
  p.hbm_policy = HotRowPolicy::static_top;
  const double ideal = zipf_top_share(20000, 1.0, 500);
  EXPECT_NEAR(steady_hbm_hit_ratio(p, 1000, 8), ideal, 0.01) << "ideal " << ideal;
  p.sample_rows_per_step = 64;
  EXPECT_NEAR(steady_hbm_hit_ratio(p, 1000, 8), ideal, 0.015) << "ideal " << ideal;
  p.access.model = AccessModel::text;
  EXPECT_THROW(EngramTierService{p}, ConfigError);
}

TEST(EngramTier, LearningHotRowCachesBetweenChesLruAndTheIdealSet) {
  // The same cache learned online. LRU follows Che's approximation; LFU sits between LRU and the
  // ideal set (its counts are halved every 8 x capacity accesses, too few draws to rank the rows
  // near the cut-off, docs/memory-tiers.md).
  auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 1, 1, 20000);
  p.hbm_cache = Bytes(24 * 500 * 264.0);
  p.hbm_policy = HotRowPolicy::lru;
  const double lru = steady_hbm_hit_ratio(p, 3000, 8);
  const double che = RowPopularity(20000, 1.0).lru_hit_ratio(0.0, 500);
  EXPECT_NEAR(lru, che, 0.03) << "che " << che;
  p.hbm_policy = HotRowPolicy::lfu;
  const double lfu = steady_hbm_hit_ratio(p, 3000, 8);
  const double ideal = zipf_top_share(20000, 1.0, 500);
  EXPECT_GT(lfu, lru + 0.02);
  EXPECT_LT(lfu, ideal);
  RecordProperty("lru_hit", std::to_string(lru));
  RecordProperty("lfu_hit", std::to_string(lfu));
  RecordProperty("ideal_hit", std::to_string(ideal));
}

TEST(EngramTier, SpatiallySampledCachesKeepTheExpectedMissCount) {
  // An LRU simulated on every key, and on a tenth of the key space with a tenth of the capacity
  // (keys outside the sample hit with the running ratio). Which popular keys land in the sample
  // moves one run's miss count by several percent; over hash salts (seeds) it averages out.
  auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 1, 1, 20000);
  p.hbm_cache = Bytes(24 * 500 * 264.0);
  p.hbm_policy = HotRowPolicy::lru;
  p.sample_rows_per_step = 1024;
  double full_rows = 0;
  const double full = steady_hbm_hit_ratio(p, 2000, 8, &full_rows);
  p.max_cache_entries = 1200;
  double rows_sum = 0, hit_sum = 0, worst = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    p.seed = seed;
    double rows = 0;
    hit_sum += steady_hbm_hit_ratio(p, 2000, 8, &rows);
    rows_sum += rows;
    worst = std::max(worst, std::abs(rows / full_rows - 1.0));
  }
  EXPECT_NEAR(rows_sum / 5 / full_rows, 1.0, 0.03);
  EXPECT_NEAR(hit_sum / 5, full, 0.04);
  EXPECT_LT(worst, 0.12);
  RecordProperty("worst_run_miss_error", std::to_string(worst));
}

TEST(EngramTier, SampledSubtablesKeepTheDistinctRowCountUnbiased) {
  // 64 positions x 24 sub-tables = 1,536 lookups per step, budget 256: 4 sub-tables of 64 draws
  // each per step, scaled by 6. Expected distinct rows per sub-table from the analytic popularity.
  auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 1);
  p.always_sample = true;
  p.sample_rows_per_step = 256;
  double rows = 0;
  steady_hbm_hit_ratio(p, 400, 64, &rows);
  const double expected = RowPopularity(16e6, 1.0).expected_distinct(64) * 24;
  EXPECT_NEAR(rows / expected, 1.0, 0.02) << rows << " vs " << expected;
}

TEST(EngramTier, SampledPositionsOverstateDistinctRowsAsPredicted) {
  // 4,096 positions with a budget of 1,024: one sub-table, a quarter of its positions, scaled by
  // 96. Linear scaling misses the duplicates between unsampled positions: the bias is
  // D(1024) x 4 / D(4096) - 1 under independent references (docs/memory-tiers.md, "Sampling").
  auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 1);
  p.always_sample = true;
  p.sample_rows_per_step = 1024;
  double rows = 0;
  steady_hbm_hit_ratio(p, 200, 4096, &rows);
  const RowPopularity pop(16e6, 1.0);
  const double exact = pop.expected_distinct(4096) * 24;
  const double predicted = pop.expected_distinct(1024) * 4 * 24;
  EXPECT_NEAR(rows / predicted, 1.0, 0.02);
  EXPECT_GT(rows / exact, 1.0);
  EXPECT_LT(rows / exact, 1.25);
}

TEST(EngramTier, ZipfDistinctCountCorrectsSampledPositions) {
  // As above, with the step model's expected distinct rows given: the count follows it.
  auto p = toy_tier(EngramTier::dram, toy_node(8, 2), 1);
  p.always_sample = true;
  p.sample_rows_per_step = 1024;
  EngramTierService s(p);
  const RowPopularity pop(16e6, 1.0);
  EngramLayerStep layer = analytic_layer(Time::zero(), 0.0);
  layer.distinct_rows = pop.expected_distinct(4096) * 24;
  double rows = 0;
  run_steps(s, {layer}, one_position_spans(4096, 100), 50,
            [&](int, const EngramStepOutcome& o) { rows += o.stats.host_rows; });
  EXPECT_NEAR(rows / 50 / layer.distinct_rows, 1.0, 0.01);
}

TEST(EngramTier, SsdPageCacheHitsCutPageReads) {
  auto p = toy_tier(EngramTier::ssd, toy_node(8, 2, 4), 1, 1, 20000);
  p.always_sample = true;
  double pages_small = 0, pages_big = 0;
  for (const double mib : {1.0, 64.0}) {
    p.dram_cache = Bytes(mib * 1048576.0);
    EngramTierService s(p);
    double pages = 0;
    run_steps(s, {analytic_layer(Time::zero(), 0.0)}, one_position_spans(16, 7), 400,
              [&](int k, const EngramStepOutcome& o) {
                if (k >= 200) pages += o.stats.ssd_pages;
                EXPECT_LE(o.stats.cache_hits, o.stats.cache_lookups);
              });
    (mib < 2 ? pages_small : pages_big) = pages;
    if (mib > 2) {
      EXPECT_GT(s.report().cache_hit_ratio(), 0.5);
    }
  }
  EXPECT_LT(pages_big, 0.5 * pages_small);
}

TEST(EngramTier, TextAccessReadsTheHashedRowsOfTheText) {
  const ModelCard card = load_model_card("deepseek-v4.1-flash");
  const EngramSpec& e = *card.engram;
  EngramAccessParams a;
  a.model = AccessModel::text;
  a.hash = {static_cast<int>(e.layers.size()),
            e.min_order,
            e.max_order,
            e.heads_per_order,
            e.vocab_size_per_ngram,
            e.compressed_vocab_size,
            e.pad_token_id,
            e.hash_seed,
            {}};
  EngramTableShape shape{e.table_rows, e.rows_per_token_per_layer(), 12};  // TP2: rank 0 reads 12 sub-tables
  const auto model = make_engram_access(a, shape);
  RngStream rng(1);
  // The same (request, position) always reads the same rows; rows lie inside the layer's table,
  // and rank 0's 12 sub-tables of one position are 12 different rows.
  for (int layer = 0; layer < 2; ++layer)
    for (std::int64_t pos = 0; pos < 50; ++pos) {
      std::vector<std::int64_t> rows;
      for (int j = 0; j < 12; ++j) {
        const std::int64_t r = model->row(layer, j, 42, pos, rng);
        EXPECT_EQ(r, model->row(layer, j, 42, pos, rng));
        EXPECT_GE(r, 0);
        EXPECT_LT(r, e.table_rows[static_cast<std::size_t>(layer)]);
        rows.push_back(r);
      }
      std::sort(rows.begin(), rows.end());
      EXPECT_EQ(std::unique(rows.begin(), rows.end()), rows.end());
    }
  // A request reads the text as a ring: position p of one request is position p + d of another
  // for some shift d, so the two requests' row streams are shifts of each other.
  std::vector<std::int64_t> a0, b0;
  for (std::int64_t p = 0; p < 3000; ++p) {
    a0.push_back(model->row(0, 0, 1, p, rng));
    b0.push_back(model->row(0, 0, 2, p, rng));
  }
  bool shifted = false;
  for (std::size_t d = 0; d < 1500 && !shifted; ++d)
    shifted = std::equal(b0.begin(), b0.begin() + 100, a0.begin() + static_cast<std::ptrdiff_t>(d));
  EXPECT_TRUE(shifted);
}

TEST(EngramTier, ZipfAccessScattersRanksInsideEachSubtable) {
  EngramAccessParams a;
  a.zipf_s = 1.2;
  const auto model = make_engram_access(a, EngramTableShape{{24000, 24000}, 24, 24});
  RngStream rng(7);
  std::vector<int> per_sub(24, 0);
  for (int i = 0; i < 20000; ++i) {
    const int j = i % 24;
    const std::int64_t r = model->row(1, j, 0, 0, rng);
    ASSERT_GE(r, j * 1000);
    ASSERT_LT(r, (j + 1) * 1000);
  }
  // The most popular rank is not row 0 of its sub-table (the bijection moves it).
  std::vector<int> hist(1000, 0);
  for (int i = 0; i < 20000; ++i) ++hist[static_cast<std::size_t>(model->row(0, 0, 0, 0, rng))];
  const auto top = std::max_element(hist.begin(), hist.end()) - hist.begin();
  EXPECT_NE(top, 0);
  EXPECT_GT(hist[static_cast<std::size_t>(top)], 20000 * 0.15);
  EXPECT_STREQ(to_string(AccessModel::text), "text");  // a model is an enum: an unknown name cannot reach here
}

TEST(EngramTier, RejectsBadParameters) {
  auto p = toy_tier(EngramTier::hbm, toy_node(8, 2), 1);
  EXPECT_THROW(EngramTierService{p}, std::invalid_argument);
  p = toy_tier(EngramTier::ssd, toy_node(8, 2, 0), 1);
  EXPECT_THROW(EngramTierService{p}, std::invalid_argument);
  EXPECT_FALSE(hot_row_policy_from("fifo").has_value());  // names are checked where scenarios are read
  EXPECT_EQ(hot_row_policy_from("static"), HotRowPolicy::static_top);
  p = toy_tier(EngramTier::dram, toy_node(8, 2), 1);
  p.backend = "ns3";
  EXPECT_THROW(EngramTierService{p}, ConfigError);
}

TEST(EngramTier, EveryNodePresetBuildsAFabric) {
  for (const auto& entry : list_catalog("hardware/nodes")) {
    const NodeSpec node = load_node(entry.name);
    const fabric::NodeFabricParams p = node_fabric_params(node);
    const fabric::NodeFabric nf = fabric::build_node_fabric(p);
    EXPECT_EQ(nf.dram_to_gpu.size(), static_cast<std::size_t>(node.gpu_count)) << entry.name;
    EXPECT_EQ(nf.drive_to_dram.size(), static_cast<std::size_t>(node.nvme.count)) << entry.name;
    // A host read crosses the preset's host-link latency once.
    EXPECT_EQ(nf.topology.route(nf.dram_to_gpu[0]).latency, node.host_link_latency) << entry.name;
  }
  const fabric::NodeFabricParams hgx = node_fabric_params(load_node("hgx-h100"));
  EXPECT_EQ(hgx.host_attach, fabric::HostAttach::pcie_switch);
  EXPECT_EQ(hgx.drive_attach, fabric::DriveAttach::gpu_switch);
  EXPECT_EQ(hgx.gpu_groups.size(), 4u);
  const fabric::NodeFabricParams gb = node_fabric_params(load_node("gb200-nvl72"));
  EXPECT_EQ(gb.host_attach, fabric::HostAttach::c2c);
  // The preset's per-Grace C2C port (shared by its 2 GPUs) reaches the fabric, as in the formula.
  EXPECT_EQ(gb.switch_uplink_bandwidth.value(), 450e9);
  const fabric::NodeFabric gb_fabric = fabric::build_node_fabric(gb);
  EXPECT_EQ(gb_fabric.topology.route(gb_fabric.dram_to_gpu[0]).hops.size(), 3u);  // DRAM, C2C port, GPU link
  EXPECT_EQ(gb.drive_attach, fabric::DriveAttach::own_switch);
}

}  // namespace
}  // namespace engramsim
