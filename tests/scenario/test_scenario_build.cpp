// ScenarioParams -> BuiltScenario (scenario/build/scenario_build.hpp): replicas, KV pool from the
// footprint, scheduler scaling under data-parallel attention, the effective card, Engram caches,
// price, infeasibility, and a short run end to end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "scenario/build/scenario_build.hpp"
#include "scenario/build/serve_command.hpp"
#include "scenario_test_util.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim::sim {

using namespace engramsim::scenario;
namespace {
namespace fs = std::filesystem;

std::string v41(const std::string& deployment, const std::string& engram) {
  return "name: b\nmodel: deepseek-v4.1-flash\nnode: hgx-b300\nseed: 3\ndeployment:\n" + deployment +
         "  engram: " + engram +
         "\n  scheduler: {block_size: 64, max_num_seqs: 64, max_num_batched_tokens: 4096}\n"
         "workload:\n  kind: closed_loop\n  concurrency: 8\n  num_requests: 16\n"
         "  input: {distribution: fixed, tokens: 512}\n  output: {distribution: fixed, tokens: 32}\n";
}

BuiltScenario build(const std::string& text) {
  return build_scenario(parse_scenario(ConfigNode::load_string(text, "b.yaml")));
}

TEST(ScenarioBuild, WholeNodeOfTp2ReplicasWithDataParallelAttention) {
  const BuiltScenario b = build(v41("  nodes: 1\n  tp: 2\n", "{tier: dram}"));
  EXPECT_EQ(b.replicas, 4);  // 8 GPUs / TP2
  EXPECT_EQ(b.gpus_per_replica, 2);
  EXPECT_EQ(b.active_gpus_per_node, 8);
  EXPECT_EQ(b.step_model->options().engram.active_gpus, 8);
  ASSERT_TRUE(b.footprint.dp_attention);  // V4.1: one KV head, MoE
  EXPECT_EQ(b.scheduler_ranks, 2);
  // Per-GPU engine limits become the replica's: two attention ranks.
  EXPECT_EQ(b.run.scheduler.max_num_seqs, 128);
  EXPECT_EQ(b.run.scheduler.max_num_batched_tokens, 8192);
  EXPECT_EQ(b.footprint_options.max_num_seqs, 64);  // the footprint sees the per-GPU value
  EXPECT_EQ(b.kv_blocks_per_replica, b.footprint.replica_kv_tokens / 64);
  ASSERT_EQ(b.run.replicas.size(), 4u);
  for (const auto& r : b.run.replicas) {
    EXPECT_EQ(r.step_model, b.step_memo.get());  // one shared model, behind one memo
    EXPECT_EQ(&b.step_memo->model(), b.step_model.get());
    EXPECT_EQ(r.kv.num_blocks, b.kv_blocks_per_replica);
    EXPECT_EQ(r.kv.block_size, 64);
    EXPECT_EQ(r.gpus, 2);
    EXPECT_EQ(r.spec.num_speculative_tokens, b.card.spec_decode.draft_tokens);
  }
  EXPECT_EQ(b.run.seed, 3u);
}

TEST(ScenarioBuild, CudaGraphSizesBecomeEachReplicasDecodePadding) {
  std::string text = v41("  replicas: 1\n  tp: 2\n", "{tier: dram}");
  const std::string from = "max_num_batched_tokens: 4096}";
  text.replace(text.find(from), from.size(),
               "max_num_batched_tokens: 4096, policy: trtllm, cuda_graph_batch_sizes: [128, 1, 32, 8]}");
  const BuiltScenario b = build(text);
  ASSERT_EQ(b.run.replicas.size(), 1u);
  const DecodePadding& p = b.run.replicas[0].decode_padding;
  // Per rank: 128 exceeds max_num_seqs 64 (per GPU, the card's drafter limits 4096 / (1 + draft)
  // no further), so 64 is captured in its place; both attention ranks pad alike.
  EXPECT_EQ(p.batch_sizes, (std::vector<std::int32_t>{1, 8, 32, 64}));
  EXPECT_EQ(p.ranks, 2);
  EXPECT_EQ(b.run.scheduler.name, "trtllm");
  // Without the list, no padding.
  EXPECT_FALSE(build(v41("  replicas: 1\n  tp: 2\n", "{tier: dram}")).run.replicas[0].decode_padding.enabled());
}

TEST(ScenarioBuild, CudaGraphSizesMustBeAListOfPositiveIntegers) {
  std::string text = v41("  replicas: 1\n  tp: 2\n", "{tier: dram}");
  const std::string from = "max_num_batched_tokens: 4096}";
  text.replace(text.find(from), from.size(), "max_num_batched_tokens: 4096, cuda_graph_batch_sizes: [4, 0]}");
  try {
    build(text);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("b.yaml:9:107: deployment.scheduler.cuda_graph_batch_sizes[1]"), std::string::npos) << what;
    EXPECT_NE(what.find("cuda_graph_batch_sizes"), std::string::npos) << what;
  }
  text = v41("  replicas: 1\n  tp: 2\n", "{tier: dram}");
  text.replace(text.find(from), from.size(), "max_num_batched_tokens: 4096, cuda_graph_batch_sizes: 8}");
  EXPECT_THROW(build(text), ConfigError);
}

