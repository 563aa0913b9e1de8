#include "models/footprint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>

#include "models/kv_size.hpp"

namespace engramsim {
namespace {

using I64 = std::int64_t;

constexpr double kActivationBytes = 2.0;  // BF16 activations
constexpr double kLogitBytes = 4.0;       // FP32 logits, as samplers keep them

I64 ceil_div(I64 a, I64 b) { return (a + b - 1) / b; }

std::string gib(Bytes b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", b.gib());
  return buf;
}

// Peak live activations of one layer per batched token on one GPU: the residual stream (mHC keeps
// hc_mult copies) going in and out of a sub-layer, plus the larger of the attention and FFN working
// sets. Width of each tensor in elements; BF16.
double working_set_per_token(const ModelCard& c, int tp, int ep, bool dp) {
  const AttentionSpec& a = c.attention;
  const I64 attn_tp = dp ? 1 : tp;
  const I64 heads = ceil_div(a.num_heads, attn_tp);
  const double residual = 2.0 * c.hc_mult * c.hidden_size;

  double attn = 0.0;
  switch (a.kind) {
    case AttentionKind::gqa:
      attn = 2.0 * heads * a.head_dim + 2.0 * ceil_div(a.num_kv_heads, attn_tp) * a.head_dim;
      break;
    case AttentionKind::mla:
      // q, the latent, K/V expanded per head for prefill, and the output.
      attn = static_cast<double>(heads) * (a.qk_nope_head_dim + a.qk_rope_head_dim) + a.kv_lora_rank +
             a.qk_rope_head_dim + static_cast<double>(heads) * (a.qk_nope_head_dim + 2.0 * a.v_head_dim);
      break;
    case AttentionKind::csa:
      attn = a.q_lora_rank + 2.0 * heads * a.head_dim + static_cast<double>(a.num_kv_heads) * a.head_dim +
             static_cast<double>(ceil_div(a.o_groups, attn_tp)) * a.o_lora_rank;
      break;
  }

  double ffn = 0.0;
  if (c.dense_intermediate > 0) ffn = 3.0 * static_cast<double>(ceil_div(c.dense_intermediate, attn_tp));
  if (c.moe) {
    const MoeSpec& m = *c.moe;
    const double inner = static_cast<double>(tp / ep);  // GPUs splitting each expert
    // Each token's top_k (token, expert) pairs land on some GPU; balanced routing gives each GPU
    // top_k pairs per local token: the dispatched input, gate/up/activation, and the output.
    const double routed = m.top_k * (2.0 * c.hidden_size + 3.0 * m.expert_intermediate / inner);
    const double shared =
        3.0 * static_cast<double>(ceil_div(I64{m.num_shared_experts} * m.expert_intermediate, attn_tp));
    ffn = std::max(ffn, routed + shared);
  }
  return (residual + std::max(attn, ffn)) * kActivationBytes;
}

void check_options(const ModelCard& c, const NodeSpec& node, const FootprintOptions& o, int ep) {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  if (o.tp < 1) bad("tp must be >= 1");
  if (ep < 1 || o.tp % ep != 0) bad("ep must be >= 1 and divide tp (" + std::to_string(o.tp) + ")");
  if (!uses_dp_attention(c, o) && c.attention.num_heads % o.tp != 0)
    bad(std::to_string(c.attention.num_heads) + " attention heads do not split evenly over tp " + std::to_string(o.tp) +
        " (tensor-parallel attention)");
  if (!(o.gpu_memory_utilization > 0.0 && o.gpu_memory_utilization <= 1.0))
    bad("gpu_memory_utilization must be in (0, 1]");
  if (!(o.kv_free_fraction >= 0.0 && o.kv_free_fraction <= 1.0))
    bad("kv_free_fraction must be in (0, 1], or 0 for the gpu_memory_utilization rule");
  if (o.max_num_batched_tokens < 1) bad("max_num_batched_tokens must be >= 1");
  if (o.max_num_seqs < 1) bad("max_num_seqs must be >= 1");
  if (o.block_size < 1) bad("block_size must be >= 1");
  if (o.max_model_len < 0 || o.max_model_len > c.max_context)
    bad("max_model_len must be in [1, " + std::to_string(c.max_context) + "] (0 = the card's max_context)");
  if (!(o.host_reserved_fraction >= 0.0 && o.host_reserved_fraction < 1.0))
    bad("host_reserved_fraction must be in [0, 1)");
  if (node.gpu_count < 1) bad("node has no GPUs");
  const ExpertBalance& eb = o.expert_balance;
  if (eb.redundant_experts < 0) bad("redundant_experts must be >= 0");
  if (eb.redundant_experts > 0 && eb.placement != ExpertPlacement::eplb)
    bad("redundant_experts needs expert_placement eplb");
  if (eb.placement == ExpertPlacement::eplb) {
    if (!c.moe) bad("expert_placement eplb needs an MoE model");
    if (const std::string why = expert_slots_problem(c.moe->num_experts, ep, eb); !why.empty()) bad(why);
  }
}

}  // namespace

const char* to_string(AttentionParallel a) { return kAttentionParallelNames.name(a); }

bool uses_dp_attention(const ModelCard& c, const FootprintOptions& o) {
  switch (o.attention) {
    case AttentionParallel::tensor:
      return false;
    case AttentionParallel::data:
      return true;
    case AttentionParallel::automatic: {
      const bool kv_unsplittable = c.attention.kind != AttentionKind::gqa || c.attention.num_kv_heads == 1;
      return c.moe.has_value() && kv_unsplittable && o.tp > 1;
    }
  }
  return false;
}

int resolved_ep(const ModelCard& c, const FootprintOptions& o) {
  return o.ep > 0 ? o.ep : (uses_dp_attention(c, o) ? o.tp : 1);
}

namespace {

// Weights by (kind, precision, sharding as applied, drafter), drafter rows after the backbone's.
void weights_per_gpu(const WeightInventory& inv, const ParallelLayout& layout, int tp, GpuFootprint& g) {
  std::map<std::tuple<bool, int, int, int>, Bytes> lines;
  inv.for_each_group([&](const WeightGroup& w, bool drafter) {
    const bool whole = drafter && inv.drafter_replicated();
    const double frac = shard_fraction(w, layout, whole);
    ShardingClass applied = w.sharding;
    if (tp > 1 && frac >= 1.0 - 1e-12) applied = ShardingClass::replicated;
    const Bytes b = w.bytes() * frac;
    lines[{drafter, static_cast<int>(w.kind), static_cast<int>(w.precision), static_cast<int>(applied)}] += b;
    g.weights += b;
    if (applied == ShardingClass::replicated)
      g.weights_replicated += b;
    else
      g.weights_sharded += b;
  });
  for (const auto& [key, b] : lines)
    g.weight_lines.push_back(WeightLine{static_cast<WeightKind>(std::get<1>(key)),
                                        static_cast<Precision>(std::get<2>(key)),
                                        static_cast<ShardingClass>(std::get<3>(key)), std::get<0>(key), b});
}

// Engram tables are split across the replica's GPUs by table head (vLLM and SGLang shard heads, so
// a GPU holds ceil(heads / tp) of every layer's heads): the share one GPU holds.
double engram_head_share(const EngramTables& tables, int tp) {
  if (tables.rows_per_token_per_layer <= 0) return 0.0;
  const I64 units = tables.rows_per_token_per_layer;
  return static_cast<double>(ceil_div(units, tp)) / static_cast<double>(units);
}

// Activations, logits, Engram staging and fixed buffers for one step's batched tokens.
void activations_per_gpu(const ModelCard& c, const FootprintOptions& o, const EngramTables& tables, int ep, bool dp,
                         double engram_share, GpuFootprint& g) {
  const double tokens = static_cast<double>(o.max_num_batched_tokens);
  g.activation_working_set = Bytes(working_set_per_token(c, o.tp, ep, dp) * tokens);
  const double positions = 1.0 + c.spec_decode.draft_tokens;  // verified per sequence per step
  g.logits = Bytes(2.0 * static_cast<double>(o.max_num_seqs) * positions * c.vocab_size * kLogitBytes);
  if (tables.rows_per_token_per_layer > 0) {
    // Gathered rows for one step's tokens (this GPU's head share, or all of its own tokens' rows
    // after the all-gather under data-parallel attention); double-buffered when fetched from off-GPU.
    const double share = dp ? 1.0 : engram_share;
    const double buffers = o.engram_tier == EngramTier::hbm ? 1.0 : 2.0;
    g.engram_staging = tables.bytes_per_token_position() * (tokens * share * buffers);
  }
  const double fixed_tokens =
      c.fixed_buffer_token_cap > 0 ? std::min<double>(tokens, static_cast<double>(c.fixed_buffer_token_cap)) : tokens;
  g.fixed_buffers = c.fixed_buffer_per_batched_token * fixed_tokens;
  const Bytes cap = o.engine_memory.indexer_logits_profile_cap;
  if (cap.value() > 0.0 && g.fixed_buffers > cap) g.fixed_buffers = cap;
  g.activation = g.activation_working_set + g.logits + g.engram_staging + g.fixed_buffers;
}

// FP32 indexer logits of one query over a max_model_len context at the smallest ratio of an index
// layer (the widest row the indexer writes); 0 without an indexer.
Bytes indexer_logit_row(const ModelCard& c, std::int64_t max_model_len) {
  const AttentionSpec& a = c.attention;
  int ratio = 0;
  for (int l : a.index_source_layers) {
    const int r = a.compress_ratios.empty() ? 1 : a.compress_ratios[static_cast<std::size_t>(l)];
    if (r > 0 && (ratio == 0 || r < ratio)) ratio = r;
  }
  if (a.indexer_heads == 0 || ratio == 0) return Bytes(0.0);
  return Bytes(4.0 * static_cast<double>(max_model_len) / ratio);
}

// Graph memory that grows with the largest captured batch: each captured token's activations
// (the graph pool keeps the largest graph's intermediates) and the indexer logits rows the
// engine's profile holds for it.
Bytes graph_capture_memory(const ModelCard& c, const FootprintOptions& o, std::int64_t max_model_len, int ep, bool dp) {
  if (o.cuda_graph_capture_tokens <= 0) return Bytes(0.0);
  const double per_token = working_set_per_token(c, o.tp, ep, dp) +
                           o.engine_memory.graph_indexer_logit_rows * indexer_logit_row(c, max_model_len).value();
  return Bytes(per_token * static_cast<double>(o.cuda_graph_capture_tokens));
}

// The KV pool: what the budget leaves (the engine's free-memory rule applied), less the per-sequence
// window buffers, in whole blocks.
void kv_pool_per_gpu(const ModelCard& c, const FootprintOptions& o, bool dp, int sm_family, GpuFootprint& g) {
  const KvSize kv = kv_size_per_gpu(c, o.tp, dp, sm_family);
  g.kv_bytes_per_token = kv.per_token;
  g.kv_pool = g.budget - g.non_kv();
  if (o.kv_free_fraction > 0.0 && g.kv_pool.value() > 0.0) g.kv_pool = g.kv_pool * o.kv_free_fraction;
  g.kv_window_reserve = kv.per_sequence_fixed * static_cast<double>(o.max_num_seqs);
  const Bytes for_tokens = g.kv_pool - g.kv_window_reserve;
  const double block_bytes = kv.per_token.value() * o.block_size;
  if (for_tokens.value() > 0.0 && block_bytes > 0.0)
    g.kv_tokens = static_cast<I64>(std::floor(for_tokens.value() / block_bytes)) * o.block_size;
}

// vLLM's "GPU KV cache size": max_model_len times the requests of max_model_len tokens whose
// pages the pool's blocks hold (get_kv_cache_capacity); a paged layout rounds each group up to
// whole pages. Without one it is the pool in tokens.
std::int64_t engine_logged_tokens(const ModelCard& c, const Footprint& f, int sm_family) {
  const GpuFootprint& g = f.per_gpu;
  if (!c.kv.paged_layout || g.kv_tokens <= 0) return f.replica_kv_tokens;
  const PagedKvCharge ch = paged_kv_charge(c, sm_family);
  const Bytes for_tokens = g.kv_pool - g.kv_window_reserve;
  const double blocks = std::floor(for_tokens.value() / ch.block_stride.value());
  const double per_request = static_cast<double>(ch.blocks_for(f.max_model_len));
  const double tokens = std::floor(blocks / per_request * static_cast<double>(f.max_model_len));
  return static_cast<std::int64_t>(tokens) * (f.dp_attention ? f.layout.tp : 1);
}

void per_node(const NodeSpec& node, const FootprintOptions& o, const EngramTables& tables, NodeFootprint& n) {
  n.gpu_count = node.gpu_count;
  n.replicas = o.tp <= node.gpu_count ? node.gpu_count / o.tp : 1;
  const double replica_share_on_node = std::min(1.0, static_cast<double>(node.gpu_count) / o.tp);
  n.host_dram_capacity = node.host_dram_capacity;
  n.host_dram_available = node.host_dram_capacity * (1.0 - o.host_reserved_fraction);
  n.ssd_capacity = node.nvme.capacity_per_drive * static_cast<double>(node.nvme.count);
  const Bytes tables_on_node = tables.total_bytes() * replica_share_on_node;
  if (o.engram_tier == EngramTier::dram)
    n.host_dram_engram = tables_on_node * (o.share_engram_across_replicas ? 1.0 : static_cast<double>(n.replicas));
  if (o.engram_tier == EngramTier::ssd) n.ssd_engram = tables_on_node;  // replicas read the same files
}

// Why HBM does not fit: the terms, the budget and the largest term.
std::string hbm_over_budget(const GpuFootprint& g, const FootprintOptions& o) {
  struct Term {
    const char* name;
    Bytes b;
  };
  const Term terms[] = {{"weights", g.weights},
                        {"Engram tables in HBM", g.engram},
                        {"activations and buffers", g.activation},
                        {"runtime reserve", g.reserved}};
  const Term* largest = &terms[0];
  for (const auto& t : terms)
    if (t.b > largest->b) largest = &t;
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f%%", o.kv_free_fraction > 0.0 ? 100.0 : 100.0 * o.gpu_memory_utilization);
  std::string msg = "HBM over budget by " + gib(Bytes(0.0) - g.kv_pool) + " per GPU: weights " + gib(g.weights) +
                    " + Engram " + gib(g.engram) + " + activations " + gib(g.activation) + " + reserve " +
                    gib(g.reserved) + " = " + gib(g.non_kv()) + " > budget " + gib(g.budget) + " (" + pct + " of " +
                    gib(g.hbm_capacity) + "); largest term: " + largest->name + " (" + gib(largest->b) + ")";
  if (g.engram.value() > 0.0) msg += "; the Engram tables alone are " + gib(g.engram) + " per GPU in HBM";
  return msg;
}

// Every reason the deployment does not fit (empty: it fits).
std::vector<std::string> infeasible_reasons(const ModelCard& c, const NodeSpec& node, const FootprintOptions& o,
                                            const EngramTables& tables, const Footprint& f) {
  const GpuFootprint& g = f.per_gpu;
  const NodeFootprint& n = f.per_node;
  std::vector<std::string> why;
  if (o.tp > node.scale_up_domain_gpus) {
    // Only an expert-parallel replica under data-parallel attention may span domains, and only
    // over a stated scale-out NIC (the step model's rule, roofline_step_model.cpp).
    const bool spans_ok = node.scale_out_bandwidth.value() > 0.0 && f.dp_attention && f.layout.ep == o.tp &&
                          o.tp % node.scale_up_domain_gpus == 0;
    if (!spans_ok)
      why.push_back("a replica of " + std::to_string(o.tp) + " GPUs exceeds the node's scale-up domain of " +
                    std::to_string(node.scale_up_domain_gpus) +
                    " GPUs (spanning domains needs a scale_out_bandwidth, data-parallel attention and ep = tp in "
                    "whole domains)");
  }
  if (g.kv_pool.value() < 0.0) {
    why.push_back(hbm_over_budget(g, o));
  } else if (g.kv_tokens < f.max_model_len) {
    const Bytes need =
        kv_size_per_gpu(c, o.tp, f.dp_attention, node.gpu.sm_family).per_token * static_cast<double>(f.max_model_len) +
        g.kv_window_reserve;
    why.push_back("KV pool " + gib(g.kv_pool) + " per GPU holds " + std::to_string(g.kv_tokens) +
                  " tokens, short of one max_model_len sequence (" + std::to_string(f.max_model_len) +
                  " tokens) plus window buffers: needs " + gib(need) + ", short by " + gib(need - g.kv_pool));
  }
  if (n.host_dram_engram > n.host_dram_available)
    why.push_back("host DRAM: pinned Engram tables need " + gib(n.host_dram_engram) + " per node, " +
                  gib(n.host_dram_available) + " available (" + gib(n.host_dram_capacity) + " less the host reserve)" +
                  ", short by " + gib(n.host_dram_engram - n.host_dram_available));
  if (o.engram_tier == EngramTier::ssd && tables.total_rows() > 0 && n.ssd_engram > n.ssd_capacity)
    why.push_back("SSD: Engram table files need " + gib(n.ssd_engram) + " per node, drives hold " +
                  gib(n.ssd_capacity) + ", short by " + gib(n.ssd_engram - n.ssd_capacity));
  return why;
}

}  // namespace

Footprint compute_footprint(const ModelCard& c, const NodeSpec& node, const FootprintOptions& o) {
  Footprint f;
  const bool dp = uses_dp_attention(c, o);
  const int ep = resolved_ep(c, o);
  check_options(c, node, o, ep);
  f.layout = ParallelLayout{o.tp, ep, dp};
  f.layout.expert_balance = o.expert_balance;
  f.dp_attention = dp;
  f.engram_tier = o.engram_tier;
  f.max_model_len = o.max_model_len > 0 ? o.max_model_len : c.max_context;

  const WeightInventory inv = build_weight_inventory(c);
  GpuFootprint& g = f.per_gpu;
  g.hbm_capacity = node.gpu.hbm_usable;
  g.budget = o.kv_free_fraction > 0.0 ? node.gpu.hbm_usable : node.gpu.hbm_usable * o.gpu_memory_utilization;
  weights_per_gpu(inv, f.layout, o.tp, g);
  const EngramTables& tables = inv.engram();
  f.engram_tables_total = tables.total_bytes();
  f.engram_bytes_per_token_position = tables.bytes_per_token_position();
  const double engram_share = engram_head_share(tables, o.tp);
  if (o.engram_tier == EngramTier::hbm) g.engram = tables.total_bytes() * engram_share;
  activations_per_gpu(c, o, tables, ep, dp, engram_share, g);
  const RuntimeReserve& r = o.reserve;
  g.graph_capture = graph_capture_memory(c, o, f.max_model_len, ep, dp);
  g.reserved =
      r.driver_context + r.library_workspace + r.graph_pool + g.graph_capture + (o.tp > 1 ? r.collectives : Bytes(0.0));
  kv_pool_per_gpu(c, o, dp, node.gpu.sm_family, g);
  f.replica_kv_tokens = dp ? g.kv_tokens * o.tp : g.kv_tokens;
  f.engine_logged_kv_tokens = engine_logged_tokens(c, f, node.gpu.sm_family);
  per_node(node, o, tables, f.per_node);

  const std::vector<std::string> why = infeasible_reasons(c, node, o, tables, f);
  f.feasible = why.empty();
  for (std::size_t i = 0; i < why.size(); ++i) f.infeasible_reason += (i ? "; " : "") + why[i];
  return f;
}

}  // namespace engramsim
