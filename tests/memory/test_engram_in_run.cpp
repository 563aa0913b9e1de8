// Whole runs with the in-run Engram tier: the stall of a step measured on the node fabric by hand,
// the acceptance cases (shared PCIe switches halve the per-GPU fetch bandwidth; SSD-tier throughput
// rises with the DRAM page cache and with Zipf skew and falls with fewer drives), cache warm-up in
// the time series, the Chrome trace, determinism, several nodes, and backend agreement.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "engram_tier_test_util.hpp"
#include "scenario/build/scenario_build.hpp"
#include "scenario/schema/scenario.hpp"
#include "sim/fabric/fabric.hpp"
#include "sim/fabric/simgrid_fabric.hpp"
#include "sim/metrics/result_writers.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/serving/replica/step_cost.hpp"
#include "sim/serving/replica/step_executor.hpp"
#include "tests/support/config_error.hpp"

namespace engramsim {
namespace {

using sim::RunConfig;
using sim::RunResult;
using test::toy_node;
using test::toy_tier;
using test::ToyEngramModel;

class ListSource final : public sim::RequestSource {
 public:
  explicit ListSource(std::vector<sim::Request> r) : requests_(std::move(r)) {}
  bool next(sim::Request& out) override {
    if (i_ >= requests_.size()) return false;
    out = requests_[i_++];
    return true;
  }
  std::string describe() const override { return "test requests"; }