// vLLM's serve flags as InferenceX derives them from the concurrency (facts §3.1): max_num_seqs =
// 2 x concurrency in 16..256, capture size = next power of two >= 6 x concurrency in 64..2048.
TEST(ScenarioBuild, LimitsDerivedFromTheConcurrency) {
  const std::string from = "max_num_seqs: 64, max_num_batched_tokens: 4096}";
  const auto with = [&](const std::string& sched, int concurrency) {
    std::string text = v41("  replicas: 1\n  tp: 2\n", "{tier: dram}");
    text.replace(text.find(from), from.size(), sched + "}");
    text.replace(text.find("concurrency: 8"), 14, "concurrency: " + std::to_string(concurrency));
    return scenario::parse_scenario(ConfigNode::load_string(text, "b.yaml"));
  };
  const std::string rules =
      "max_num_batched_tokens: 4096, max_num_seqs: {per_concurrency: 2, min: 16, max: 256}, "
      "max_cudagraph_capture_size: {per_concurrency: 6, power_of_two: true, min: 64, max: 2048}";
  for (const auto& [c, seqs, capture] : std::vector<std::tuple<int, int, int>>{{1, 16, 64},
                                                                               {4, 16, 64},
                                                                               {16, 32, 128},
                                                                               {32, 64, 256},
                                                                               {96, 192, 1024},
                                                                               {128, 256, 1024},
                                                                               {512, 256, 2048}}) {
    const ScenarioParams p = with(rules, c);
    EXPECT_EQ(p.deployment.scheduler.policy.max_num_seqs, seqs) << c;
    EXPECT_EQ(p.deployment.scheduler.max_cudagraph_capture_size, capture) << c;
    // Graphs of 1 + 5 tokens per sequence (the card's DSpark drafts): the largest holds capture / 6.
    ASSERT_FALSE(p.deployment.scheduler.cuda_graph_batch_sizes.empty());
    EXPECT_EQ(p.deployment.scheduler.cuda_graph_batch_sizes.back(), capture / 6) << c;
    EXPECT_EQ(p.deployment.scheduler.cuda_graph_batch_sizes.front(), 1) << c;
  }
  // vLLM's default list: 1, 2, 4, every 8 below 256, every 16 from 256, as sequences.
  EXPECT_EQ(scenario::vllm_capture_sizes(64, 0), (std::vector<std::int32_t>{1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64}));
  EXPECT_EQ(scenario::vllm_capture_sizes(288, 0).back(), 288);
  EXPECT_EQ(scenario::vllm_capture_sizes(64, 5), (std::vector<std::int32_t>{1, 2, 4, 5, 6, 8, 9, 10}));
  // A plain capture size is taken as given.
  EXPECT_EQ(with("max_num_batched_tokens: 4096, max_cudagraph_capture_size: 48", 8)
                .deployment.scheduler.cuda_graph_batch_sizes.back(),
            8);
}

