// KV-cache bytes per token and per sequence, for the whole model and per GPU of a replica.
//
// Whole-model bytes per token of context (before any sharding):
//   GQA: 2 (K and V) x layers x kv_heads x head_dim x bytes(kv precision)
//   MLA: (kv_lora_rank + qk_rope_head_dim) x layers x bytes — one latent plus the shared RoPE key
//   CSA: the card's bytes_per_token (V4.1 publishes 890 B of global compressed KV); without one,
//        head_dim x bytes x sum over kv_source layers of 1 / compress_ratio (layers with ratio 0
//        keep only the window)
//   Any kind: a card's kv_cache.bytes_per_token overrides the formula.
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

#include "core/units.hpp"
#include "models/model_card.hpp"

namespace engramsim {

struct KvSize {
  Bytes per_token;                    // per GPU, per token held on it
  Bytes per_sequence_fixed;           // per GPU, per resident sequence
  double shard_fraction = 1.0;        // of the whole-model KV that one GPU stores per token
  bool replicated_across_tp = false;  // every TP rank stores the same KV bytes
};

// Whole-model KV bytes per token of context.
Bytes kv_bytes_per_token(const ModelCard& card);

// Per-GPU KV sizes for a replica of `tp` GPUs.
KvSize kv_size_per_gpu(const ModelCard& card, int tp, bool dp_attention);

}  // namespace engramsim
