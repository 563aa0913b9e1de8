#include "models/kv_size.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "hardware/gpu_spec.hpp"

namespace engramsim {

namespace {

double padded_page(std::int64_t states, Bytes record, Bytes alignment) {
  const double raw = static_cast<double>(states) * record.value();
  const double a = alignment.value();
  return a > 0.0 ? std::ceil(raw / a) * a : raw;
}

}  // namespace

std::int64_t PagedKvCharge::blocks_for(std::int64_t tokens) const {
  std::int64_t n = 0;
  for (const std::int64_t per : group_tokens_per_block) n += (tokens + per - 1) / per;
  return n;
}

PagedKvCharge paged_kv_charge(const ModelCard& c, int sm_family) {
  if (!c.kv.paged_layout) throw std::invalid_argument("paged_kv_charge: the card has no kv_cache.paged_layout");
  const KvPagedLayout& l = *c.kv.paged_layout;
  const KvPageRecord& rec = sm_family == 100 ? l.sm100 : l.standard;
  const double page = padded_page(l.block_states, rec.state, rec.alignment) +
                      padded_page(l.block_states, rec.indexer_key, rec.alignment);
  std::map<int, int> sources_by_ratio;  // a page of ratio r covers B r tokens; ratio 0 keeps no page
  for (int layer : c.attention.kv_source_layers) {
    const int r =
        c.attention.compress_ratios.empty() ? 1 : c.attention.compress_ratios[static_cast<std::size_t>(layer)];
    if (r > 0) ++sources_by_ratio[r];
  }
  PagedKvCharge ch;
  int widest = 0;
  for (const auto& [ratio, layers] : sources_by_ratio) {
    widest = std::max(widest, layers);
    const std::int64_t per = l.block_states * ratio;
    ch.group_tokens_per_block.push_back(per);
    ch.blocks_per_token += 1.0 / static_cast<double>(per);
  }
  ch.block_stride = Bytes(page * widest);
  return ch;
}

Bytes kv_bytes_per_token(const ModelCard& c, int sm_family) {
  if (c.kv.paged_layout) return paged_kv_charge(c, sm_family).per_token();
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

KvSize kv_size_per_gpu(const ModelCard& c, int tp, bool dp_attention, int sm_family) {
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
  k.per_token = kv_bytes_per_token(c, sm_family) * k.shard_fraction;
  k.per_sequence_fixed = c.kv.bytes_per_sequence_fixed * k.shard_fraction;
  return k;
}

}  // namespace engramsim
