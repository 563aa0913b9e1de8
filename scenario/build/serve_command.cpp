#include "scenario/build/serve_command.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/number_text.hpp"

namespace engramsim::scenario {
namespace {

std::string num(double v) { return printf_number(v, "%g"); }

std::string join(const std::string& head, const std::vector<std::string>& flags) {
  std::string out = head;
  for (const auto& f : flags) out += " \\\n  " + f;
  return out + "\n";
}

bool is(const BuiltScenario& b, const char* engine) { return b.params.deployment.engine.rfind(engine, 0) == 0; }

// vLLM's speculative config for the card's drafter: DSpark is method "dspark", and the modelled
// acceptance is fixed as the InferenceX arms fix it (synthetic rejection at the golden acceptance
// length, adaptive verification off: benchmarks/single_node/agentic/dsv41flash_fp4_vllm_mtp.sh);
// DeepSeek's MTP layers are method "mtp".
std::string vllm_speculative_config(const BuiltScenario& b) {
  const auto& sd = b.params.deployment.spec_decode;
  std::string c = "{";
  if (b.card.spec_decode.kind == SpecDecodeKind::dspark) c += "\"method\":\"dspark\",";
  if (b.card.spec_decode.kind == SpecDecodeKind::mtp) c += "\"method\":\"mtp\",";
  c += "\"num_speculative_tokens\":" + std::to_string(sd.draft_tokens);
  if (b.card.spec_decode.kind == SpecDecodeKind::dspark)
    c += ",\"rejection_sample_method\":\"synthetic\",\"synthetic_acceptance_length\":" + num(sd.acceptance_length) +
         ",\"enable_adaptive_verification\":false";
  return c + "}";
}

// vLLM: DP attention is `-dp N -tp 1` with expert parallelism; Engram in DRAM is cpu_offload, on
// SSD also disk_offload_dir (the shards' mount, an example path) with PIECEWISE graphs.
std::vector<std::string> vllm_flags(const BuiltScenario& b) {
  const ScenarioDeployment& d = b.params.deployment;
  const ScenarioScheduler& s = d.scheduler;
  const ParallelLayout& l = b.footprint.layout;
  std::vector<std::string> f;
  if (l.dp_attention)
    f = {"--data-parallel-size " + std::to_string(l.tp), "--tensor-parallel-size 1"};
  else
    f = {"--tensor-parallel-size " + std::to_string(l.tp)};
  if (l.ep > 1) f.push_back("--enable-expert-parallel");
  if (d.engram.tier) {
    if (*d.engram.tier == EngramTier::hbm) f.push_back("--engram-config '{\"cpu_offload\":false}'");
    if (*d.engram.tier == EngramTier::dram) f.push_back("--engram-config '{\"cpu_offload\":true}'");
    if (*d.engram.tier == EngramTier::ssd) {
      f.push_back("--engram-config '{\"cpu_offload\":true,\"disk_offload_dir\":\"/raid/engram\"}'");
      f.push_back("--compilation-config '{\"cudagraph_mode\":\"PIECEWISE\"}'");
    }
  }
  f.push_back("--max-num-batched-tokens " + std::to_string(s.policy.max_num_batched_tokens));
  f.push_back("--max-num-seqs " + std::to_string(s.policy.max_num_seqs));
  if (d.max_model_len > 0) f.push_back("--max-model-len " + std::to_string(d.max_model_len));
  f.push_back("--block-size " + std::to_string(s.block_size));
  f.push_back("--gpu-memory-utilization " + num(s.gpu_memory_utilization));
  f.push_back(s.enable_prefix_caching ? "--enable-prefix-caching" : "--no-enable-prefix-caching");
  f.push_back(s.policy.enable_chunked_prefill ? "--enable-chunked-prefill" : "--no-enable-chunked-prefill");
  if (s.max_cudagraph_capture_size > 0)
    f.push_back("--max-cudagraph-capture-size " + std::to_string(s.max_cudagraph_capture_size));
  if (d.spec_decode.enabled) f.push_back("--speculative-config '" + vllm_speculative_config(b) + "'");
  if (s.kv_offloading_size.value() > 0.0)
    f.push_back("--kv-offloading-size " + num(std::round(s.kv_offloading_size.gib())));
  return f;
}

std::vector<std::string> sglang_flags(const BuiltScenario& b) {
  const ScenarioDeployment& d = b.params.deployment;
  const ScenarioScheduler& s = d.scheduler;
  const ParallelLayout& l = b.footprint.layout;
  std::vector<std::string> f = {"--model-path " + served_model(b.card), "--tp " + std::to_string(l.tp)};
  if (l.dp_attention) f.insert(f.end(), {"--dp " + std::to_string(l.tp), "--enable-dp-attention"});
  if (l.ep > 1) f.push_back("--ep-size " + std::to_string(l.ep));
  if (b.params.deployment.engine == "sglang-deepep") f.push_back("--moe-a2a-backend deepep");
  f.push_back("--chunked-prefill-size " +
              std::to_string(s.policy.enable_chunked_prefill ? s.policy.max_num_batched_tokens : -1));
  f.push_back("--max-running-requests " + std::to_string(s.policy.max_num_seqs));
  f.push_back("--mem-fraction-static " + num(s.gpu_memory_utilization));
  f.push_back("--page-size " + std::to_string(s.block_size));
  if (!s.enable_prefix_caching) f.push_back("--disable-radix-cache");
  if (d.max_model_len > 0) f.push_back("--context-length " + std::to_string(d.max_model_len));
  if (!s.cuda_graph_batch_sizes.empty())
    f.push_back("--cuda-graph-max-bs " + std::to_string(s.cuda_graph_batch_sizes.back()));
  if (d.spec_decode.enabled)
    f.push_back("--speculative-num-draft-tokens " + std::to_string(d.spec_decode.draft_tokens));
  return f;
}

std::vector<std::string> trtllm_flags(const BuiltScenario& b) {
  const ScenarioScheduler& s = b.params.deployment.scheduler;
  const ParallelLayout& l = b.footprint.layout;
  std::vector<std::string> f = {"--tp_size " + std::to_string(l.tp), "--ep_size " + std::to_string(l.ep),
                                "--max_batch_size " + std::to_string(s.policy.max_num_seqs),
                                "--max_num_tokens " + std::to_string(s.policy.max_num_batched_tokens)};
  if (s.kv_cache_free_gpu_mem_fraction > 0.0)
    f.push_back("--kv_cache_free_gpu_memory_fraction " + num(s.kv_cache_free_gpu_mem_fraction));
  return f;
}

// A card without a public checkpoint (a paper's model) is named by its catalog key, with a line
// saying to put the model's own path there.
std::string model_note(const BuiltScenario& b) {
  if (!b.card.hf_repo.empty()) return "";
  return "# " + b.card.name + " has no public checkpoint: replace it with the path of your weights\n";
}

}  // namespace

std::string served_model(const ModelCard& card) { return card.hf_repo.empty() ? card.name : card.hf_repo; }

namespace {

// One pool's command of a disaggregated deployment, with its engine's role flag: vLLM's NIXL
// connector on both sides (the proxy decides the roles per request), SGLang's disaggregation mode,
// TensorRT-LLM's cache transceiver in an extra options file.
std::optional<std::string> pool_command(const BuiltScenario& b, const char* role) {
  const std::string model = served_model(b.card);
  if (is(b, "vllm")) {
    std::vector<std::string> f = vllm_flags(b);
    f.push_back("--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'");
    return join("vllm serve " + model, f);
  }
  if (is(b, "sglang")) {
    std::vector<std::string> f = sglang_flags(b);
    f.push_back(std::string("--disaggregation-mode ") + role);
    return join("python -m sglang.launch_server", f);
  }
  if (is(b, "trtllm")) {
    std::vector<std::string> f = trtllm_flags(b);
    f.push_back(std::string("--extra_llm_api_options ") + role +
                ".yaml  # cache_transceiver_config: {backend: DEFAULT}");
    return join("trtllm-serve " + model, f);
  }
  return std::nullopt;
}

std::string pool_heading(const BuiltScenario& b, const char* role) {
  return "# " + std::string(role) + " pool: " + std::to_string(b.replicas) +
         (b.replicas == 1 ? " replica" : " replicas") + " on " + b.params.node.name + ", one command per replica\n";
}

// How requests reach the pools: a proxy or router that sends each prompt to a prefill instance with
// one output token and then to a decode instance with the KV's location.
std::string router_note(const BuiltScenario& b) {
  if (is(b, "vllm"))
    return "# route through a disaggregating proxy (vLLM's examples/online_serving/disaggregated_serving, llm-d or "
           "Dynamo):\n# each prompt to a prefill instance with max_tokens 1, then to a decode instance with its "
           "kv_transfer_params\n";
  if (is(b, "sglang"))
    return "# route with python -m sglang_router.launch_router --pd-disaggregation --prefill URL... --decode URL...\n";
  return "# route with trtllm-serve disaggregated -c disagg_config.yaml (the instances' URLs by role)\n";
}

std::optional<std::string> disaggregated_command(const BuiltScenario& b) {
  const auto prefill = pool_command(*b.prefill_pool, "prefill");
  const auto decode = pool_command(b, "decode");
  if (!prefill || !decode) return std::nullopt;
  return model_note(b) + pool_heading(*b.prefill_pool, "prefill") + *prefill + pool_heading(b, "decode") + *decode +
         router_note(b);
}

}  // namespace

std::optional<std::string> serve_command(const BuiltScenario& b) {
  if (b.prefill_pool) return disaggregated_command(b);
  const std::string model = served_model(b.card);
  if (is(b, "vllm")) return model_note(b) + join("vllm serve " + model, vllm_flags(b));
  if (is(b, "sglang")) return model_note(b) + join("python -m sglang.launch_server", sglang_flags(b));
  if (is(b, "trtllm")) return model_note(b) + join("trtllm-serve " + model, trtllm_flags(b));
  return std::nullopt;
}

}  // namespace engramsim::scenario
