#include "models/weights.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace engramsim {
namespace {

using I64 = std::int64_t;

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

struct GroupMaker {
  std::vector<WeightGroup>& out;
  void add(std::string name, WeightKind kind, I64 elements, Precision p, double scale, ShardingClass s,
           I64 units = 0) const {
    if (elements <= 0) return;
    out.push_back(WeightGroup{std::move(name), kind, elements, p, scale, s, units});
  }
};

void add_attention(const ModelCard& c, int layer_index, GroupMaker& g) {
  const AttentionSpec& a = c.attention;
  const I64 h = c.hidden_size;
  const I64 heads = a.num_heads;
  const Precision p = c.precisions.attention;
  const double sc = c.precisions.attention_scale_bytes_per_element;
  const auto tp = ShardingClass::tp_sharded;
  const auto rep = ShardingClass::replicated;
  // A projection split by KV heads cannot go below one head per rank; with a single KV head every
  // rank holds it whole, which the replicated class says directly.
  const auto kv_class = a.num_kv_heads == 1 ? rep : tp;

  switch (a.kind) {
    case AttentionKind::gqa:
      g.add("attn.q", WeightKind::attn_q, h * heads * a.head_dim, p, sc, tp, heads);
      g.add("attn.kv", WeightKind::attn_kv, h * 2 * a.num_kv_heads * a.head_dim, p, sc, kv_class, a.num_kv_heads);
      g.add("attn.o", WeightKind::attn_o, heads * a.head_dim * h, p, sc, tp, heads);
      break;
    case AttentionKind::mla: {
      const I64 qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
      if (a.q_lora_rank > 0) {
        g.add("attn.q_a", WeightKind::attn_q, h * a.q_lora_rank, p, sc, rep);
        g.add("attn.q_b", WeightKind::attn_q, I64{a.q_lora_rank} * heads * qk, p, sc, tp, heads);
        g.add("norm.q_a", WeightKind::norms, a.q_lora_rank, Precision::bf16, 0.0, rep);
      } else {
        g.add("attn.q", WeightKind::attn_q, h * heads * qk, p, sc, tp, heads);
      }
      // The latent and the decoupled RoPE key are shared by all heads: every rank needs them whole.
      g.add("attn.kv_a", WeightKind::attn_kv, h * (a.kv_lora_rank + a.qk_rope_head_dim), p, sc, rep);
      g.add("attn.kv_b", WeightKind::attn_kv, I64{a.kv_lora_rank} * heads * (a.qk_nope_head_dim + a.v_head_dim), p, sc,
            tp, heads);
      g.add("norm.kv_a", WeightKind::norms, a.kv_lora_rank, Precision::bf16, 0.0, rep);
      g.add("attn.o", WeightKind::attn_o, heads * a.v_head_dim * h, p, sc, tp, heads);
      break;
    }
    case AttentionKind::csa: {
      const I64 qdim = heads * a.head_dim;
      if (a.q_lora_rank > 0) {
        g.add("attn.q_a", WeightKind::attn_q, h * a.q_lora_rank, p, sc, rep);
        g.add("attn.q_b", WeightKind::attn_q, I64{a.q_lora_rank} * qdim, p, sc, tp, heads);
        g.add("norm.q_a", WeightKind::norms, a.q_lora_rank, Precision::bf16, 0.0, rep);
      } else {
        g.add("attn.q", WeightKind::attn_q, h * qdim, p, sc, tp, heads);
      }
      g.add("attn.kv", WeightKind::attn_kv, h * a.num_kv_heads * a.head_dim, p, sc, kv_class, a.num_kv_heads);
      g.add("norm.kv", WeightKind::norms, I64{a.num_kv_heads} * a.head_dim, Precision::bf16, 0.0, rep);
      // Grouped low-rank output: each of o_groups groups maps its heads to o_lora, then all groups
      // together map to hidden. Both halves split by group.
      g.add("attn.o_a", WeightKind::attn_o, qdim * a.o_lora_rank, p, sc, tp, a.o_groups);
      g.add("attn.o_b", WeightKind::attn_o, I64{a.o_groups} * a.o_lora_rank * h, p, sc, tp, a.o_groups);
      if (contains(a.kv_source_layers, layer_index))
        g.add("attn.compressor", WeightKind::attn_compressor, 2 * h * a.num_kv_heads * a.head_dim, p, sc, rep);
      if (contains(a.index_source_layers, layer_index) && a.indexer_heads > 0) {
        const I64 ih = a.indexer_heads, id = a.indexer_head_dim;
        const I64 q_in = a.q_lora_rank > 0 ? a.q_lora_rank : h;
        g.add("attn.indexer", WeightKind::attn_indexer, q_in * ih * id + h * id + h * ih, p, sc, rep);
        g.add("attn.indexer_compressor", WeightKind::attn_compressor, 2 * h * id, p, sc, rep);
      }
      break;
    }
  }
}

LayerWeights make_layer(const ModelCard& c, int index, bool moe, int experts, int top_k, bool engram) {
  LayerWeights l;
  l.index = index;
  l.moe = moe;
  l.engram = engram;
  GroupMaker g{l.groups};
  const I64 h = c.hidden_size;
  const auto rep = ShardingClass::replicated;
  add_attention(c, index, g);

  if (moe) {
    const MoeSpec& m = *c.moe;
    l.num_experts = experts;
    l.top_k = top_k;
    const I64 per_expert = 3 * h * m.expert_intermediate;  // gate, up, down
    g.add("moe.routed_experts", WeightKind::routed_experts, experts * per_expert, c.precisions.experts,
          c.precisions.experts_scale_bytes_per_element, ShardingClass::ep_sharded, experts);
    g.add("moe.shared_experts", WeightKind::shared_experts, m.num_shared_experts * per_expert, c.precisions.dense_ffn,
          c.precisions.dense_ffn_scale_bytes_per_element, ShardingClass::tp_sharded);
    g.add("moe.router", WeightKind::router, experts * h + experts, Precision::bf16, 0.0, rep);
  } else {
    g.add("ffn.dense", WeightKind::dense_ffn, 3 * h * c.dense_intermediate, c.precisions.dense_ffn,
          c.precisions.dense_ffn_scale_bytes_per_element, ShardingClass::tp_sharded);
  }

  if (c.hc_mult > 1) {
    const I64 hc = c.hc_mult;
    const I64 coeffs = hc * hc + 2 * hc;  // residual mixing hc x hc, pre and post weights hc each
    g.add("mhc.mix", WeightKind::mhc, 2 * (hc * h * coeffs + coeffs), Precision::fp32, 0.0, rep);
  }

  if (engram && c.engram) {
    const EngramSpec& e = *c.engram;
    const I64 mem = I64{e.rows_per_token_per_layer()} * e.head_dim;
    // One shared W_V and hc_mult W_K (one per mHC branch), fused into one GEMM; split by table head
    // like the tables, so each rank projects the rows it gathered.
    g.add("engram.fusion", WeightKind::engram_fusion, (1 + c.hc_mult) * mem * h, c.precisions.attention,
          c.precisions.attention_scale_bytes_per_element, ShardingClass::tp_sharded, e.rows_per_token_per_layer());
    g.add("norm.engram", WeightKind::norms, mem + 2 * h, Precision::bf16, 0.0, rep);
  }
  g.add("norm.layer", WeightKind::norms, 2 * h, Precision::bf16, 0.0, rep);
  return l;
}

I64 sum_elements(const std::vector<WeightGroup>& gs) {
  I64 n = 0;
  for (const auto& g : gs) n += g.elements;
  return n;
}

Bytes sum_bytes(const std::vector<WeightGroup>& gs) {
  Bytes b;
  for (const auto& g : gs) b += g.bytes();
  return b;
}

}  // namespace