TEST(ScenarioBuild, ConcurrencyRulesRefuseBadInputAtTheKey) {
  const std::string from = "max_num_seqs: 64, max_num_batched_tokens: 4096}";
  const auto error = [&](const std::string& sched, const std::string& workload) -> std::string {
    std::string text = v41("  replicas: 1\n  tp: 2\n", "{tier: dram}");
    text.replace(text.find(from), from.size(), sched + "}");
    if (!workload.empty()) text = text.substr(0, text.find("workload:")) + workload;
    return test::config_error_of([&] { scenario::parse_scenario(ConfigNode::load_string(text, "b.yaml")); });
  };
  EXPECT_NE(
      error("max_num_seqs: {per_concurrency: 2, min: 300, max: 256}", "").find("deployment.scheduler.max_num_seqs.max"),
      std::string::npos);
  EXPECT_NE(error("max_num_seqs: {per_concurency: 2}", "").find("per_concurency"), std::string::npos);
  EXPECT_NE(error("max_num_seqs: {per_concurrency: 2, power_of_two: true}", "").find("power_of_two"),
            std::string::npos);
  EXPECT_NE(error("cuda_graph_batch_sizes: [1, 2], max_cudagraph_capture_size: 64", "").find("not both"),
            std::string::npos);
  const std::string open_loop =
      "workload:\n  kind: open_loop\n  num_requests: 16\n  arrival: {process: poisson, rate_per_s: 1}\n"
      "  input: {distribution: fixed, tokens: 512}\n  output: {distribution: fixed, tokens: 32}\n";
  const std::string what = error("max_num_seqs: {per_concurrency: 2}", open_loop);
  EXPECT_NE(what.find("b.yaml:9:"), std::string::npos) << what;
  EXPECT_NE(what.find("needs a workload with a concurrency"), std::string::npos) << what;
}

TEST(ScenarioBuild, PriceAddsAmortisedEngramCapacity) {
  const NodeSpec node = load_node("hgx-b300");
  const BuiltScenario dram = build(v41("  replicas: 1\n  tp: 2\n", "{tier: dram}"));
  EXPECT_DOUBLE_EQ(dram.price.gpu_hour.value(), node.gpu_hour.hyperscaler.value());
  // Four replicas' pinned copies on the node, shared by its 8 GPUs, over the amortisation life.
  const double by_hand = dram.footprint.per_node.host_dram_engram.value() * node.dram_price.value() /
                         (node.amortization_life.seconds() / 3600.0) / 8.0;
  EXPECT_GT(by_hand, 0.0);
  EXPECT_NEAR(dram.price.engram_capacity.value(), by_hand, 1e-12);
  ASSERT_TRUE(dram.run.price_per_gpu_hour.has_value());
  EXPECT_NEAR(dram.run.price_per_gpu_hour->value(), node.gpu_hour.hyperscaler.value() + by_hand, 1e-12);
  const BuiltScenario hbm = build(v41("  replicas: 1\n  tp: 4\n", "{tier: hbm}"));
  EXPECT_EQ(hbm.price.engram_capacity.value(), 0.0);
  const BuiltScenario rental = build("price_tier: rental\n" + v41("  replicas: 1\n  tp: 4\n", "{tier: hbm}"));
  EXPECT_DOUBLE_EQ(rental.price.gpu_hour.value(), node.gpu_hour.rental.value());
}

TEST(ScenarioBuild, DoesNotFitIsInfeasibleWithTheFootprintsReason) {
  try {
    build(v41("  replicas: 1\n  tp: 2\n", "{tier: hbm}"));
    FAIL() << "TP2 with the tables in HBM must not fit on B300";
  } catch (const InfeasibleScenario& e) {
    EXPECT_NE(std::string(e.what()).find("over budget"), std::string::npos) << e.what();
  }
}

