#include "models/kv_size.hpp"

#include <algorithm>
#include <stdexcept>

#include "hardware/gpu_spec.hpp"

namespace engramsim {

Bytes kv_bytes_per_token(const ModelCard& c) {
  if (c.kv.bytes_per_token) return *c.kv.bytes_per_token;
  const AttentionSpec& a = c.attention;
  const double b = bytes_per_element(c.kv.precision);
  switch (a.kind) {
    case AttentionKind::gqa:
      return Bytes(2.0 * c.num_layers * a.num_kv_heads * a.head_dim * b);
    case AttentionKind::mla:
      return Bytes(static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim) * c.num_layers * b);
    case AttentionKind::csa: {
      double entries = 0.0;  // compressed entries stored per token, summed over source layers
      for (int l : a.kv_source_layers) {
        const int ratio = a.compress_ratios.empty() ? 1 : a.compress_ratios[static_cast<std::size_t>(l)];
        if (ratio > 0) entries += 1.0 / ratio;
      }
      return Bytes(entries * a.num_kv_heads * a.head_dim * b);
    }
  }
  return Bytes(0.0);
}

KvSize kv_size_per_gpu(const ModelCard& c, int tp, bool dp_attention) {
  if (tp < 1) throw std::invalid_argument("kv_size_per_gpu: tp must be >= 1");
  KvSize k;
  const AttentionSpec& a = c.attention;
  const bool splittable = a.kind == AttentionKind::gqa && a.num_kv_heads > 1;
  if (dp_attention || tp == 1) {
    k.shard_fraction = 1.0;
    k.replicated_across_tp = false;
  } else if (splittable) {
    const int heads_per_rank = std::max(1, (a.num_kv_heads + tp - 1) / tp);
    k.shard_fraction = static_cast<double>(heads_per_rank) / a.num_kv_heads;
    k.replicated_across_tp = heads_per_rank * tp > a.num_kv_heads;
  } else {
    k.shard_fraction = 1.0;
    k.replicated_across_tp = true;
  }
  k.per_token = kv_bytes_per_token(c) * k.shard_fraction;
  k.per_sequence_fixed = c.kv.bytes_per_sequence_fixed * k.shard_fraction;
  return k;
}

}  // namespace engramsim
