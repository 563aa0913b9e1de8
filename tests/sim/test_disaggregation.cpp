// Disaggregated serving (sim/serving/replica/disaggregated_deployment.hpp): a request's path from a
// prefill replica through a KV transfer to a decode replica, timed exactly on an idle fabric; the
// decode side's block reservation, conditional local prefill, and where the pools' GPUs sit.
#include <gtest/gtest.h>

#include <set>

#include "sim/fabric/simgrid_fabric.hpp"
#include "sim/metrics/summary_metrics.hpp"
#include "sim_test_support.hpp"
#include "tests/fabric/fabric_nodes.hpp"

using namespace engramsim;
using namespace engramsim::sim;
using namespace engramsim::sim::testing;

namespace {

const FixedStepModel& step_10ms() {
  static const FixedStepModel m(Time::ms(10));
  return m;
}

// One node kind with a GPU, a PCIe-like host link and an RDMA NIC.
fabric::NodeFabricParams one_gpu_node() { return fabric::testing::one_gpu_nic_node(); }

ReplicaParams replica(std::int64_t blocks) {
  ReplicaParams r;
  r.step_model = &step_10ms();
  r.kv = KvPoolParams{blocks, 16, true};
  r.gpus = 1;
  return r;
}

Request request(std::uint64_t id, Time arrival, std::int32_t prompt, std::int32_t output, std::uint64_t session) {
  Request r;
  r.id = id;
  r.arrival = arrival;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.session = session;
  r.hash_block_tokens = 16;
  for (std::int32_t b = 0; b * 16 < prompt; ++b) r.prefix_hashes.push_back(session * 1000 + b);
  return r;
}

// One prefill and one decode replica on two one-GPU nodes; 1,000 B of KV per token.
RunConfig disaggregated(std::vector<Request> requests, std::int64_t decode_blocks = 10000) {
  RunConfig cfg;
  cfg.replicas.push_back(replica(decode_blocks));
  cfg.scheduler.max_num_batched_tokens = 8192;
  cfg.scheduler.max_num_seqs = 64;
  DisaggregationParams d;
  d.prefill_replicas.push_back(replica(10000));
  d.prefill_scheduler = cfg.scheduler;
  d.transfer.bytes_per_token = Bytes(1000);
  d.transfer.prefill = {"a", one_gpu_node(), 0, 1, KvLayout::replicated};
  d.transfer.decode = {"b", one_gpu_node(), 0, 1, KvLayout::replicated};
  d.transfer.setup = Time::us(10);
  cfg.disaggregation = d;
  cfg.workload.source = [requests](std::uint64_t) { return std::make_unique<VectorSource>(requests); };
  return cfg;
}

const RequestRecord& record(const RunResult& r, std::uint64_t id) {
  for (const auto& rec : r.requests)
    if (rec.id == id) return rec;
  throw std::out_of_range("no record");
}

}  // namespace

TEST(Disaggregation, ARequestOnAnIdleFabricWaitsPrefillTransferAndOneDecodeStep) {
  const RunResult r = run_simulation(disaggregated({request(0, Time::zero(), 1000, 5, 1)}));
  const RequestRecord& rec = record(r, 0);
  ASSERT_EQ(rec.status, RequestStatus::finished);
  // Prefill step 10 ms; setup 10 us; 1,000 tokens x 1,000 B over the 50 GB/s NIC = 20 us, plus the
  // route's latency: each end's host link (1 us) and NIC (2 us); then the decode replica computes
  // the last prompt token and samples the first one in a 10 ms step.
  const Time transfer = Time::us(10) + Time::us(20) + Time::us(6);
  EXPECT_EQ(rec.first_token, Time::ms(20) + transfer);
  EXPECT_EQ(rec.finish, Time::ms(60) + transfer);  // four more decode steps
  EXPECT_EQ(rec.generated_tokens, 5);
  ASSERT_TRUE(r.disaggregation.has_value());
  EXPECT_EQ(r.disaggregation->remote_prefills, 1);
  EXPECT_EQ(r.disaggregation->transfers, 1);
  EXPECT_DOUBLE_EQ(r.disaggregation->transferred.value(), 1000.0 * 1000.0);
  EXPECT_EQ(r.disaggregation->transfer_time, transfer);
  EXPECT_EQ(r.disaggregation->prefill_busy, Time::ms(10));
  EXPECT_EQ(r.disaggregation->prefill_gpus, 1);
  EXPECT_EQ(r.disaggregation->decode_gpus, 1);
  EXPECT_EQ(r.summary.num_gpus, 2);
  ASSERT_TRUE(r.summary.disaggregated);
  EXPECT_EQ(r.summary.prefill_gpus, 1);
  EXPECT_DOUBLE_EQ(r.summary.remote_prefill_share, 1.0);
  EXPECT_DOUBLE_EQ(r.summary.kv_transfer_gb, 1e-3);
  EXPECT_DOUBLE_EQ(r.summary.mean_prefill_queue_ms, 0.0);
  EXPECT_DOUBLE_EQ(r.summary.mean_prefill_ms, 10.0);
  EXPECT_DOUBLE_EQ(r.summary.mean_decode_queue_ms, 0.0);
  EXPECT_NEAR(r.summary.mean_kv_transfer_ms, 0.036, 1e-12);
  EXPECT_NEAR(r.summary.prefill_busy_fraction, 10.0 / (60.036), 1e-9);
  // Each pool's rate over its own GPU: 1,000 prompt tokens and 5 output tokens over the run.
  const auto& metrics = summary_metrics();
  const double seconds = r.summary.duration_s;
  EXPECT_NEAR(summary_metric_value(metrics, "prefill_input_tput_per_gpu", r.summary), 1000.0 / seconds, 1e-9);
  EXPECT_NEAR(summary_metric_value(metrics, "decode_output_tput_per_gpu", r.summary), 5.0 / seconds, 1e-9);
  EXPECT_NEAR(r.summary.input_tput_per_gpu, 500.0 / seconds, 1e-9);  // both pools' GPUs
}