TEST(ScenarioBuild, HbmHotCacheComesOutOfTheKvPool) {
  const BuiltScenario plain = build(v41("  replicas: 1\n  tp: 2\n", "{tier: dram}"));
  const BuiltScenario hot = build(v41("  replicas: 1\n  tp: 2\n", "{tier: dram, hbm_cache: 8GiB}"));
  EXPECT_DOUBLE_EQ(hot.hbm_cache_per_gpu.value(), Bytes::gib(4).value());
  const double kv_per_token = plain.footprint.per_gpu.kv_bytes_per_token.value();
  // Per GPU 4 GiB fewer KV bytes, two GPUs (data-parallel attention), in 64-token blocks.
  const double lost_blocks = 2.0 * Bytes::gib(4).value() / kv_per_token / 64.0;
  EXPECT_NEAR(static_cast<double>(plain.kv_blocks_per_replica - hot.kv_blocks_per_replica), lost_blocks, 3.0);
  EXPECT_EQ(hot.step_model->options().engram.hbm_hot_cache.value(), Bytes::gib(8).value());
  EXPECT_THROW(build(v41("  replicas: 1\n  tp: 2\n", "{tier: dram, hbm_cache: 1000GiB}")), InfeasibleScenario);
}

// Sarathi's step holds at most chunk_size tokens, so its activations (and with them the KV pool)
// are sized by chunk_size, not by a max_num_batched_tokens it never uses.
TEST(ScenarioBuild, SarathiSizesActivationsByItsChunk) {
  const auto with = [](const std::string& scheduler) {
    std::string t = v41("  replicas: 1\n  tp: 2\n", "{tier: dram}");
    const std::string from = "{block_size: 64, max_num_seqs: 64, max_num_batched_tokens: 4096}";
    t.replace(t.find(from), from.size(), scheduler);
    return build(t);
  };
  const BuiltScenario sarathi =
      with("{block_size: 64, max_num_seqs: 64, max_num_batched_tokens: 8192, policy: sarathi, chunk_size: 512}");
  const BuiltScenario vllm = with("{block_size: 64, max_num_seqs: 64, max_num_batched_tokens: 512}");
  const BuiltScenario big = with("{block_size: 64, max_num_seqs: 64, max_num_batched_tokens: 8192}");
  EXPECT_EQ(sarathi.kv_blocks_per_replica, vllm.kv_blocks_per_replica);
  EXPECT_GT(sarathi.kv_blocks_per_replica, big.kv_blocks_per_replica);
}

TEST(ScenarioBuild, DramRowCachesMustFitInHostMemoryAndArePaidFor) {
  const BuiltScenario ssd = build(v41("  nodes: 1\n  tp: 2\n", "{tier: ssd}"));
  const BuiltScenario cached = build(v41("  nodes: 1\n  tp: 2\n", "{tier: ssd, ssd_path: direct, dram_cache: 64GiB}"));
  EXPECT_DOUBLE_EQ(cached.dram_cache_per_node.value(), Bytes::gib(256).value());  // 4 replicas
  EXPECT_GT(cached.price.engram_capacity.value(), ssd.price.engram_capacity.value());
  EXPECT_THROW(build(v41("  nodes: 1\n  tp: 2\n", "{tier: ssd, ssd_path: direct, dram_cache: 1TiB}")),
               InfeasibleScenario);
}