const char* to_string(ShardingClass s) { return kShardingClassNames.name(s); }

const char* to_string(WeightKind k) { return kWeightKindNames.name(k); }

std::int64_t LayerWeights::elements() const { return sum_elements(groups); }
Bytes LayerWeights::bytes() const { return sum_bytes(groups); }

std::int64_t LayerWeights::elements_of(WeightKind k) const {
  I64 n = 0;
  for (const auto& g : groups)
    if (g.kind == k) n += g.elements;
  return n;
}

Bytes LayerWeights::bytes_of(WeightKind k) const {
  Bytes b;
  for (const auto& g : groups)
    if (g.kind == k) b += g.bytes();
  return b;
}

Bytes LayerWeights::bytes_per_expert() const {
  if (num_experts <= 0) return Bytes(0.0);
  return bytes_of(WeightKind::routed_experts) / static_cast<double>(num_experts);
}

std::int64_t EngramTables::total_rows() const {
  I64 n = 0;
  for (auto r : rows) n += r;
  return n;
}

std::int64_t EngramTables::parameters() const { return total_rows() * head_dim; }

Bytes EngramTables::total_bytes() const { return row_bytes * static_cast<double>(total_rows()); }
Bytes EngramTables::payload_bytes() const { return row_payload_bytes * static_cast<double>(total_rows()); }