TEST(Disaggregation, ARequestWaitsForDecodeBlocksInsteadOfDropping) {
  // The decode pool holds one request's life (1,000 + 5 tokens, 63 blocks) but not two.
  const RunResult r =
      run_simulation(disaggregated({request(0, Time::zero(), 1000, 5, 1), request(1, Time::zero(), 1000, 5, 2)}, 70));
  const RequestRecord& first = record(r, 0);
  const RequestRecord& second = record(r, 1);
  ASSERT_EQ(first.status, RequestStatus::finished);
  ASSERT_EQ(second.status, RequestStatus::finished);
  EXPECT_GE(second.first_token, first.finish);
  EXPECT_EQ(r.disaggregation->transfers, 2);
}

TEST(Disaggregation, APromptMostlyCachedOnItsDecodeReplicaIsPrefilledThere) {
  // The second turn repeats the first turn's prompt and adds 32 tokens: its decode replica holds
  // 992 of its 1,032 tokens, so 40 remain, under the threshold of 64.
  Request turn2 = request(1, Time::ms(200), 1032, 5, 1);
  RunConfig cfg = disaggregated({request(0, Time::zero(), 1000, 5, 1), turn2});
  cfg.disaggregation->local_prefill_threshold = 64;
  const RunResult r = run_simulation(cfg);
  EXPECT_EQ(r.disaggregation->remote_prefills, 1);
  EXPECT_EQ(r.disaggregation->local_prefills, 1);
  const RequestRecord& rec = record(r, 1);
  EXPECT_EQ(rec.cached_prompt_tokens, 992);
  EXPECT_EQ(rec.first_token, Time::ms(210));  // one local step, no transfer
}

TEST(Disaggregation, TheDecodeSideReceivesOnlyTheBlocksItLacks) {
  // Without conditional prefill both turns go through the prefill pool; the second one's first
  // 992 tokens are already in the decode replica's prefix cache.
  const RunResult r =
      run_simulation(disaggregated({request(0, Time::zero(), 1000, 5, 1), request(1, Time::ms(200), 1032, 5, 1)}));
  EXPECT_EQ(r.disaggregation->remote_prefills, 2);
  EXPECT_DOUBLE_EQ(r.disaggregation->transferred.value(), (1000.0 + 40.0) * 1000.0);
  EXPECT_EQ(record(r, 1).cached_prompt_tokens, 992);
  EXPECT_EQ(r.disaggregation->prefill_cached_tokens, 992);  // the prefill replica kept it too
}

TEST(Disaggregation, PoolsOfOneNodeKindShareNodesAndOtherKindsGetTheirOwn) {
  PoolPlacement hgx{"hgx", one_gpu_node(), 0, 4, KvLayout::replicated};
  hgx.node.gpu_count = 8;
  ClusterPlacement c = place_pools(hgx, {4, 4}, hgx, {4});
  ASSERT_EQ(c.nodes.size(), 2u);
  EXPECT_EQ(c.decode[0][0].node, 1);
  EXPECT_EQ(c.decode[0][0].gpu, 0);
  EXPECT_EQ(c.prefill[1][3].gpu, 7);

  PoolPlacement other = hgx;
  other.node_name = "other";
  c = place_pools(hgx, {4}, other, {4});
  ASSERT_EQ(c.nodes.size(), 2u);
  EXPECT_EQ(c.prefill[0][0].node, 0);
  EXPECT_EQ(c.decode[0][0].node, 1);
  EXPECT_NE(c.domains[0], c.domains[1]);

  // A replica that does not fit the rest of a node starts on the next one; one wider than a node
  // takes whole nodes.
  c = place_pools(hgx, {4, 6, 16}, other, {1});
  EXPECT_EQ(c.prefill[1][0].node, 1);
  EXPECT_EQ(c.prefill[2][0].node, 2);
  EXPECT_EQ(c.prefill[2][15].node, 3);
  EXPECT_EQ(c.decode[0][0].node, 4);
}

