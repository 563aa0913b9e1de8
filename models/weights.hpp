// The parameter inventory of a model card: one source of truth for how many weights a model has,
// in which precision, and how they split across GPUs. The HBM footprint and the step-time model
// both read it, so the bytes a step streams and the bytes a GPU holds can never disagree.
//
// build_weight_inventory(card) is pure: per backbone layer it lists named weight groups (attention
// q/kv/o projections, the CSA indexer and compressor, dense FFN, routed experts, shared experts,
// router, mHC mixing, Engram fusion projections, norms), each with its element count, storage
// precision, block-scale overhead and sharding class; then the model-level groups (embedding,
// lm_head, final norm; a tied embedding is the lm_head group alone) and the drafter's layers. Engram tables are listed
// separately (they are memory, not compute weights, and may live off the GPU).
//
// Shapes that the cards do not state are modelled as follows (documented in docs/footprint.md):
//   mHC: per sub-layer (attention, FFN) a map from hc_mult x hidden to hc^2 + 2 hc mixing
//     coefficients, FP32; a final hc_mult x hidden -> hc_mult merge before the head.
//   CSA compressor: on each kv_source layer, a KV projection and a gate (2 x hidden x head_dim);
//     each index_source layer carries the indexer (q from the q latent, one key, per-head weights)
//     and its own compressor (2 x hidden x indexer_head_dim).
//   Engram fusion: W_V plus hc_mult W_K (memory width -> hidden) in the attention precision, and
//     norms; the card's Engram `layers` hold them.
//   Router weights and norms BF16; mHC FP32.
//   Drafter: MTP layers are backbone layers (plus the 2 x hidden -> hidden merge of the embedding and
//     hidden state); DSpark / draft-model stages are backbone-shaped layers with the drafter's
//     expert count. Both share the backbone's embedding and head.
//
// Sharding classes say how a group splits inside one replica of `tp` GPUs:
//   tp_sharded: split across the tensor-parallel group in `shard_units` indivisible pieces (heads,
//     groups, vocabulary rows; 0 = finely divisible). A GPU holds max(1, ceil(units / tp)) units,
//     so a single-KV-head projection stays whole on every rank.
//   ep_sharded: routed experts, spread whole across the expert-parallel group (ceil(E / ep) per
//     group) and split finely across the tp / ep GPUs inside it (ep = 1: plain TP inside experts).
//   replicated: every GPU holds all of it (latent down-projections, routers, norms, mHC).
// Under data-parallel attention (each GPU runs attention for its own sequences, experts shared by
// expert parallelism) tp_sharded groups become whole on every GPU; ep_sharded ones stay sharded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "hardware/gpu_spec.hpp"
#include "models/expert_balance.hpp"
#include "models/model_card.hpp"

namespace engramsim {

enum class ShardingClass { tp_sharded, ep_sharded, replicated };
inline constexpr EnumNames<ShardingClass, 3> kShardingClassNames{{{
    {ShardingClass::tp_sharded, "tp_sharded"},
    {ShardingClass::ep_sharded, "ep_sharded"},
    {ShardingClass::replicated, "replicated"},
}}};
const char* to_string(ShardingClass s);

enum class WeightKind {
  attn_q,           // query projections (low-rank down and up parts for MLA/CSA)
  attn_kv,          // key/value projections (latent down and up parts for MLA)
  attn_o,           // output projection (grouped low-rank for CSA)
  attn_indexer,     // CSA sparse indexer projections
  attn_compressor,  // CSA KV compressor projections
  dense_ffn,
  routed_experts,
  shared_experts,
  router,
  mhc,
  engram_fusion,
  norms,
  embedding,
  lm_head,
  drafter_merge,  // MTP: concat(embedding, hidden) -> hidden
};
inline constexpr EnumNames<WeightKind, 15> kWeightKindNames{{{
    {WeightKind::attn_q, "attn_q"},
    {WeightKind::attn_kv, "attn_kv"},
    {WeightKind::attn_o, "attn_o"},
    {WeightKind::attn_indexer, "attn_indexer"},
    {WeightKind::attn_compressor, "attn_compressor"},
    {WeightKind::dense_ffn, "dense_ffn"},
    {WeightKind::routed_experts, "routed_experts"},
    {WeightKind::shared_experts, "shared_experts"},
    {WeightKind::router, "router"},
    {WeightKind::mhc, "mhc"},
    {WeightKind::engram_fusion, "engram_fusion"},
    {WeightKind::norms, "norms"},
    {WeightKind::embedding, "embedding"},
    {WeightKind::lm_head, "lm_head"},
    {WeightKind::drafter_merge, "drafter_merge"},
}}};
const char* to_string(WeightKind k);

struct WeightGroup {
  std::string name;  // "attn.q_b", "moe.routed_experts", ...
  WeightKind kind = WeightKind::norms;
  std::int64_t elements = 0;
  Precision precision = Precision::bf16;
  double scale_bytes_per_element = 0.0;  // block-scale overhead
  ShardingClass sharding = ShardingClass::replicated;
  std::int64_t shard_units = 0;  // indivisible pieces for tp/ep sharding (0 = finely divisible)