Bytes EngramTables::bytes_per_token_position() const {
  return row_bytes * static_cast<double>(rows_per_token_per_layer) * static_cast<double>(layers.size());
}

std::int64_t WeightInventory::backbone_params() const {
  I64 n = sum_elements(model_groups_);
  for (const auto& l : layers_) n += l.elements();
  return n;
}

std::int64_t WeightInventory::drafter_params() const {
  I64 n = sum_elements(drafter_groups_);
  for (const auto& l : drafter_layers_) n += l.elements();
  return n;
}

Bytes WeightInventory::backbone_bytes() const {
  Bytes b = sum_bytes(model_groups_);
  for (const auto& l : layers_) b += l.bytes();
  return b;
}

Bytes WeightInventory::drafter_bytes() const {
  Bytes b = sum_bytes(drafter_groups_);
  for (const auto& l : drafter_layers_) b += l.bytes();
  return b;
}

double WeightInventory::published_params_deviation() const {
  if (published_params_ <= 0) return 0.0;
  return (static_cast<double>(backbone_params()) - static_cast<double>(published_params_)) /
         static_cast<double>(published_params_);
}

WeightInventory build_weight_inventory(const ModelCard& c) {
  WeightInventory inv;
  inv.published_params_ = c.published_params;
  const bool has_engram = c.engram.has_value();
  for (int i = 0; i < c.num_layers; ++i) {
    const bool moe = c.moe && i >= c.moe->first_moe_layer;
    const bool engram = has_engram && contains(c.engram->layers, i);
    inv.layers_.push_back(make_layer(c, i, moe, moe ? c.moe->num_experts : 0, moe ? c.moe->top_k : 0, engram));
  }

  GroupMaker model{inv.model_groups_};
  const I64 h = c.hidden_size;
  const I64 v = c.vocab_size;
  // Vocabulary-parallel: rows of the table and of the head split across the TP group. A tied
  // matrix is stored once, as the head (the group the step reads in full).
  if (!c.tie_word_embeddings)
    model.add("embedding", WeightKind::embedding, v * h, c.precisions.embedding, 0.0, ShardingClass::tp_sharded, v);
  model.add("lm_head", WeightKind::lm_head, v * h, c.precisions.lm_head, 0.0, ShardingClass::tp_sharded, v);
  model.add("norm.final", WeightKind::norms, h, Precision::bf16, 0.0, ShardingClass::replicated);
  if (c.hc_mult > 1)
    model.add("mhc.final_merge", WeightKind::mhc, I64{c.hc_mult} * h * c.hc_mult + c.hc_mult, Precision::fp32, 0.0,
              ShardingClass::replicated);

  if (has_engram) {
    const EngramSpec& e = *c.engram;
    inv.engram_.layers = e.layers;
    inv.engram_.rows = e.table_rows;
    inv.engram_.row_bytes = e.row_bytes;
    inv.engram_.row_payload_bytes = Bytes(e.head_dim * bytes_per_element(e.precision));
    inv.engram_.head_dim = e.head_dim;
    inv.engram_.rows_per_token_per_layer = e.rows_per_token_per_layer();
  }

  const SpecDecodeSpec& sd = c.spec_decode;
  if (sd.kind != SpecDecodeKind::none) {
    inv.drafter_replicated_ = sd.kind != SpecDecodeKind::mtp;
    const bool moe = c.moe.has_value();
    const int experts = moe ? (sd.drafter_experts > 0 ? sd.drafter_experts : c.moe->num_experts) : 0;
    const int top_k = moe ? (sd.drafter_top_k > 0 ? sd.drafter_top_k : c.moe->top_k) : 0;
    for (int i = 0; i < sd.drafter_layers; ++i) {
      LayerWeights l = make_layer(c, c.num_layers + i, moe, experts, top_k, false);
      l.index = i;
      inv.drafter_layers_.push_back(std::move(l));
    }
    GroupMaker dg{inv.drafter_groups_};
    if (sd.kind == SpecDecodeKind::mtp && sd.drafter_layers > 0) {
      // MTP merges the next token's embedding with the last hidden state before its block.
      dg.add("mtp.merge", WeightKind::drafter_merge, I64{sd.drafter_layers} * 2 * h * h, c.precisions.dense_ffn,
             c.precisions.dense_ffn_scale_bytes_per_element, ShardingClass::replicated);
      dg.add("norm.mtp", WeightKind::norms, I64{sd.drafter_layers} * 3 * h, Precision::bf16, 0.0,
             ShardingClass::replicated);
    }
    if (sd.drafter_layers == 0 && sd.drafter_params > 0)
      // A draft model known only by its size: one dense blob in the backbone's dense precision.
      dg.add("drafter.weights", WeightKind::dense_ffn, sd.drafter_params, c.precisions.dense_ffn,
             c.precisions.dense_ffn_scale_bytes_per_element, ShardingClass::replicated);
  }
  return inv;
}

