#include "scenario/schema/scheduler_schema.hpp"

#include <limits>
#include <string>

namespace engramsim::scenario {
namespace {

constexpr std::int64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();

// `{per_concurrency: f, min: a, max: b, power_of_two: bool}` at `key` (ConcurrencyRule).
ConcurrencyRule parse_concurrency_rule(const ConfigNode& s, const std::string& key, std::int64_t lo, std::int64_t hi,
                                       bool allow_power_of_two) {
  const ConfigNode r = s.child(key);
  ConcurrencyRule out;
  out.where = r.location();
  out.field = r.path();
  out.per_concurrency = r.number("per_concurrency", 1e-6, 1e6);
  out.min = r.integer_or("min", lo, lo, hi);
  out.max = r.integer_or("max", hi, lo, hi);
  if (out.max < out.min) r.fail_key("max", "must be >= min (" + std::to_string(out.min) + ")");
  if (allow_power_of_two) out.power_of_two = r.boolean_or("power_of_two", false);
  r.finish();
  return out;
}

// A limit given as a number, or as a rule on the workload's concurrency (`rule` set, `limit` kept).
void read_limit_or_rule(const ConfigNode& s, const std::string& key, bool allow_power_of_two, std::int64_t& limit,
                        std::optional<ConcurrencyRule>& rule) {
  if (s.child(key).is_map())
    rule = parse_concurrency_rule(s, key, 1, kMaxInt32, allow_power_of_two);
  else
    limit = s.integer(key, 1, kMaxInt32);
}

std::string policy_words(const sim::SchedulerRegistry& registry) {
  std::string out;
  for (const std::string& name : registry.names()) out += (out.empty() ? "`" : " \\| `") + name + "`";
  return out + " (the scheduler registry)";
}

void add_policy_and_limits(FieldTable<ScenarioScheduler>& t, const sim::SchedulerRegistry& registry) {
  const std::vector<std::string> names = registry.names();
  const ScenarioScheduler dflt;
  t.custom(
      {"policy", policy_words(registry), "`" + dflt.policy.name + "`", "docs/simulator.md"},
      [names](const ConfigNode& s, ScenarioScheduler& o) { o.policy.name = s.one_of("policy", names); },
      [](const ScenarioScheduler& o) { return nlohmann::json(o.policy.name); });
  t.integer(
      "max_num_batched_tokens", [](auto& o) -> auto& { return o.policy.max_num_batched_tokens; }, 1, kMaxInt32,
      "token budget per step (also sizes the activation memory in the footprint)");
  t.custom(
      {"max_num_seqs", "integer >= 1, or a concurrency rule", std::to_string(dflt.policy.max_num_seqs),
       "running sequences (also sizes logits and sliding-window buffers). A rule `{per_concurrency: f, min: a, "
       "max: b}` derives it from `workload.concurrency` (closed-loop clients or AgentX lanes): `clamp(ceil(f x "
       "concurrency), a, b)`; InferenceX's TP2 arms: `{per_concurrency: 2, min: 16, max: 256}` (facts §3.1). "
       "`min` and `max` default to 1 and 2^31 - 1; a workload without a concurrency (open loop, trace at its "
       "timestamps) is an error at the key"},
      [](const ConfigNode& s, ScenarioScheduler& o) {
        std::int64_t v = o.policy.max_num_seqs;
        read_limit_or_rule(s, "max_num_seqs", false, v, o.max_num_seqs_rule);
        o.policy.max_num_seqs = static_cast<std::int32_t>(v);
      },
      [](const ScenarioScheduler& o) { return nlohmann::json(o.policy.max_num_seqs); });
  t.custom(
      {"max_cudagraph_capture_size", "integer >= 1 (tokens), or a concurrency rule", "none",
       "vLLM's `--max-cudagraph-capture-size`: decode steps are padded to vLLM's default capture list up to it "
       "(1, 2, 4 tokens, every 8 below 256, every 16 from 256), each size holding `floor(size / (1 + "
       "draft_tokens))` sequences (a decode step of n sequences with k drafts is n (1 + k) tokens). A rule as "
       "for `max_num_seqs`, plus `power_of_two: true` to round `f x concurrency` up to a power of two first; "
       "InferenceX's arms: `{per_concurrency: 6, power_of_two: true, min: 64, max: 2048}`. Not together with "
       "`cuda_graph_batch_sizes`"},
      [](const ConfigNode& s, ScenarioScheduler& o) {
        read_limit_or_rule(s, "max_cudagraph_capture_size", true, o.max_cudagraph_capture_size, o.capture_size_rule);
      },
      [](const ScenarioScheduler& o) { return nlohmann::json(o.max_cudagraph_capture_size); });
}

void add_kv_keys(FieldTable<ScenarioScheduler>& t) {
  t.integer("block_size", &ScenarioScheduler::block_size, 1, 1 << 20, "KV tokens per block");
  t.boolean("enable_prefix_caching", &ScenarioScheduler::enable_prefix_caching,
            "reuse KV blocks of shared prompt prefixes (traces with prefix hashes)");
  t.bytes("kv_offloading_size", &ScenarioScheduler::kv_offloading_size, Bytes(0.0), Bytes(1e15),
          "size (e.g. `256GiB`), 0 to 1 PB", "must be between 0 (no pool) and 1PB of host DRAM per replica",
          "pinned host DRAM per replica for a KV-offload pool behind the prefix cache (needs "
          "`enable_prefix_caching`): blocks the GPU evicts are kept there (LRU) and loaded back over the host link "
          "on a later hit instead of being recomputed; counted in the node's host memory (infeasible when it does "
          "not fit); docs/agentic.md \"KV offload tier\"")
      .default_words("0 (no pool)");
}

void add_prefill_keys(FieldTable<ScenarioScheduler>& t) {
  t.boolean(
      "chunked_prefill", [](auto& o) -> auto& { return o.policy.enable_chunked_prefill; },
      "split prompts across steps");
  t.integer(
      "long_prefill_token_threshold", [](auto& o) -> auto& { return o.policy.long_prefill_token_threshold; }, 0,
      kMaxInt32, "cap on one sequence's prefill chunk (0 = none)");
  t.integer(
      "chunk_size", [](auto& o) -> auto& { return o.policy.chunk_size; }, 1, kMaxInt32,
      "`sarathi`'s fixed budget; under `sarathi` it also sizes the activation memory in the footprint (instead "
      "of `max_num_batched_tokens`, which it does not use)");
}

void add_memory_keys(FieldTable<ScenarioScheduler>& t) {
  t.number("gpu_memory_utilization", &ScenarioScheduler::gpu_memory_utilization, 1e-3, 1.0,
           "share of usable HBM the engine takes; the KV pool is what is left of it (vLLM, SGLang)");
  t.number("kv_cache_free_gpu_mem_fraction", &ScenarioScheduler::kv_cache_free_gpu_mem_fraction, 0.0, 1.0,
           "above 0, TensorRT-LLM's rule instead: the KV pool is this share of the HBM left after weights, "
           "activations and reserve; a written `gpu_memory_utilization` is then an error (docs/footprint.md). A base "
           "scenario may state 0 so that a compare variant can set it")
      .default_words("0 (not used)");
  t.custom(
      {"cuda_graph_batch_sizes", "list of integers >= 1", "none (no padding)",
       "CUDA-graph sizes per scheduler: a decode-only step runs as the next listed size up, the extra rows being "
       "dummy sequences; sizes above `min(max_num_seqs, max_num_batched_tokens / (1 + draft))` are replaced by "
       "that value (TensorRT-LLM's rule); docs/simulator.md"},
      [](const ConfigNode& s, ScenarioScheduler& o) {
        const ConfigNode g = s.child("cuda_graph_batch_sizes");
        if (!g.is_sequence()) g.fail("expected a list of batch sizes, e.g. [1, 2, 4, 8]");
        for (const ConfigNode& e : g.elements()) {
          const std::int64_t b = e.as_integer();
          if (b < 1 || b > kMaxInt32) e.fail("a batch size must be between 1 and " + std::to_string(kMaxInt32));
          o.cuda_graph_batch_sizes.push_back(static_cast<std::int32_t>(b));
        }
      },
      [](const ScenarioScheduler& o) { return nlohmann::json(o.cuda_graph_batch_sizes); });
}

// The rules that join two keys.
void check_key_pairs(const ConfigNode& s, const ScenarioScheduler& out) {
  if ((out.max_cudagraph_capture_size > 0 || out.capture_size_rule) && s.has("cuda_graph_batch_sizes"))
    s.fail_key("max_cudagraph_capture_size",
               "give either cuda_graph_batch_sizes (the sizes themselves) or max_cudagraph_capture_size "
               "(vLLM's default list up to it), not both");
  if (out.kv_offloading_size.value() > 0.0 && !out.enable_prefix_caching)
    s.fail_key("kv_offloading_size", "the KV-offload pool holds prefix-cache blocks: set enable_prefix_caching: true");
  // 0 (or absent): vLLM's rule with gpu_memory_utilization; > 0: TensorRT-LLM's rule, which then
  // must not be combined with a written gpu_memory_utilization.
  if (out.kv_cache_free_gpu_mem_fraction > 0.0 && s.has("gpu_memory_utilization"))
    s.fail_key("kv_cache_free_gpu_mem_fraction",
               "give either gpu_memory_utilization (share of usable HBM, vLLM/SGLang) or "
               "kv_cache_free_gpu_mem_fraction (share of what is left after weights, TensorRT-LLM), not both");
}

}  // namespace

FieldTable<ScenarioScheduler> scheduler_schema(const sim::SchedulerRegistry& registry) {
  FieldTable<ScenarioScheduler> t("deployment.scheduler");
  add_policy_and_limits(t, registry);
  add_kv_keys(t);
  add_prefill_keys(t);
  add_memory_keys(t);
  return t;
}

ScenarioScheduler parse_scheduler_section(const ConfigNode& s, const sim::SchedulerRegistry& registry) {
  ScenarioScheduler out;
  scheduler_schema(registry).read(s, out);
  check_key_pairs(s, out);
  s.finish();
  return out;
}

}  // namespace engramsim::scenario