TEST(Disaggregation, TraysOfOneNvlinkDomainShareADomain) {
  PoolPlacement tray{"nvl72", one_gpu_node(), 72, 4, KvLayout::replicated};
  tray.node.gpu_count = 4;
  const ClusterPlacement c = place_pools(tray, {4, 4}, tray, {4, 4});
  ASSERT_EQ(c.nodes.size(), 4u);
  for (const int d : c.domains) EXPECT_EQ(d, 0);
}

TEST(Disaggregation, PerChunkSendsOverlapThePrefillAndLeaveOnlyTheLastChunkExposed) {
  // 20,000 prompt tokens in chunks of 8,192, 8,192 and 3,616 tokens, one 10 ms step each. The
  // decode replica reserves at once; after the 10 us bootstrap the prefill starts, and each chunk's
  // KV leaves when its step ends; the first two land long before the prefill ends, so what remains
  // after it is the last chunk: 3,616,000 B over the 50 GB/s NIC (72.32 us) plus the route's 6 us.
  RunConfig cfg = disaggregated({request(0, Time::zero(), 20000, 5, 1)});
  cfg.disaggregation->transfer.send = KvSend::per_chunk;
  const RunResult r = run_simulation(cfg);
  const RequestRecord& rec = record(r, 0);
  ASSERT_EQ(rec.status, RequestStatus::finished);
  const double exposed = 72.32e-6 + 6e-6;
  EXPECT_NEAR(rec.first_token.seconds(), 0.040 + 10e-6 + exposed, 1e-9);
  EXPECT_EQ(r.disaggregation->transfers, 1);
  EXPECT_DOUBLE_EQ(r.disaggregation->transferred.value(), 20000.0 * 1000.0);
  EXPECT_NEAR(r.disaggregation->transfer_time.seconds(), exposed, 1e-9);
  EXPECT_DOUBLE_EQ(r.summary.mean_prefill_queue_ms, 0.0);
  EXPECT_DOUBLE_EQ(r.summary.mean_prefill_ms, 30.0);
  EXPECT_DOUBLE_EQ(r.summary.mean_decode_queue_ms, 0.0);
  // Sent after the whole prefill instead: all 20 MB after the third step (400 us + 6 us + setup).
  cfg.disaggregation->transfer.send = KvSend::after_prefill;
  const RunResult whole = run_simulation(cfg);
  EXPECT_NEAR(record(whole, 0).first_token.seconds(), 0.040 + 10e-6 + 400e-6 + 6e-6, 1e-9);
}

TEST(Disaggregation, PerChunkReservesOnTheDecodeSideBeforeThePrefillStarts) {
  // The decode pool holds one request's life (63 blocks) but not two: the second request's prefill
  // waits for the first to leave the decode replica, so its first token comes a prefill step and a
  // decode step after that. Sent after the prefill, it would have been prefilled meanwhile.
  const std::vector<Request> two{request(0, Time::zero(), 1000, 5, 1), request(1, Time::zero(), 1000, 5, 2)};
  RunConfig cfg = disaggregated(two, 70);
  cfg.disaggregation->transfer.send = KvSend::per_chunk;
  const RunResult r = run_simulation(cfg);
  const RequestRecord& first = record(r, 0);
  const RequestRecord& second = record(r, 1);
  ASSERT_EQ(second.status, RequestStatus::finished);
  EXPECT_GE(second.first_token, first.finish + Time::ms(20));
  cfg.disaggregation->transfer.send = KvSend::after_prefill;
  const RunResult pulled = run_simulation(cfg);
  EXPECT_LT(record(pulled, 1).first_token, record(pulled, 0).finish + Time::ms(20));
}