  Bytes bytes() const {
    return Bytes(static_cast<double>(elements) * (bytes_per_element(precision) + scale_bytes_per_element));
  }
};

struct LayerWeights {
  int index = 0;  // backbone layer index, or drafter stage index for drafter layers
  bool moe = false;
  bool engram = false;  // holds an Engram module (fusion projections here, table listed separately)
  int num_experts = 0;  // routed experts in this layer (0 for dense)
  int top_k = 0;
  std::vector<WeightGroup> groups;

  std::int64_t elements() const;
  Bytes bytes() const;
  std::int64_t elements_of(WeightKind k) const;
  Bytes bytes_of(WeightKind k) const;
  // One routed expert's weights (gate, up, down) with scales; zero for a dense layer.
  Bytes bytes_per_expert() const;
};

// The Engram tables of a model (empty when the card has none).
struct EngramTables {
  std::vector<int> layers;
  std::vector<std::int64_t> rows;  // per Engram layer
  Bytes row_bytes;                 // payload + block scales
  Bytes row_payload_bytes;         // head_dim x precision
  int head_dim = 0;                // elements per row
  int rows_per_token_per_layer = 0;

  std::int64_t total_rows() const;
  std::int64_t parameters() const;  // rows x head_dim elements
  Bytes total_bytes() const;        // rows x row_bytes
  Bytes payload_bytes() const;      // rows x row_payload_bytes
  // Bytes gathered per token position over all Engram layers (e.g. 48 x 264 B = 12,672 B for V4.1).
  Bytes bytes_per_token_position() const;
};

class WeightInventory {
 public:
  const LayerWeights& layer(int i) const { return layers_.at(static_cast<std::size_t>(i)); }
  const std::vector<LayerWeights>& layers() const { return layers_; }
  const std::vector<WeightGroup>& model_groups() const { return model_groups_; }
  const std::vector<LayerWeights>& drafter_layers() const { return drafter_layers_; }
  const std::vector<WeightGroup>& drafter_groups() const { return drafter_groups_; }
  const EngramTables& engram() const { return engram_; }
  // The drafter's groups are all held whole by every GPU (DSpark / draft model: a per-rank drafter),
  // or sharded like the backbone (MTP: layers of the backbone's own shape).
  bool drafter_replicated() const { return drafter_replicated_; }

  // Backbone parameters: layers + embedding + head + final norm; no Engram tables, no drafter.
  std::int64_t backbone_params() const;
  std::int64_t drafter_params() const;
  Bytes backbone_bytes() const;
  Bytes drafter_bytes() const;
  // Relative deviation of backbone_params() from the card's published count (0 when none is set).
  double published_params_deviation() const;

  // Every group once, for reports: backbone layers, model groups, drafter (in that order).
  template <class F>
  void for_each_group(F&& f) const {
    for (const auto& l : layers_)
      for (const auto& g : l.groups) f(g, false);
    for (const auto& g : model_groups_) f(g, false);
    for (const auto& l : drafter_layers_)
      for (const auto& g : l.groups) f(g, true);
    for (const auto& g : drafter_groups_) f(g, true);
  }

 private:
  friend WeightInventory build_weight_inventory(const ModelCard& card);
  std::vector<LayerWeights> layers_;
  std::vector<WeightGroup> model_groups_;
  std::vector<LayerWeights> drafter_layers_;
  std::vector<WeightGroup> drafter_groups_;
  EngramTables engram_;
  bool drafter_replicated_ = false;
  std::int64_t published_params_ = 0;
};

WeightInventory build_weight_inventory(const ModelCard& card);

// How one replica is laid out on its GPUs (see the sharding classes above).
struct ParallelLayout {
  int tp = 1;                 // GPUs in the replica
  int ep = 1;                 // expert-parallel groups (divides tp; 1 = experts split inside)
  bool dp_attention = false;  // attention and dense parts whole on every GPU
  // GPUs of one scale-up domain (0 = the whole replica is one domain). A replica with more GPUs
  // spans several domains; only its expert all-to-all crosses the scale-out NIC.
  int gpus_per_domain = 0;
  // How routed tokens spread over the EP ranks (models/expert_balance.hpp); eplb's redundant
  // replicas also take HBM and are read each step.
  ExpertBalance expert_balance;
};

// Fraction of a group one GPU of the replica holds (1 = all of it).
double shard_fraction(const WeightGroup& g, const ParallelLayout& layout, bool replicate_all = false);
inline Bytes bytes_per_gpu(const WeightGroup& g, const ParallelLayout& layout, bool replicate_all = false) {
  return g.bytes() * shard_fraction(g, layout, replicate_all);
}

}  // namespace engramsim