TEST(ScenarioBuild, HostMemoryPerNodeAndThePageCache) {
  // vllm reads SSD through the page cache: HGX B300 2 TB (1862.6 GiB), 10 % reserve, nothing pinned,
  // so the page cache may hold 1676.4 GiB and holds the 188.8 GiB of table files.
  const BuiltScenario ssd = build(v41("  nodes: 1\n  tp: 2\n", "{tier: ssd}"));
  const auto& h = ssd.host_memory;
  EXPECT_NEAR(h.reserve.value(), 0.1 * h.capacity.value(), 1.0);
  EXPECT_EQ(h.pinned_engram.value(), 0.0);
  EXPECT_NEAR(h.page_cache_capacity.value(), 0.9 * h.capacity.value(), 1.0);
  EXPECT_NEAR(h.page_cache_used.value(), ssd.footprint.per_node.ssd_engram.value(), 1.0);
  EXPECT_NEAR(h.rest().value(), h.capacity.value() - h.reserve.value() - h.page_cache_used.value(), 1.0);
  EXPECT_NE(scenario::scenario_json(ssd).find("\"page_cache_used\""), std::string::npos);
  // The dram tier pins the tables; the page cache holds no Engram pages.
  const BuiltScenario dram = build(v41("  nodes: 1\n  tp: 2\n", "{tier: dram}"));
  EXPECT_GT(dram.host_memory.pinned_engram.value(), 0.0);
  EXPECT_EQ(dram.host_memory.page_cache_used.value(), 0.0);
  EXPECT_NEAR(dram.host_memory.page_cache_capacity.value(),
              (dram.host_memory.capacity - dram.host_memory.reserve - dram.host_memory.pinned_engram).value(), 1.0);
}

// page_cache_limit caps the page cache (a cgroup limit, say): below the table files, fewer pages
// are cached; above the node's host RAM it is a located error.
TEST(ScenarioBuild, PageCacheLimitCapsThePageCacheAndMustFitTheHost) {
  const BuiltScenario limited = build(v41("  nodes: 1\n  tp: 2\n", "{tier: ssd, page_cache_limit: 64GiB}"));
  EXPECT_DOUBLE_EQ(limited.host_memory.page_cache_capacity.value(), Bytes::gib(64).value());
  EXPECT_DOUBLE_EQ(limited.host_memory.page_cache_used.value(), Bytes::gib(64).value());
  const BuiltScenario loose = build(v41("  nodes: 1\n  tp: 2\n", "{tier: ssd, page_cache_limit: 1800GiB}"));
  EXPECT_NEAR(loose.host_memory.page_cache_capacity.value(), 0.9 * loose.host_memory.capacity.value(), 1.0);
  for (const char* bad : {"{tier: ssd, page_cache_limit: 4TiB}", "{tier: ssd, page_cache_limit: 1KiB}"}) {
    try {
      build(v41("  nodes: 1\n  tp: 2\n", bad));
      ADD_FAILURE() << bad;
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("b.yaml:"), std::string::npos) << what;
      EXPECT_NE(what.find("deployment.engram.page_cache_limit"), std::string::npos) << what;
    }
  }
}

// The ssd tier on a node without drives (nvme.count 0) is an error at the tier's key.
TEST(ScenarioBuild, SsdTierNeedsDrives) {
  std::ifstream in(engramsim::test::source_root() + "/hardware/nodes/hgx-b300.yaml");
  std::string node, line;
  bool in_nvme = false;
  while (std::getline(in, line)) {
    if (line.rfind("  drive_groups:", 0) == 0) continue;
    if (line.rfind("nvme:", 0) == 0) {
      node += "nvme:\n  count: 0\n";
      in_nvme = true;
      continue;
    }
    if (in_nvme && line.rfind("  ", 0) == 0) continue;
    in_nvme = false;
    node += line + "\n";
  }
  const fs::path dir = fs::temp_directory_path() / ("engramsim-nodrives-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "no-drives.yaml";
  std::ofstream(file) << node;
  auto with_node = [&](const std::string& tier) {
    std::string text = v41("  nodes: 1\n  tp: 2\n", "{tier: " + tier + "}");
    text.replace(text.find("node: hgx-b300"), 14, "node: " + file.string());
    return text;
  };
  EXPECT_EQ(build(with_node("dram")).params.node.nvme.count, 0);
  try {
    build(with_node("ssd"));
    ADD_FAILURE() << "ssd tier accepted on a node without drives";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("b.yaml:"), std::string::npos) << what;
    EXPECT_NE(what.find("deployment.engram.tier"), std::string::npos) << what;
    EXPECT_NE(what.find("no NVMe drives"), std::string::npos) << what;
  }
  fs::remove_all(dir);
}

