// KV-cache bytes per token and per sequence, for the whole model and per GPU of a replica.
//
// Whole-model bytes per token of context (before any sharding):
//   GQA: 2 (K and V) x layers x kv_heads x head_dim x bytes(kv precision)
//   MLA: (kv_lora_rank + qk_rope_head_dim) x layers x bytes — one latent plus the shared RoPE key
//   CSA: the card's bytes_per_token (V4.1 publishes 890 B of global compressed KV); without one,
//        head_dim x bytes x sum over kv_source layers of 1 / compress_ratio (layers with ratio 0
//        keep only the window)
//   Any kind: a card's kv_cache.bytes_per_token overrides the formula.
//   CSA with kv_cache.paged_layout: what the engine's paging charges (paged_kv_bytes_per_token
//        below), which replaces both; it depends on the GPU (its sm_family picks the records).
// Per-sequence fixed bytes (sliding-window ring buffers) come from the card.
//
// Sharding across the tp GPUs of a replica:
//   GQA under tensor-parallel attention: KV heads split across ranks, but never below one head per
//     rank (tp > kv_heads replicates heads), so a rank holds max(1, ceil(kv_heads / tp)) heads.
//   MLA / CSA / single-KV-head models: the latent (or the one KV head) is needed whole by every
//     rank's heads, so each rank stores all of it (replicated across TP ranks).
//   Data-parallel attention: each GPU keeps whole KV for its own sequences.
// Per-GPU bytes are therefore "per token held on this GPU"; under tensor-parallel attention every
// GPU of the replica holds the same tokens, under data-parallel attention each holds different ones.
#pragma once

#include <cstdint>
#include <vector>

#include "core/units.hpp"
#include "models/model_card.hpp"

namespace engramsim {

struct KvSize {
  Bytes per_token;                    // per GPU, per token held on it
  Bytes per_sequence_fixed;           // per GPU, per resident sequence
  double shard_fraction = 1.0;        // of the whole-model KV that one GPU stores per token
  bool replicated_across_tp = false;  // every TP rank stores the same KV bytes
};

// vLLM's paging of a compressed-KV model (docs/footprint.md "KV pool"). Each KV-source layer of
// ratio r owns a page of B states and a page of B indexer keys, each padded to the alignment; a
// page covers B r tokens. Sources of one ratio form a block group; all groups draw blocks of one
// stride from one pool, the widest group's summed pages (vLLM's packed planner). A request of n
// tokens takes ceil(n / (B r)) blocks of every group, so a token costs stride x sum_g 1 / (B r_g).
struct PagedKvCharge {
  Bytes block_stride;                                // bytes of one pool block (the widest group's pages)
  double blocks_per_token = 0.0;                     // sum over groups of 1 / (B r_g)
  std::vector<std::int64_t> group_tokens_per_block;  // B r_g, one per group (ascending ratio)
  Bytes per_token() const { return block_stride * blocks_per_token; }
  // Blocks a request of `tokens` tokens holds: sum over groups of ceil(tokens / (B r_g)).
  std::int64_t blocks_for(std::int64_t tokens) const;
};

// The paging charge on a GPU of `sm_family`; requires card.kv.paged_layout (throws otherwise).
PagedKvCharge paged_kv_charge(const ModelCard& card, int sm_family);

// Whole-model KV bytes per token of context on a GPU of `sm_family` (used only by paged layouts).
Bytes kv_bytes_per_token(const ModelCard& card, int sm_family = 0);

// Per-GPU KV sizes for a replica of `tp` GPUs.
KvSize kv_size_per_gpu(const ModelCard& card, int tp, bool dp_attention, int sm_family = 0);

}  // namespace engramsim
