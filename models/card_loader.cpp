#include "models/card_loader.hpp"

#include <cctype>
#include <climits>
#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "core/paths.hpp"

namespace engramsim {
namespace {

constexpr std::int64_t kMaxDim = 1LL << 24;  // no width in a real model comes near 16M

int dim(const ConfigNode& n, const std::string& key, std::int64_t lo = 1) {
  return static_cast<int>(n.integer(key, lo, kMaxDim));
}

int dim_or(const ConfigNode& n, const std::string& key, int dflt, std::int64_t lo = 0) {
  return static_cast<int>(n.integer_or(key, dflt, lo, kMaxDim));
}

Precision precision(const ConfigNode& n, const std::string& key) {
  const std::string v = n.one_of(key, {"fp4", "fp8", "bf16", "fp16", "fp32"});
  return *precision_from_string(v);
}

Precision precision_or(const ConfigNode& n, const std::string& key, Precision dflt) {
  if (!n.has(key)) {
    n.ignore(key);
    return dflt;
  }
  return precision(n, key);
}

// Layer indices: each in [0, num_layers), strictly increasing (a repeat is a typo, not a choice).
std::vector<int> layer_list(const ConfigNode& n, const std::string& key, int num_layers) {
  std::vector<int> out;
  if (!n.has(key)) {
    n.ignore(key);
    return out;
  }
  const ConfigNode list = n.child(key);
  const auto elems = list.elements();
  for (const ConfigNode& e : elems) {
    const std::int64_t v = e.as_integer();
    if (v < 0 || v >= num_layers)
      e.fail("layer index " + std::to_string(v) + " out of range [0, " + std::to_string(num_layers - 1) +
             "] (layers are 0-based)");
    if (!out.empty() && v <= out.back()) e.fail("layer indices must be strictly increasing");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

// Block-scale overhead as bytes per element: {block_elements: N, bytes_per_scale: "1B"}.
double scale_overhead(const ConfigNode& parent, const std::string& key) {
  const auto n = parent.optional_child(key);
  if (!n) return 0.0;
  const std::int64_t block = n->integer("block_elements", 1, 1LL << 30);
  const Bytes per = n->bytes("bytes_per_scale");
  if (per.value() <= 0.0 || per.value() > 16.0) n->fail_key("bytes_per_scale", "expected 1B..16B per scale");
  n->finish();
  return per.value() / static_cast<double>(block);
}

AttentionSpec parse_attention(const ConfigNode& a, int num_layers) {
  AttentionSpec s;
  const std::string kind = a.one_of("kind", {"gqa", "mla", "csa"});
  s.kind = kind == "gqa" ? AttentionKind::gqa : kind == "mla" ? AttentionKind::mla : AttentionKind::csa;
  s.num_heads = dim(a, "num_heads");
  s.num_kv_heads = static_cast<int>(a.integer("num_kv_heads", 1, s.num_heads));
  if (s.kind != AttentionKind::mla && s.num_heads % s.num_kv_heads != 0)
    a.fail_key("num_kv_heads", "num_heads (" + std::to_string(s.num_heads) + ") must be a multiple of num_kv_heads");
  s.q_lora_rank = dim_or(a, "q_lora_rank", 0);
  s.kv_lora_rank = dim_or(a, "kv_lora_rank", 0);
  s.qk_rope_head_dim = dim_or(a, "qk_rope_head_dim", 0);
  s.qk_nope_head_dim = dim_or(a, "qk_nope_head_dim", 0);
  s.v_head_dim = dim_or(a, "v_head_dim", 0);
  s.o_lora_rank = dim_or(a, "o_lora_rank", 0);
  s.o_groups = dim_or(a, "o_groups", 0);
  s.sliding_window = dim_or(a, "sliding_window", 0);

  if (s.kind == AttentionKind::mla) {
    for (const char* k : {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
      if (a.integer(k) < 1) a.fail_key(k, "required >= 1 for MLA attention");
    const int qk = s.qk_nope_head_dim + s.qk_rope_head_dim;
    s.head_dim = dim_or(a, "head_dim", qk, 1);
    if (s.head_dim != qk)
      a.fail_key("head_dim",
                 "for MLA head_dim must equal qk_nope_head_dim + qk_rope_head_dim (" + std::to_string(qk) + ")");
  } else {
    s.head_dim = dim(a, "head_dim");
    if (s.kv_lora_rank != 0) a.fail_key("kv_lora_rank", "only MLA attention has a KV latent");
  }
  if (s.qk_rope_head_dim > s.head_dim) a.fail_key("qk_rope_head_dim", "exceeds head_dim");

  if (s.kind == AttentionKind::csa) {
    if (s.o_lora_rank < 1) a.fail_key("o_lora_rank", "required >= 1 for CSA attention");
    if (s.o_groups < 1) a.fail_key("o_groups", "required >= 1 for CSA attention");
    if ((static_cast<std::int64_t>(s.num_heads) * s.head_dim) % s.o_groups != 0)
      a.fail_key("o_groups", "num_heads * head_dim must be divisible by o_groups");
    if (s.num_heads % s.o_groups != 0) a.fail_key("o_groups", "num_heads must be divisible by o_groups");
  } else {
    if (s.o_lora_rank != 0) a.fail_key("o_lora_rank", "only CSA attention has a low-rank output");
    if (s.o_groups != 0) a.fail_key("o_groups", "only CSA attention has grouped outputs");
  }

  s.kv_source_layers = layer_list(a, "kv_source_layers", num_layers);
  s.index_source_layers = layer_list(a, "index_source_layers", num_layers);
  if (a.has("compress_ratios")) {
    const auto ratios = a.integers("compress_ratios", 0, 1 << 16);
    if (static_cast<int>(ratios.size()) != num_layers)
      a.fail_key("compress_ratios", "expected one ratio per layer (" + std::to_string(num_layers) + "), got " +
                                        std::to_string(ratios.size()));
    for (auto r : ratios) s.compress_ratios.push_back(static_cast<int>(r));
  } else {
    a.ignore("compress_ratios");
  }
  if (s.kind != AttentionKind::csa &&
      (!s.kv_source_layers.empty() || !s.index_source_layers.empty() || !s.compress_ratios.empty()))
    a.fail("kv_source_layers, index_source_layers and compress_ratios belong to CSA attention only");

  if (const auto ix = a.optional_child("indexer")) {
    s.indexer_heads = dim(*ix, "heads");
    s.indexer_head_dim = dim(*ix, "head_dim");
    s.indexer_topk = dim(*ix, "topk");
    ix->finish();
    if (s.index_source_layers.empty())
      a.fail_key("indexer", "an indexer needs index_source_layers (the layers that run it)");
  } else if (!s.index_source_layers.empty()) {
    a.fail_key("index_source_layers", "index_source_layers given without an indexer");
  }
  a.finish();
  return s;
}

MoeSpec parse_moe(const ConfigNode& m, int num_layers) {
  MoeSpec s;
  s.num_experts = dim(m, "num_experts");
  s.top_k = static_cast<int>(m.integer("top_k", 1, s.num_experts));
  s.num_shared_experts = dim_or(m, "num_shared_experts", 0);
  s.expert_intermediate = dim(m, "expert_intermediate");
  s.first_moe_layer = static_cast<int>(m.integer_or("first_moe_layer", 0, 0, num_layers - 1));
  if (m.has("routing_groups") || m.has("groups_per_token")) {
    s.routing_groups = static_cast<int>(m.integer("routing_groups", 1, s.num_experts));
    if (s.num_experts % s.routing_groups != 0)
      m.child("routing_groups").fail("must divide num_experts (" + std::to_string(s.num_experts) + ")");
    s.groups_per_token = static_cast<int>(m.integer("groups_per_token", 1, s.routing_groups));
  }
  if (m.has("popularity_cv")) s.popularity_cv = m.number("popularity_cv", 0.0, 10.0);
  m.finish();
  return s;
}

EngramSpec parse_engram(const ConfigNode& e, int num_layers) {
  EngramSpec s;
  s.layers = layer_list(e, "layers", num_layers);
  if (s.layers.empty()) e.fail_key("layers", "an Engram block needs at least one layer");
  s.min_order = dim_or(e, "min_order", 2, 1);
  s.max_order = static_cast<int>(e.integer("max_order", s.min_order, 64));
  s.heads_per_order = dim(e, "heads_per_order");
  s.head_dim = dim(e, "head_dim");
  s.precision = precision(e, "precision");
  s.row_bytes = e.bytes("row_bytes");
  const double payload = s.head_dim * bytes_per_element(s.precision);
  if (s.row_bytes.value() < payload)
    e.fail_key("row_bytes", "smaller than the row payload (" + std::to_string(static_cast<long long>(payload)) +
                                " B = head_dim x precision)");
  const auto rows = e.integers("table_rows", 1, INT64_MAX);
  if (rows.size() != s.layers.size())
    e.fail_key("table_rows", "expected one entry per Engram layer (" + std::to_string(s.layers.size()) + "), got " +
                                 std::to_string(rows.size()));
  s.table_rows = rows;
  s.vocab_size_per_ngram = e.integer_or("vocab_size_per_ngram", 0, 0, INT64_MAX);
  s.compressed_vocab_size = e.integer_or("compressed_vocab_size", 0, 0, INT64_MAX);
  s.pad_token_id = e.integer_or("pad_token_id", 0, 0, INT64_MAX);
  s.hash_seed = static_cast<std::uint64_t>(e.integer_or("hash_seed", 0, 0, INT64_MAX));
  e.finish();
  return s;
}

KvCacheSpec parse_kv(const ConfigNode& k) {
  KvCacheSpec s;
  s.precision = precision(k, "precision");
  if (k.has("bytes_per_token")) {
    s.bytes_per_token = k.bytes("bytes_per_token");
    if (s.bytes_per_token->value() <= 0.0) k.fail_key("bytes_per_token", "must be > 0");
  } else {
    k.ignore("bytes_per_token");
  }
  s.bytes_per_sequence_fixed = k.bytes_or("bytes_per_sequence_fixed", Bytes(0.0));
  k.finish();
  return s;
}

SpecDecodeSpec parse_spec(const ConfigNode& sd) {
  SpecDecodeSpec s;
  const std::string kind = sd.one_of("kind", {"none", "mtp", "dspark", "draft_model"});
  s.kind = kind == "none"     ? SpecDecodeKind::none
           : kind == "mtp"    ? SpecDecodeKind::mtp
           : kind == "dspark" ? SpecDecodeKind::dspark
                              : SpecDecodeKind::draft_model;
  if (s.kind == SpecDecodeKind::none) {
    sd.finish();
    return s;
  }
  s.draft_tokens = static_cast<int>(sd.integer("draft_tokens", 1, 64));
  s.acceptance_length = sd.number("acceptance_length", 1.0, 1.0 + s.draft_tokens);
  s.drafter_params = sd.integer_or("drafter_params", 0, 0, INT64_MAX);
  s.drafter_layers = dim_or(sd, "drafter_layers", 0);
  s.drafter_experts = dim_or(sd, "drafter_experts", 0);
  s.drafter_top_k = dim_or(sd, "drafter_top_k", 0);
  sd.finish();
  return s;
}

WeightPrecisions parse_precisions(const ConfigNode& p) {
  WeightPrecisions s;
  s.attention = precision(p, "attention");
  s.dense_ffn = precision(p, "dense_ffn");
  s.experts = precision_or(p, "experts", s.dense_ffn);
  s.embedding = precision(p, "embedding");
  s.lm_head = precision(p, "lm_head");
  s.attention_scale_bytes_per_element = scale_overhead(p, "attention_scales");
  s.dense_ffn_scale_bytes_per_element = scale_overhead(p, "dense_ffn_scales");
  s.experts_scale_bytes_per_element = scale_overhead(p, "experts_scales");
  p.finish();
  return s;
}

ModelCard parse_card(const ConfigNode& root) {
  ModelCard c;
  c.name = root.str("name");
  if (c.name.empty()) root.fail_key("name", "must not be empty");
  for (char ch : c.name)
    if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' ||
          ch == '.' || ch == '_'))
      root.fail_key("name", "use lower-case letters, digits, '-', '.' and '_' only");
  c.description = root.str("description");
  c.family = root.str("family");
  c.num_layers = dim(root, "num_layers");
  c.hidden_size = dim(root, "hidden_size");
  c.vocab_size = dim(root, "vocab_size");
  c.max_context = root.integer("max_context", 1, 1LL << 40);
  c.dense_intermediate = dim_or(root, "dense_intermediate", 0);
  c.hc_mult = dim_or(root, "hc_mult", 1, 1);
  c.prefill_layers = static_cast<int>(root.integer_or("prefill_layers", 0, 0, c.num_layers));
  c.published_params = root.integer_or("published_params", 0, 0, INT64_MAX);

  c.attention = parse_attention(root.child("attention"), c.num_layers);
  if (const auto m = root.optional_child("moe")) c.moe = parse_moe(*m, c.num_layers);
  const bool needs_dense = !c.moe || c.moe->first_moe_layer > 0;
  if (needs_dense && c.dense_intermediate < 1)
    root.fail_key("dense_intermediate", "required >= 1: some layers run a dense FFN");
  if (!needs_dense && c.dense_intermediate != 0)
    root.fail_key("dense_intermediate", "every layer is MoE; a dense FFN width would be unused");
  if (const auto e = root.optional_child("engram")) c.engram = parse_engram(*e, c.num_layers);
  c.kv = parse_kv(root.child("kv_cache"));
  if (const auto sd = root.optional_child("spec_decode")) c.spec_decode = parse_spec(*sd);
  if (c.spec_decode.drafter_experts > 0 || c.spec_decode.drafter_top_k > 0) {
    const ConfigNode sd = root.child("spec_decode");
    if (!c.moe) sd.fail("drafter_experts / drafter_top_k need an MoE backbone");
    const int experts = c.spec_decode.drafter_experts > 0 ? c.spec_decode.drafter_experts : c.moe->num_experts;
    if (c.spec_decode.drafter_top_k > experts)
      sd.fail_key("drafter_top_k", "exceeds the drafter's experts (" + std::to_string(experts) + ")");
  }
  c.precisions = parse_precisions(root.child("precisions"));
  if (const auto fb = root.optional_child("fixed_buffers")) {
    c.fixed_buffer_per_batched_token = fb->bytes("bytes_per_batched_token");
    c.fixed_buffer_token_cap = fb->integer_or("token_cap", 0, 0, 1LL << 32);
    fb->finish();
  }
  root.finish();
  return c;
}

}  // namespace

ModelCard load_model_card(const std::string& name_or_path) {
  const std::string path = resolve_catalog_path("models/cards", name_or_path);
  return parse_card(ConfigNode::load_file(path));
}

ModelCard model_card_from_yaml(const std::string& text, const std::string& file_name) {
  const ConfigNode root = ConfigNode::load_string(text, file_name);
  if (!root.raw().IsDefined() || root.raw().IsNull()) throw ConfigError({file_name, 1, 1}, "", "file is empty");
  return parse_card(root);
}

const char* to_string(AttentionKind k) {
  switch (k) {
    case AttentionKind::gqa:
      return "gqa";
    case AttentionKind::mla:
      return "mla";
    case AttentionKind::csa:
      return "csa";
  }
  return "?";
}

const char* to_string(SpecDecodeKind k) {
  switch (k) {
    case SpecDecodeKind::none:
      return "none";
    case SpecDecodeKind::mtp:
      return "mtp";
    case SpecDecodeKind::dspark:
      return "dspark";
    case SpecDecodeKind::draft_model:
      return "draft_model";
  }
  return "?";
}

}  // namespace engramsim