// The engine command line of a built scenario: vLLM's flags for parallelism, the Engram tier and
// the scheduler limits; SGLang's for an sglang preset (DeepEP for sglang-deepep); none for a preset without a real
// engine.
TEST(ServeCommand, WritesTheModelledEngineFlags) {
  const auto cmd =
      scenario::serve_command(build(v41("  replicas: 1\n  tp: 2\n  attention: tensor\n  ep: 1\n", "{tier: dram}")));
  ASSERT_TRUE(cmd.has_value());
  EXPECT_EQ(cmd->rfind("vllm serve deepseek-ai/DeepSeek-V4.1-Flash \\\n", 0), 0u) << *cmd;  // the card's hf_repo
  for (const char* flag : {"--tensor-parallel-size 2", "--engram-config '{\"cpu_offload\":true}'",
                           "--max-num-batched-tokens 4096", "--max-num-seqs 64", "--block-size 64"})
    EXPECT_NE(cmd->find(flag), std::string::npos) << flag << "\n" << *cmd;
  EXPECT_EQ(cmd->find("--enable-expert-parallel"), std::string::npos) << *cmd;
  // The drafter as the card has it, at the modelled acceptance (the InferenceX arms' synthetic rejection).
  EXPECT_NE(cmd->find("--speculative-config '{\"method\":\"dspark\",\"num_speculative_tokens\":5,"
                      "\"rejection_sample_method\":\"synthetic\",\"synthetic_acceptance_length\":3.51,"
                      "\"enable_adaptive_verification\":false}'"),
            std::string::npos)
      << *cmd;
  const auto ssd = serve_command(build(v41("  replicas: 1\n  tp: 2\n", "{tier: ssd}")));
  EXPECT_NE(ssd->find("disk_offload_dir"), std::string::npos) << *ssd;
  EXPECT_NE(ssd->find("PIECEWISE"), std::string::npos) << *ssd;
  EXPECT_NE(ssd->find("--data-parallel-size 2"), std::string::npos) << *ssd;  // automatic: DP attention
  const auto sg = serve_command(build(v41("  replicas: 1\n  tp: 2\n  engine: sglang\n", "{tier: dram}")));
  EXPECT_EQ(sg->rfind("python -m sglang.launch_server", 0), 0u) << *sg;
  EXPECT_NE(sg->find("--model-path deepseek-ai/DeepSeek-V4.1-Flash"), std::string::npos) << *sg;
  EXPECT_NE(sg->find("--max-running-requests 64"), std::string::npos) << *sg;
  EXPECT_EQ(sg->find("--moe-a2a-backend"), std::string::npos) << *sg;
  const auto deepep = serve_command(build(v41("  replicas: 1\n  tp: 2\n  engine: sglang-deepep\n", "{tier: dram}")));
  EXPECT_NE(deepep->find("--moe-a2a-backend deepep"), std::string::npos) << *deepep;
  EXPECT_FALSE(serve_command(build(v41("  replicas: 1\n  tp: 2\n  engine: nano-vllm\n", "{tier: dram}"))).has_value());
}