 private:
  std::vector<sim::Request> requests_;
  std::size_t i_ = 0;
};

// A replica of `model` with 100,000 blocks of 16 tokens and no prefix caching.
sim::ReplicaParams toy_replica(const StepTimeModel& model) {
  sim::ReplicaParams rp;
  rp.step_model = &model;
  rp.kv = sim::KvPoolParams{100000, 16, false};
  return rp;
}

// Closed loop: `clients` clients, `n` requests of `prompt` / `output` tokens.
RunConfig closed_loop(const StepTimeModel& model, int replicas, int clients, int n, int prompt, int output) {
  RunConfig cfg;
  for (int i = 0; i < replicas; ++i) cfg.replicas.push_back(toy_replica(model));
  cfg.scheduler.max_num_batched_tokens = 8192;
  cfg.scheduler.max_num_seqs = 256;
  cfg.router = "round_robin";
  cfg.workload.concurrency = clients;
  cfg.workload.max_requests = static_cast<std::uint64_t>(n);
  cfg.workload.source = [n, prompt, output](std::uint64_t) {
    std::vector<sim::Request> r(static_cast<std::size_t>(n));
    for (auto& q : r) {
      q.prompt_tokens = prompt;
      q.output_tokens = output;
    }
    return std::make_unique<ListSource>(std::move(r));
  };
  return cfg;
}

TEST(EngramInRun, StepStallIsMeasuredOnTheFabric) {
  // One request of 10 prompt tokens and 1 output token: one step of 1 ms of compute. Layer 0 (at
  // forward entry) fetches 10 x 24 rows of 264 B: 1 us of latency + 0.99 us at 64 GB/s, all exposed;
  // layer 1 (at 0.5 ms) finishes long before the GPU gets there.
  const ToyEngramModel model(Time::ms(1), Time::zero(), {0.0, 0.5}, 24);
  RunConfig cfg = closed_loop(model, 1, 1, 1, 10, 1);
  const RunResult formula = run_simulation(cfg);
  EXPECT_EQ(formula.requests.at(0).first_token, Time::ms(1));
  EXPECT_FALSE(formula.engram_tier.has_value());
  cfg.engram_tier = toy_tier(EngramTier::dram, toy_node(8, 2), 1);
  const RunResult r = run_simulation(cfg);
  EXPECT_EQ(r.requests.at(0).first_token, Time::ms(1) + Time::ns(1990));
  EXPECT_NEAR(r.summary.engram_stall_s, 1.99e-6, 1e-12);
  ASSERT_TRUE(r.engram_tier.has_value());
  EXPECT_EQ(r.engram_tier->steps, 1u);
  EXPECT_EQ(r.engram_tier->flows, 2u);
  EXPECT_DOUBLE_EQ(r.engram_tier->totals.host_bytes, 2 * 240 * 264.0);
}

// A replica prices its steps through one executor: by formula without a tier or without Engram
// layers in the model, in-run otherwise. The formula executor hands over the model's cost at once.
struct RecordingSink final : sim::StepCostSink {
  int calls = 0;
  StepCost cost;
  Time start;
  bool engram = false;
  void on_step_priced(const StepCost& c, Time s, const EngramStepOutcome* e) override {
    ++calls;
    cost = sim::assemble_step_cost({c, e, Time::zero(), Time::zero(), s, s}).cost;
    start = s;
    engram = e != nullptr;
  }
};

TEST(StepExecutor, ChosenByTierAndEngramLayers) {
  const ToyEngramModel engram_model(Time::ms(1), Time::zero(), {0.0, 0.5}, 24);
  const ToyEngramModel no_layers(Time::ms(1), Time::zero(), {}, 24);
  sim::Simulation simulation(1);
  sim::EngramInRun tier(simulation, toy_tier(EngramTier::dram, toy_node(8, 2), 1));
  using sim::FormulaStepExecutor;
  using sim::InRunStepExecutor;
  EXPECT_NE(dynamic_cast<FormulaStepExecutor*>(sim::make_step_executor(engram_model, nullptr, 0).get()), nullptr);
  EXPECT_NE(dynamic_cast<FormulaStepExecutor*>(sim::make_step_executor(no_layers, &tier, 0).get()), nullptr);
  EXPECT_NE(dynamic_cast<InRunStepExecutor*>(sim::make_step_executor(engram_model, &tier, 0).get()), nullptr);

  const std::vector<PrefillChunk> prefill = {{10, 0}};
  sim::StepPlan plan;
  sim::StepStart step;
  step.now = Time::us(7);
  step.shape = BatchShape{prefill, {}};
  step.plan = &plan;
  RecordingSink sink;
  FormulaStepExecutor formula(engram_model);
  formula.begin(step, sink);
  EXPECT_EQ(sink.calls, 1);
  EXPECT_EQ(sink.start, Time::us(7));
  EXPECT_FALSE(sink.engram);
  EXPECT_EQ(sink.cost.total, engram_model.step(step.shape).total);
}

// Per-GPU fetch bandwidth of 8 TP1 replicas whose fetches dominate their steps (4 KiB rows).
double per_gpu_fetch_bandwidth(int gpus_per_switch, double* throughput) {
  const ToyEngramModel model(Time::us(20), Time::zero(), {0.0, 0.5}, 24, 4096.0);
  RunConfig cfg = closed_loop(model, 8, 128, 640, 64, 32);
  auto tier = toy_tier(EngramTier::dram, toy_node(8, gpus_per_switch), 8);
  tier.row_bytes = Bytes(4096.0);
  cfg.engram_tier = tier;
  const RunResult r = run_simulation(cfg);
  EXPECT_EQ(r.summary.completed, 640);
  *throughput = r.summary.output_throughput;
  return r.engram_tier->per_gpu_fetch_bandwidth();
}

TEST(EngramInRun, TwoGpusPerPcieSwitchHalveThePerGpuFetchBandwidth) {
  double alone_tput = 0, shared_tput = 0;
  const double alone = per_gpu_fetch_bandwidth(1, &alone_tput);    // 8 switches, one GPU each
  const double shared = per_gpu_fetch_bandwidth(2, &shared_tput);  // 4 switches, two GPUs each
  RecordProperty("alone_GBps", std::to_string(alone * 1e-9));
  RecordProperty("shared_GBps", std::to_string(shared * 1e-9));
  EXPECT_GT(alone, 55e9);  // 64 GB/s links less the route latency
  EXPECT_NEAR(shared / alone, 0.5, 0.05);
  EXPECT_LT(shared_tput, 0.75 * alone_tput);
}

struct SsdCase {
  double zipf = 1.0;
  double cache_mib = 64;
  int drives = 4;
};

double ssd_throughput(const SsdCase& c, RunResult* out = nullptr) {
  const ToyEngramModel model(Time::us(400), Time::us(5), {0.0, 0.5}, 24);
  RunConfig cfg = closed_loop(model, 2, 32, 192, 128, 32);
  auto tier = toy_tier(EngramTier::ssd, toy_node(8, 2, c.drives), 2, 1, 200000);
  tier.node.drive_groups.clear();
  tier.access.zipf_s = c.zipf;
  tier.dram_cache = Bytes(c.cache_mib * 1048576.0);
  tier.always_sample = true;        // the same method for every case, cache or not
  tier.sample_rows_per_step = 128;  // decode steps: 8 of the 24 sub-tables
  cfg.engram_tier = tier;
  cfg.timeseries_interval = Time::ms(20);
  RunResult r = run_simulation(cfg);
  EXPECT_EQ(r.summary.completed, 192);
  const double t = r.summary.output_throughput;
  if (out) *out = std::move(r);
  return t;
}

TEST(EngramInRun, SsdThroughputRisesWithThePageCacheAndSkewAndFallsWithFewerDrives) {
  const double c0 = ssd_throughput({1.0, 0});
  const double c16 = ssd_throughput({1.0, 16});
  const double c64 = ssd_throughput({1.0, 64});
  const double c256 = ssd_throughput({1.0, 256});
  EXPECT_LT(c0 * 1.05, c16);
  EXPECT_LT(c16, c64);
  EXPECT_LT(c64, c256);
  const double s06 = ssd_throughput({0.6, 64});
  const double s12 = ssd_throughput({1.2, 64});
  EXPECT_LT(s06 * 1.05, c64);
  EXPECT_LT(c64 * 1.05, s12);
  const double d2 = ssd_throughput({1.0, 64, 2});
  const double d1 = ssd_throughput({1.0, 64, 1});
  EXPECT_LT(d2 * 1.05, c64);
  EXPECT_LT(d1 * 1.05, d2);
  RecordProperty("tput_cache_0_16_64_256", std::to_string(c0) + " " + std::to_string(c16) + " " + std::to_string(c64) +
                                               " " + std::to_string(c256));
  RecordProperty("tput_zipf_06_10_12", std::to_string(s06) + " " + std::to_string(c64) + " " + std::to_string(s12));
  RecordProperty("tput_drives_4_2_1", std::to_string(c64) + " " + std::to_string(d2) + " " + std::to_string(d1));
}

TEST(EngramInRun, CacheWarmUpShowsInTheTimeSeries) {
  RunResult r;
  ssd_throughput({1.0, 512}, &r);
  const sim::TimeSeries& ts = r.timeseries;
  ASSERT_TRUE(ts.has_engram_tier());
  ASSERT_GE(ts.bins().size(), 4u);
  const double first = ts.engram_cache_hit_ratio(0);
  const double last = ts.engram_cache_hit_ratio(ts.bins().size() - 2);
  EXPECT_LT(first + 0.1, last) << first << " -> " << last;
  std::ostringstream csv;
  sim::write_timeseries_csv(ts, csv);
  const std::string header = csv.str().substr(0, csv.str().find('\n'));
  EXPECT_NE(header.find(",engram_lookups,engram_hbm_hit_ratio,engram_host_gb,engram_ssd_pages,engram_cache_hit_ratio"),
            std::string::npos);
  // A run without the tier keeps the old columns.
  const ToyEngramModel model(Time::ms(1), Time::zero(), {0.0}, 24);
  std::ostringstream plain;
  sim::write_timeseries_csv(run_simulation(closed_loop(model, 1, 1, 2, 10, 2)).timeseries, plain);
  EXPECT_EQ(plain.str().find("engram_lookups"), std::string::npos);
}

TEST(EngramInRun, SameSeedSameResults) {
  // The text access model with both caches: every source of randomness is seeded.
  const ToyEngramModel model(Time::us(300), Time::us(4), {0.0, 0.4}, 24);
  RunConfig cfg = closed_loop(model, 2, 16, 64, 96, 16);
  auto tier = toy_tier(EngramTier::ssd, toy_node(8, 2, 8), 2, 1, 16000000);
  tier.hbm_cache = Bytes(4e6);
  tier.dram_cache = Bytes(32e6);
  tier.sample_rows_per_step = 128;
  tier.access.model = AccessModel::text;
  tier.access.hash = {2, 2, 4, 8, 16000000, 99092, 2, 0, {}};  // DeepSeek-V4.1-Flash's hashing
  tier.shape.table_rows = {384006168, 384016682};
  cfg.engram_tier = tier;
  cfg.seed = 5;
  std::ostringstream a, b;
  const RunResult r1 = run_simulation(cfg);
  const RunResult r2 = run_simulation(cfg);
  sim::write_summary_json(r1.summary, cfg.slo, a);
  sim::write_summary_json(r2.summary, cfg.slo, b);
  EXPECT_EQ(a.str(), b.str());
  EXPECT_EQ(r1.engram_tier->totals.ssd_pages, r2.engram_tier->totals.ssd_pages);
  EXPECT_GT(r1.engram_tier->hbm_hit_ratio(), 0.05);  // the text repeats its N-grams
  EXPECT_GT(r1.summary.engram_stall_s, 0.0);
}

TEST(EngramInRun, ReplicasBeyondOneNodeGetAnotherNodeFabric) {
  const ToyEngramModel model(Time::us(200), Time::us(2), {0.0}, 24);
  RunConfig cfg = closed_loop(model, 12, 48, 96, 32, 8);
  cfg.engram_tier = toy_tier(EngramTier::dram, toy_node(8, 2), 12);
  const RunResult r = run_simulation(cfg);
  EXPECT_EQ(r.summary.completed, 96);
  EXPECT_EQ(r.engram_tier->nodes, 2);
}

TEST(EngramInRun, KvOffloadTrafficFollowsPreemptions) {
  const ToyEngramModel model(Time::us(300), Time::us(2), {0.0}, 24);
  RunConfig cfg = closed_loop(model, 1, 64, 128, 200, 100);
  cfg.replicas[0].kv = sim::KvPoolParams{400, 16, false};  // 6,400 tokens: preempts
  auto tier = toy_tier(EngramTier::dram, toy_node(8, 2), 1);
  tier.swap_preempted_kv = true;
  tier.kv_bytes_per_token = Bytes(100000.0);
  cfg.engram_tier = tier;
  const RunResult r = run_simulation(cfg);
  ASSERT_GT(r.summary.preemptions, 0);
  EXPECT_GT(r.engram_tier->totals.kv_swap_bytes, 0.0);
  tier.swap_preempted_kv = false;
  cfg.engram_tier = tier;
  EXPECT_EQ(run_simulation(cfg).engram_tier->totals.kv_swap_bytes, 0.0);
}

TEST(EngramInRun, ChromeTraceHasStepsFetchesAndFlows) {
  const auto dir = std::filesystem::temp_directory_path() / ("engram_trace_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const ToyEngramModel model(Time::us(300), Time::us(4), {0.0, 0.5}, 24);
  RunConfig cfg = closed_loop(model, 2, 8, 40, 64, 8);
  auto tier = toy_tier(EngramTier::ssd, toy_node(8, 2, 8), 2);
  cfg.engram_tier = tier;
  cfg.trace.path = (dir / "run.json").string();
  cfg.trace.window = Time::ms(5);
  const RunResult r = run_simulation(cfg);
  std::ifstream f(cfg.trace.path);
  const auto j = nlohmann::json::parse(f);
  std::set<std::string> cats, threads;
  double last_ts = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "M") {
      if (e.at("name") == "thread_name") threads.insert(e.at("args").at("name").get<std::string>());
      continue;
    }
    EXPECT_EQ(e.at("ph"), "X");
    cats.insert(e.at("cat").get<std::string>());
    EXPECT_LT(e.at("ts").get<double>(), 5000.0);
    EXPECT_GE(e.at("ts").get<double>(), last_ts);  // written in time order
    last_ts = e.at("ts").get<double>();
  }
  EXPECT_EQ(cats, (std::set<std::string>{"step", "engram", "flow"}));
  EXPECT_TRUE(threads.count("replica0") && threads.count("replica1") && threads.count("gpu0 engram") &&
              threads.count("dram->gpu1") && threads.count("nvme0->dram"));
  EXPECT_GT(r.summary.duration_s, 0.005);  // the window cut the run
  std::filesystem::remove_all(dir);
}

TEST(EngramInRun, NativeAndSimGridBackendsAgree) {
  if (!fabric::simgrid_fabric_available()) GTEST_SKIP() << "SimGrid helper not built";
  const ToyEngramModel model(Time::us(100), Time::us(2), {0.0, 0.5}, 24, 4096.0);
  RunConfig cfg = closed_loop(model, 4, 8, 16, 64, 4);
  cfg.engram_tier = toy_tier(EngramTier::dram, toy_node(8, 2), 4);
  const RunResult native = run_simulation(cfg);
  cfg.engram_tier->backend = "simgrid";
  const RunResult simgrid = run_simulation(cfg);
  EXPECT_EQ(simgrid.engram_tier->backend, "simgrid");
  ASSERT_EQ(native.requests.size(), simgrid.requests.size());
  for (std::size_t i = 0; i < native.requests.size(); ++i) {
    const double a = native.requests[i].finish.seconds(), b = simgrid.requests[i].finish.seconds();
    EXPECT_NEAR(a, b, 1e-6 * a + 2e-9) << i;
  }
  EXPECT_NEAR(native.summary.engram_stall_s, simgrid.summary.engram_stall_s,
              1e-6 * native.summary.engram_stall_s + 1e-8);
}

// A disaggregated deployment of one-GPU replicas on nodes with a 50 GB/s NIC: a plain 10 ms
// prefill replica and a decode replica whose steps (1 ms) fetch `rows` Engram rows of 264 B per
// position at forward entry, in-run or by formula. Request 0 decodes 200 tokens from t = 0;
// request 1 (100,000 prompt tokens, 1,000 B of KV each: 100 MB) is prefilled from 20 ms on, so its
// KV lands on the decode GPU while request 0's steps fetch rows over the same host link.
RunConfig pd_run(const ToyEngramModel& decode_model, const ToyEngramModel& prefill_model, bool in_run,
                 const std::string& backend) {
  fabric::NodeFabricParams node = toy_node(1, 1);
  node.nic_bandwidth = Bandwidth(50e9);
  node.nic_latency = Time::us(2);
  RunConfig cfg;
  cfg.replicas.push_back(toy_replica(decode_model));
  cfg.scheduler.max_num_batched_tokens = 8192;
  cfg.scheduler.max_num_seqs = 16;
  sim::DisaggregationParams d;
  d.prefill_replicas.push_back(toy_replica(prefill_model));
  d.prefill_scheduler = cfg.scheduler;
  d.prefill_scheduler.max_num_batched_tokens = 200000;
  d.transfer.bytes_per_token = Bytes(1000);
  d.transfer.prefill = {"a", node, 0, 1, sim::KvLayout::replicated};
  d.transfer.decode = {"b", node, 0, 1, sim::KvLayout::replicated};
  d.transfer.backend = backend;
  cfg.disaggregation = d;
  if (in_run) {
    cfg.engram_tier = toy_tier(EngramTier::dram, node, 1);
    cfg.engram_tier->backend = backend;
  }
  std::vector<sim::Request> requests(2);
  requests[0].id = 0;
  requests[0].prompt_tokens = 16;
  requests[0].output_tokens = 200;
  requests[1].id = 1;
  requests[1].arrival = Time::ms(20);
  requests[1].prompt_tokens = 100000;
  requests[1].output_tokens = 1;
  cfg.workload.source = [requests](std::uint64_t) { return std::make_unique<ListSource>(requests); };
  return cfg;
}

// The KV moves over the decode GPU's host link (facts: NIC -> PCIe switch -> GPU), where the
// decode steps' Engram rows arrive too: on one fabric the transfer waits for its share of that
// link, and the step stall for its share.
TEST(EngramInRun, KvTransfersShareTheDecodeGpusHostLinkWithEngramFetches) {
  const ToyEngramModel decode_model(Time::ms(1), Time::zero(), {0.0}, 100000);  // 26.4 MB a step
  const ToyEngramModel prefill_model(Time::ms(10), Time::zero(), {}, 0);
  const RunResult idle = run_simulation(pd_run(decode_model, prefill_model, false, "native"));
  const RunResult shared = run_simulation(pd_run(decode_model, prefill_model, true, "native"));
  ASSERT_TRUE(idle.disaggregation && shared.disaggregation);
  EXPECT_EQ(idle.disaggregation->transfers, 2);
  EXPECT_EQ(shared.disaggregation->transfers, 2);
  // Request 1 alone on its route: 100 MB at the NIC's 50 GB/s (2 ms) plus 2.5 us of latency per
  // end (host link 0.5, NIC 2); request 0's 16 KB take 0.32 us plus the same latency.
  const Time alone = Time::ms(2) + Time::us(5);
  const Time first = Time::ns(320) + Time::us(5);
  EXPECT_EQ(idle.disaggregation->transfer_time, alone + first);
  // Shared: request 0's fetches (26.4 MB at entry of each 1 ms step, 0.41 ms alone) take half the
  // link while both flow, so request 1's transfer lasts longer, by less than the fetches it met.
  const Time waited = shared.disaggregation->transfer_time - idle.disaggregation->transfer_time;
  EXPECT_GT(waited, Time::us(100));
  EXPECT_LT(waited, Time::ms(1));
  ASSERT_TRUE(shared.engram_tier.has_value());
  EXPECT_GT(shared.summary.engram_stall_s, 0.0);
  if (!fabric::simgrid_fabric_available()) GTEST_SKIP() << "SimGrid helper not built";
  const RunResult simgrid = run_simulation(pd_run(decode_model, prefill_model, true, "simgrid"));
  const double a = shared.disaggregation->transfer_time.seconds();
  EXPECT_NEAR(simgrid.disaggregation->transfer_time.seconds(), a, 1e-6 * a);
  ASSERT_EQ(shared.requests.size(), simgrid.requests.size());
  for (std::size_t i = 0; i < shared.requests.size(); ++i) {
    const double f = shared.requests[i].finish.seconds();
    EXPECT_NEAR(simgrid.requests[i].finish.seconds(), f, 1e-6 * f + 2e-9) << i;
  }
}

// DeepSeek-V4.1-Flash, TP2 on an HGX B300 (4 replicas on one node), `engram` lines under
// deployment.engram, `top` lines at the top level.
std::string v41_scenario(const std::string& engram, const std::string& top = "") {
  return "name: t\nmodel: deepseek-v4.1-flash\nnode: hgx-b300\nseed: 3\n" + top +
         "deployment:\n  nodes: 1\n  tp: 2\n  engram:\n" + engram +
         "workload:\n  kind: closed_loop\n  concurrency: 16\n  num_requests: 32\n"
         "  input: {distribution: fixed, tokens: 1024}\n  output: {distribution: fixed, tokens: 32}\n";
}

std::string scenario_error(const std::string& text) {
  return test::config_error_of([&] { scenario::parse_scenario(ConfigNode::load_string(text, "t.yaml")); });
}

TEST(EngramInRunScenario, KeysBuildTheTierFromCardNodeAndStepModel) {
  const auto p = scenario::parse_scenario(ConfigNode::load_string(
      v41_scenario("    tier: ssd\n    ssd_path: direct\n    in_run: true\n    access: {model: zipf, exponent: 1.1}\n"
                   "    hbm_cache: {policy: static, capacity: 2GiB}\n    dram_cache: {policy: lfu, capacity: 8GiB}\n"
                   "    sample_rows_per_step: 64\n",
                   "fabric: {backend: native, placement: spread}\nkv_offload: {enabled: true}\n"),
      "t.yaml"));
  const scenario::BuiltScenario b = scenario::build_scenario(p);
  ASSERT_TRUE(b.run.engram_tier.has_value());
  const EngramTierParams& t = *b.run.engram_tier;
  EXPECT_EQ(t.tier, EngramTier::ssd);
  EXPECT_EQ(t.tp, 2);
  EXPECT_EQ(t.replicas, 4);
  EXPECT_EQ(t.shape.rows_per_token, 24);
  EXPECT_EQ(t.shape.subtables_per_rank, 12);
  EXPECT_EQ(t.hbm_policy, HotRowPolicy::static_top);
  EXPECT_EQ(t.dram_policy, RowCachePolicy::lfu);
  EXPECT_DOUBLE_EQ(t.dram_cache.value(), 8.0 * 1073741824.0);
  EXPECT_EQ(t.sample_rows_per_step, 64);
  EXPECT_DOUBLE_EQ(t.access.zipf_s, 1.1);
  EXPECT_TRUE(t.spread);
  EXPECT_TRUE(t.swap_preempted_kv);
  EXPECT_GT(t.kv_bytes_per_token.value(), 0.0);
  EXPECT_EQ(t.node.gpu_count, 8);
  EXPECT_EQ(t.node.drive_count, 8);
  EXPECT_GT(t.uva_efficiency, 0.0);
  // The formula's view of the same keys is unchanged: sizes per replica.
  EXPECT_DOUBLE_EQ(p.deployment.engram.fetch.hbm_hot_cache.value(), 2.0 * 1073741824.0);
  // Off by default.
  const auto plain = scenario::parse_scenario(ConfigNode::load_string(v41_scenario("    tier: dram\n"), "t.yaml"));
  EXPECT_FALSE(scenario::build_scenario(plain).run.engram_tier.has_value());
}

TEST(EngramInRunScenario, BadCombinationsNameTheirKeys) {
  EXPECT_NE(
      scenario_error(v41_scenario("    tier: dram\n    access: {model: text}\n")).find("deployment.engram.access"),
      std::string::npos);
  EXPECT_NE(scenario_error(v41_scenario("    tier: hbm\n    in_run: true\n")).find("deployment.engram.in_run"),
            std::string::npos);
  EXPECT_NE(
      scenario_error(v41_scenario("    tier: dram\n", "kv_offload: {enabled: true}\n")).find("kv_offload.enabled"),
      std::string::npos);
  EXPECT_NE(scenario_error(v41_scenario("    tier: dram\n", "fabric: {backend: ns3}\n")).find("fabric.backend"),
            std::string::npos);
  EXPECT_NE(scenario_error(v41_scenario("    tier: ssd\n    dram_cache: {policy: fifo, capacity: 1GiB}\n"))
                .find("deployment.engram.dram_cache.policy"),
            std::string::npos);
  EXPECT_NE(scenario_error(v41_scenario("    tier: dram\n    in_run: true\n    access: {model: text}\n"
                                        "    hbm_cache: {policy: static, capacity: 1GiB}\n"))
                .find("deployment.engram.hbm_cache"),
            std::string::npos);
  EXPECT_EQ(scenario_error(v41_scenario("    tier: dram\n    in_run: true\n    access: {model: text}\n")), "");
}

TEST(EngramInRunScenario, V41RunsWithTheStepModelWindows) {
  // The real step model: fetches at layer 1 (window: the embedding and layer 0) and layer 14.
  for (const char* tier : {"dram", "ssd"}) {
    const auto p = scenario::parse_scenario(ConfigNode::load_string(
        v41_scenario(std::string("    tier: ") + tier + "\n    ssd_path: direct\n    in_run: true\n"), "t.yaml"));
    const scenario::BuiltScenario b = scenario::build_scenario(p);
    const RunResult r = run_simulation(b.run);
    EXPECT_EQ(r.summary.completed, 32) << tier;
    ASSERT_TRUE(r.engram_tier.has_value());
    EXPECT_GT(r.engram_tier->totals.host_bytes, 0.0);
    EXPECT_GT(r.engram_tier->flows, 0u);
    if (std::string(tier) == "ssd") {
      EXPECT_GT(r.engram_tier->totals.ssd_pages, 0.0);
      EXPECT_GT(r.summary.engram_stall_s, 0.0);
    }
  }
}

}  // namespace
}  // namespace engramsim