TEST(Disaggregation, ThePrefillReplicaHoldsTheKvUntilTheDecodeSideHasIt) {
  // Both pools hold one 1,000-token request (63 blocks of 16) at a time. R0 is prefilled in 0-10 ms
  // and sent in 36 us; R1's prefill waits for R0's blocks to be freed (10.036 ms), ends at 20.036
  // and R1 then waits for the decode replica until R0 finishes (60.036 ms: a step for the first
  // token, four more); only when R1's KV has landed (60.072 ms) may R2's prefill start.
  const std::vector<Request> three{request(0, Time::zero(), 1000, 5, 1), request(1, Time::zero(), 1000, 5, 2),
                                   request(2, Time::zero(), 1000, 5, 3)};
  RunConfig cfg = disaggregated(three, 70);
  cfg.disaggregation->prefill_replicas[0].kv.num_blocks = 70;
  const RunResult r = run_simulation(cfg);
  for (const RequestRecord& rec : r.requests) ASSERT_EQ(rec.status, RequestStatus::finished);
  const double transfer = 36e-6;
  EXPECT_NEAR(record(r, 0).finish.seconds(), 0.060 + transfer, 1e-9);
  // The prefill queue of R0, R1, R2: 0, 10 ms + one transfer, R0's life + two transfers.
  EXPECT_NEAR(r.summary.mean_prefill_queue_ms, 1e3 * (0.0 + (0.010 + transfer) + (0.060 + 2 * transfer)) / 3, 1e-6);
}

TEST(Disaggregation, RunsAreDeterministicAndConserveRequests) {
  std::vector<Request> reqs;
  for (std::uint64_t i = 0; i < 40; ++i)
    reqs.push_back(
        request(i, Time::ms(static_cast<std::int64_t>(3 * i)), 500 + 37 * static_cast<std::int32_t>(i), 20, 1 + i % 7));
  for (const KvSend send : {KvSend::after_prefill, KvSend::per_chunk}) {
    RunConfig cfg = disaggregated(reqs, 400);
    cfg.disaggregation->prefill_replicas.push_back(replica(10000));
    cfg.disaggregation->local_prefill_threshold = 100;
    cfg.disaggregation->transfer.send = send;
    const RunResult a = run_simulation(cfg);
    const RunResult b = run_simulation(cfg);
    ASSERT_EQ(a.requests.size(), 40u) << to_string(send);
    for (std::size_t i = 0; i < a.requests.size(); ++i) {
      EXPECT_EQ(a.requests[i].status, RequestStatus::finished) << to_string(send);
      EXPECT_EQ(a.requests[i].finish, b.requests[i].finish) << to_string(send);
    }
    EXPECT_EQ(a.disaggregation->remote_prefills + a.disaggregation->local_prefills, 40) << to_string(send);
  }
}

TEST(Disaggregation, ARunCutShortReportsEachRequestOnce) {
  // The run ends while requests sit in both pools: each is reported once, as unfinished.
  std::vector<Request> reqs;
  for (std::uint64_t i = 0; i < 20; ++i)
    reqs.push_back(request(i, Time::ms(static_cast<std::int64_t>(i)), 9000, 50, i));
  for (const KvSend send : {KvSend::after_prefill, KvSend::per_chunk}) {
    RunConfig cfg = disaggregated(reqs);
    cfg.disaggregation->transfer.send = send;
    cfg.horizon = Time::ms(100);
    const RunResult r = run_simulation(cfg);
    std::set<std::uint64_t> ids;
    for (const RequestRecord& rec : r.requests) EXPECT_TRUE(ids.insert(rec.id).second) << to_string(send);
    EXPECT_EQ(ids.size(), reqs.size()) << to_string(send);
  }
}

// The same run with its KV transfers on SimGrid's flow model: the same times to 1e-6 (the backends'
// agreement, docs/fabric.md), here with transfers sharing one NIC.
TEST(Disaggregation, BothFabricBackendsGiveTheSameRun) {
  if (!fabric::simgrid_fabric_available({})) GTEST_SKIP() << "no simgrid";
  std::vector<Request> reqs;
  for (std::uint64_t i = 0; i < 12; ++i)
    reqs.push_back(request(i, Time::ms(static_cast<std::int64_t>(i)), 12000, 8, i));
  for (const KvSend send : {KvSend::after_prefill, KvSend::per_chunk}) {
    RunConfig cfg = disaggregated(reqs);
    cfg.disaggregation->prefill_replicas.push_back(replica(10000));
    cfg.disaggregation->transfer.send = send;
    const RunResult native = run_simulation(cfg);
    cfg.disaggregation->transfer.backend = "simgrid";
    const RunResult simgrid = run_simulation(cfg);
    ASSERT_EQ(native.requests.size(), simgrid.requests.size());
    for (std::size_t i = 0; i < native.requests.size(); ++i) {
      const double a = native.requests[i].first_token.seconds();
      EXPECT_NEAR(simgrid.requests[i].first_token.seconds(), a, 1e-6 * a) << to_string(send);
    }
    EXPECT_NEAR(simgrid.summary.mean_kv_transfer_ms, native.summary.mean_kv_transfer_ms,
                1e-6 * native.summary.mean_kv_transfer_ms)
        << to_string(send);
  }
}