// A card without a public checkpoint keeps its catalog name, under a line saying to replace it.
TEST(ServeCommand, ACardWithoutAPublicCheckpointSaysToReplaceItsName) {
  ModelCard card;
  card.name = "engram-27b";
  EXPECT_EQ(scenario::served_model(card), "engram-27b");
  card.hf_repo = "owner/Model";
  EXPECT_EQ(scenario::served_model(card), "owner/Model");
  scenario::BuiltScenario b = build(v41("  replicas: 1\n  tp: 2\n  attention: tensor\n  ep: 1\n", "{tier: dram}"));
  b.card.hf_repo.clear();
  const auto cmd = scenario::serve_command(b);
  ASSERT_TRUE(cmd.has_value());
  EXPECT_EQ(cmd->rfind("# deepseek-v4.1-flash has no public checkpoint: replace it with the path of your weights\n"
                       "vllm serve deepseek-v4.1-flash \\\n",
                       0),
            0u)
      << *cmd;
}

TEST(ScenarioBuild, PageCachePathRejectsRowCachesAndInRunWhereWritten) {
  for (const char* engram : {"{tier: ssd, dram_cache: 64GiB}", "{tier: ssd, in_run: true}"}) {
    try {
      build(v41("  nodes: 1\n  tp: 2\n", engram));
      ADD_FAILURE() << engram;
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("b.yaml:"), std::string::npos) << what;
      EXPECT_NE(what.find("deployment.engram."), std::string::npos) << what;
    }
  }
  // An engine without page_cache terms cannot be switched to it.
  EXPECT_THROW(build(v41("  nodes: 1\n  tp: 2\n  engine: sglang\n", "{tier: ssd, ssd_path: page_cache}")), ConfigError);
}

TEST(ScenarioBuild, TierNoneAndSpecOffChangeTheEffectiveCard) {
  const std::string text =
      "name: p\nmodel: engram-offload-dense-4b\nnode: hgx-h800\ndeployment:\n  replicas: 1\n  tp: 1\n"
      "  engram: {tier: none}\nworkload:\n  kind: closed_loop\n  concurrency: 2\n"
      "  input: {distribution: fixed, tokens: 64}\n  output: {distribution: fixed, tokens: 8}\n";
  const BuiltScenario none = build(text);
  EXPECT_FALSE(none.card.engram.has_value());
  EXPECT_TRUE(none.params.card.engram.has_value());  // the card as loaded keeps it
  EXPECT_EQ(none.engram_label(), "none");
  EXPECT_EQ(none.price.engram_capacity.value(), 0.0);
  EXPECT_EQ(none.active_gpus_per_node, 1);

  const BuiltScenario off = build(v41("  replicas: 1\n  tp: 4\n", "{tier: hbm}\n  spec_decode: {enabled: false}"));
  EXPECT_EQ(off.card.spec_decode.kind, SpecDecodeKind::none);
  EXPECT_EQ(off.run.replicas[0].spec.num_speculative_tokens, 0);
  const BuiltScenario on = build(v41("  replicas: 1\n  tp: 4\n", "{tier: hbm}"));
  // Without the drafter its weights leave HBM: more KV.
  EXPECT_GT(off.kv_blocks_per_replica, on.kv_blocks_per_replica);
}

TEST(ScenarioBuild, ShortRunEndToEnd) {
  scenario::BuiltScenario b =
      build(v41("  replicas: 1\n  tp: 2\n", "{tier: dram, access: {model: zipf, exponent: 1.0}}"));
  const RunResult r = run_simulation(b.run);
  EXPECT_EQ(r.summary.num_requests, 16);
  EXPECT_EQ(r.summary.completed, 16);
  EXPECT_EQ(r.summary.total_output_tokens, 16 * 32);
  EXPECT_EQ(r.summary.num_gpus, 2);
  EXPECT_GT(r.summary.tput_per_gpu, 0.0);
  EXPECT_GT(r.summary.tokens_per_dollar, 0.0);
  const std::string j = scenario::scenario_json(b);
  EXPECT_NE(j.find("\"kv_blocks_per_replica\": " + std::to_string(b.kv_blocks_per_replica)), std::string::npos);
  EXPECT_NE(j.find("\"engram_tier\": \"dram\""), std::string::npos);
}

}  // namespace
}  // namespace engramsim::sim