double shard_fraction(const WeightGroup& g, const ParallelLayout& layout, bool replicate_all) {
  if (layout.tp < 1 || layout.ep < 1 || layout.tp % layout.ep != 0)
    throw std::invalid_argument("shard_fraction: need tp >= 1, ep >= 1 and ep dividing tp");
  if (replicate_all) return 1.0;
  const double tp = layout.tp;
  switch (g.sharding) {
    case ShardingClass::replicated:
      return 1.0;
    case ShardingClass::tp_sharded: {
      if (layout.dp_attention) return 1.0;
      if (g.shard_units <= 0) return 1.0 / tp;
      const I64 per_rank = (g.shard_units + layout.tp - 1) / layout.tp;
      return static_cast<double>(per_rank) / static_cast<double>(g.shard_units);
    }
    case ShardingClass::ep_sharded: {
      const double inner = static_cast<double>(layout.tp / layout.ep);  // GPUs splitting one EP group's experts
      if (g.shard_units <= 0) return 1.0 / tp;
      const I64 redundant =
          g.kind == WeightKind::routed_experts && layout.expert_balance.placement == ExpertPlacement::eplb
              ? layout.expert_balance.redundant_experts
              : 0;
      const I64 per_group = (g.shard_units + redundant + layout.ep - 1) / layout.ep;
      return static_cast<double>(per_group) / static_cast<double>(g.shard_units) / inner;
    }
  }
  return 1.0;
}

}  // namespace engramsim
