// An LLM architecture card: the shapes the cost models need, loaded from models/cards/NAME.yaml.
//
// Cards describe architecture, not hardware. Every number in a card file carries its source.
// Layer indices are 0-based. Sizes of weight groups are derived from these shapes by
// models/weights.hpp (one inventory serves the footprint and the step-time model).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "hardware/gpu_spec.hpp"

namespace engramsim {

enum class AttentionKind {
  gqa,  // grouped-query (MHA when kv_heads == heads, MQA when kv_heads == 1): Llama, Qwen
  mla,  // multi-head latent attention with low-rank KV: DeepSeek-V2/V3/R1
  csa,  // DeepSeek-V4.x: MQA with low-rank Q/O, sliding window, compressed KV built by some layers
};
inline constexpr EnumNames<AttentionKind, 3> kAttentionKindNames{{{
    {AttentionKind::gqa, "gqa"},
    {AttentionKind::mla, "mla"},
    {AttentionKind::csa, "csa"},
}}};

struct AttentionSpec {
  AttentionKind kind = AttentionKind::gqa;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;  // per-head dim of Q/K (GQA, CSA); for MLA the nope part is qk_nope_head_dim
  // MLA / CSA low-rank projections (0 = full-rank).
  int q_lora_rank = 0;
  int kv_lora_rank = 0;      // MLA: latent KV width cached per token per layer
  int qk_rope_head_dim = 0;  // MLA/CSA: decoupled RoPE dims
  int qk_nope_head_dim = 0;  // MLA
  int v_head_dim = 0;        // MLA
  int o_lora_rank = 0;       // CSA: low-rank output projection
  int o_groups = 0;          // CSA: grouped output projection
  // Sliding window (0 = none) applied on every layer.
  int sliding_window = 0;
  // CSA: which layers build compressed KV (others reuse the most recent source layer's), per-layer
  // compression ratio (0 = window only, 1 = every token, 2 = one entry per 2 tokens), and the sparse
  // indexer that selects top-k compressed entries.
  std::vector<int> kv_source_layers;
  std::vector<int> compress_ratios;
  std::vector<int> index_source_layers;
  int indexer_heads = 0;
  int indexer_head_dim = 0;
  int indexer_topk = 0;
};

struct MoeSpec {
  int num_experts = 0;          // routed experts
  int top_k = 0;                // routed experts per token
  int num_shared_experts = 0;   // always active
  int expert_intermediate = 0;  // per-expert FFN width (gate, up, down)
  int first_moe_layer = 0;      // layers before this one use the dense FFN
  // Group-limited routing (HF config n_group / topk_group): experts form routing_groups equal
  // groups and a token picks its top_k experts inside its best groups_per_token groups. 0 = none.
  // Laid out one group span per scale-up domain, it caps the domains a token reaches.
  int routing_groups = 0;
  int groups_per_token = 0;
  // Coefficient of variation of the routed rows per expert in a layer (popularity skew under real
  // traffic; models/expert_balance.hpp). 0 = not stated: only sampling noise is modelled.
  double popularity_cv = 0.0;
};

struct EngramSpec {
  std::vector<int> layers;  // layers that hold an Engram module
  int min_order = 2;        // N-gram orders min_order..max_order
  int max_order = 0;
  int heads_per_order = 0;
  int head_dim = 0;  // embedding width per head (row payload elements)
  Precision precision = Precision::fp8;
  Bytes row_bytes;                        // payload plus block scales, e.g. 264 B for V4.1
  std::vector<std::int64_t> table_rows;   // rows per Engram layer (same order as `layers`)
  std::int64_t vocab_size_per_ngram = 0;  // prime search start (hashing)
  std::int64_t compressed_vocab_size = 0;
  std::int64_t pad_token_id = 0;
  std::uint64_t hash_seed = 0;
  int rows_per_token_per_layer() const { return (max_order - min_order + 1) * heads_per_order; }
};

// How an engine pages a compressed-KV model's caches, as vLLM's V4.1 attention registers them
// (docs/footprint.md "KV pool"): every KV-source layer owns one page of `block_states` compressed
// states plus one page of its indexer's keys, each padded to the page alignment; a page covers
// block_states x ratio tokens, so sources of one ratio share a block group and the pool's block
// stride is the widest group's pages. Blackwell (the GPU's sm_family 100) stores other records.
struct KvPageRecord {
  Bytes state;        // one compressed state (KV record with its scales)
  Bytes indexer_key;  // one indexer key with its scale (0: the model has no indexer)
  Bytes alignment;    // pages are padded up to a multiple of this
};

struct KvPagedLayout {
  std::int64_t block_states = 128;  // states per page (the engine's --block-size)
  KvPageRecord standard;            // every GPU but the sm_family 100 ones
  KvPageRecord sm100;               // sm_family 100 (B200, B300, GB200, GB300)
};

struct KvCacheSpec {
  Precision precision = Precision::bf16;
  // When set, overrides the per-token KV size derived from attention shapes (e.g. V4.1's published
  // 890 B/token of global compressed KV). Whole-model, before TP sharding.
  std::optional<Bytes> bytes_per_token;
  // Per-sequence fixed KV (e.g. sliding-window ring buffers), whole-model.
  Bytes bytes_per_sequence_fixed;
  // When set (CSA attention only), the per-token KV size is what the engine's paging charges,
  // and replaces both bytes_per_token and the attention shapes' size.
  std::optional<KvPagedLayout> paged_layout;
};

enum class SpecDecodeKind { none, mtp, dspark, draft_model };
inline constexpr EnumNames<SpecDecodeKind, 4> kSpecDecodeKindNames{{{
    {SpecDecodeKind::none, "none"},
    {SpecDecodeKind::mtp, "mtp"},
    {SpecDecodeKind::dspark, "dspark"},
    {SpecDecodeKind::draft_model, "draft_model"},
}}};

struct SpecDecodeSpec {
  SpecDecodeKind kind = SpecDecodeKind::none;
  int draft_tokens = 0;             // positions drafted per step (verify touches 1 + draft_tokens)
  double acceptance_length = 1.0;   // mean tokens emitted per verify step (>= 1)
  std::int64_t drafter_params = 0;  // parameters of the drafter (replicated per replica)
  int drafter_layers = 0;           // drafter depth in layer-equivalents of the backbone
  int drafter_experts = 0;          // routed experts per drafter layer (0 = same as the backbone)
  int drafter_top_k = 0;            // routed experts per token in the drafter (0 = same as the backbone)
};

struct WeightPrecisions {
  Precision attention = Precision::bf16;
  Precision dense_ffn = Precision::bf16;
  Precision experts = Precision::bf16;
  Precision embedding = Precision::bf16;
  Precision lm_head = Precision::bf16;
  // Block-scale overhead per element in bytes (e.g. 1 byte per 32 elements = 1/32) by group.
  double attention_scale_bytes_per_element = 0.0;
  double experts_scale_bytes_per_element = 0.0;
  double dense_ffn_scale_bytes_per_element = 0.0;  // dense FFN and shared experts
};

struct ModelCard {
  std::string name;         // catalog key, e.g. "deepseek-v4.1-flash"
  std::string description;  // one line for `engramsim list models`
  std::string family;       // "deepseek", "llama", "qwen", "engram-paper"
  std::string hf_repo;      // the public checkpoint engines load, "deepseek-ai/DeepSeek-V4.1-Flash"; empty: none
  int num_layers = 0;
  int hidden_size = 0;
  int vocab_size = 0;
  std::int64_t max_context = 0;
  int dense_intermediate = 0;  // dense FFN width (layers before first_moe_layer, or all if no MoE)
  AttentionSpec attention;
  std::optional<MoeSpec> moe;
  int hc_mult = 1;  // mHC residual streams (1 = plain residual)
  // One matrix serves as the embedding table and the output head (config tie_word_embeddings).
  bool tie_word_embeddings = false;
  std::optional<EngramSpec> engram;
  KvCacheSpec kv;
  SpecDecodeSpec spec_decode;
  WeightPrecisions precisions;
  // Layers that run for prompt tokens (V4.1 runs only its encoder half in prefill); 0 = all.
  int prefill_layers = 0;
  // Published total parameter count (backbone, without Engram), for the inventory self-check.
  std::int64_t published_params = 0;
  // Fixed activation buffers per batched token (e.g. V4.1's indexer FP8 logits: 1M context x 1 B)
  // and their cap on batched tokens, as the serving engine allocates them.
  Bytes fixed_buffer_per_batched_token;
  std::int64_t fixed_buffer_token_cap = 0;
};

}  // namespace engramsim
