// HBM footprint of one model replica on a node, and whether it fits.
//
// compute_footprint(card, node, options) is pure. Per GPU of a replica of `tp` GPUs it adds up
//   weights      the inventory (models/weights.hpp) split by the parallel layout, by group and
//                precision, with the sharded and replicated parts apart;
//   engram       the Engram tables when they live in HBM: total / tp (split by table head);
//   activations  the peak working set of one forward over max_num_batched_tokens tokens, the
//                sampler's logits, Engram staging buffers, and the card's fixed buffers;
//   reserve      runtime memory outside the model (driver context, library workspaces, CUDA/HIP
//                graph pools, collective buffers): the documented constants in RuntimeReserve;
// and what is left of usable HBM x gpu_memory_utilization is the KV pool (or, under TensorRT-LLM's
// rule, kv_free_fraction of what usable HBM leaves after the rest), from which the
// sliding-window buffers of max_num_seqs sequences are set aside and the rest is counted in
// whole blocks of block_size tokens. Per node it counts pinned host DRAM for the tables (dram tier)
// and NVMe capacity (ssd tier).
//
// Feasible when: the replica fits in the scale-up domain, the KV pool holds one max_model_len
// sequence (as vLLM requires at start-up) plus the window buffers, pinned tables fit in host DRAM
// after the host reserve, and table files fit on the node's drives. Otherwise infeasible_reason names
// the failing term and by how much. Every constant and assumption: docs/footprint.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "hardware/node_spec.hpp"
#include "models/engine_memory.hpp"
#include "models/engram_tier.hpp"
#include "models/model_card.hpp"
#include "models/weights.hpp"

namespace engramsim {

// How attention (and the dense parts around it) is parallelised inside a replica.
//   tensor: heads split across the tp GPUs, which all serve the same sequences;
//   data:   every GPU runs whole attention for its own sequences, experts shared by expert
//           parallelism (SGLang --enable-dp-attention, vLLM data parallel + expert parallel);
//   automatic: data for MoE models whose KV cannot be split by head (MLA latent, one KV head),
//           since tensor-parallel attention would store the whole KV on every GPU; tensor otherwise.
enum class AttentionParallel { automatic, tensor, data };
inline constexpr EnumNames<AttentionParallel, 3> kAttentionParallelNames{{{
    {AttentionParallel::automatic, "automatic"},
    {AttentionParallel::tensor, "tensor"},
    {AttentionParallel::data, "data"},
}}};
const char* to_string(AttentionParallel a);

// Runtime memory a serving process holds outside weights, activations and KV. Estimates [E] from
// the usual vLLM/SGLang start-up logs on Hopper/Blackwell/MI300-class GPUs (docs/footprint.md).
struct RuntimeReserve {
  Bytes driver_context = Bytes::gib(0.75);    // CUDA/HIP context, module images, allocator slack
  Bytes library_workspace = Bytes::gib(0.5);  // cuBLAS(Lt)/hipBLASLt, attention and MoE kernel workspaces
  Bytes graph_pool = Bytes::gib(1.0);         // captured CUDA/HIP graphs' private memory pool
  Bytes collectives = Bytes::gib(1.0);        // NCCL/RCCL channels and all-to-all buffers (only when tp > 1)
};

struct FootprintOptions {
  int tp = 1;  // GPUs in one replica
  int ep = 0;  // expert-parallel groups; 0 = automatic (tp under data-parallel attention, else 1)
  AttentionParallel attention = AttentionParallel::automatic;
  EngramTier engram_tier = EngramTier::dram;
  std::int64_t max_num_batched_tokens = 8192;  // per scheduler (per GPU under data-parallel attention)
  std::int64_t max_num_seqs = 256;             // resident sequences per scheduler
  std::int64_t max_model_len = 0;              // 0 = the card's max_context
  double gpu_memory_utilization = 0.9;         // fraction of usable HBM the engine may take (vLLM default)
  // TensorRT-LLM's rule instead (kv_cache_free_gpu_mem_fraction), when > 0: the KV pool is this
  // fraction of what usable HBM leaves after weights, Engram, activations and the runtime reserve;
  // gpu_memory_utilization is then not used.
  double kv_free_fraction = 0.0;
  int block_size = 16;  // KV tokens per block
  // One pinned copy of the tables per node, shared by all replicas on it (vLLM dp_shared_memory),
  // instead of one copy per replica.
  bool share_engram_across_replicas = false;
  double host_reserved_fraction = 0.1;  // host DRAM kept for the OS, page cache and engine processes
  RuntimeReserve reserve;
  // The engine's start-up profile terms, and the largest CUDA-graph batch it captures, in tokens
  // (0: no graph term beyond reserve.graph_pool).
  EngineMemoryProfile engine_memory;
  std::int64_t cuda_graph_capture_tokens = 0;
  // Expert placement over the EP ranks; eplb's redundant replicas take HBM on every GPU.
  ExpertBalance expert_balance;
};

// Weight bytes on one GPU for one (kind, precision, sharding) combination.
struct WeightLine {
  WeightKind kind = WeightKind::norms;
  Precision precision = Precision::bf16;
  ShardingClass sharding = ShardingClass::replicated;  // as applied under the layout
  bool drafter = false;
  Bytes bytes;
};

struct GpuFootprint {
  Bytes hbm_capacity;  // usable HBM of the GPU
  Bytes budget;        // hbm_capacity x gpu_memory_utilization (the whole capacity under kv_free_fraction)
  Bytes weights;
  Bytes weights_sharded;     // the part that shrinks as tp / ep grow
  Bytes weights_replicated;  // the part every GPU holds whole
  std::vector<WeightLine> weight_lines;
  Bytes engram;      // Engram tables in HBM (hbm tier only)
  Bytes activation;  // working set + logits + staging + fixed buffers
  Bytes activation_working_set;
  Bytes logits;
  Bytes engram_staging;
  Bytes fixed_buffers;
  Bytes graph_capture;         // graph memory that grows with the captured batch (beyond the reserve's fixed pool)
  Bytes reserved;              // runtime reserve, graph_capture included
  Bytes kv_pool;               // budget minus everything above; negative = over budget
  Bytes kv_window_reserve;     // sliding-window buffers of max_num_seqs sequences
  Bytes kv_bytes_per_token;    // per GPU
  std::int64_t kv_tokens = 0;  // whole blocks of KV this GPU can hold
  Bytes non_kv() const { return weights + engram + activation + reserved; }
};

struct NodeFootprint {
  int gpu_count = 0;
  int replicas = 0;  // whole replicas on the node (1 when a replica spans nodes)
  Bytes host_dram_capacity;
  Bytes host_dram_available;  // after the host reserve
  Bytes host_dram_engram;     // pinned tables (dram tier)
  Bytes ssd_capacity;
  Bytes ssd_engram;  // table files (ssd tier)
};

struct Footprint {
  bool feasible = false;
  std::string infeasible_reason;  // empty when feasible
  ParallelLayout layout;
  bool dp_attention = false;
  EngramTier engram_tier = EngramTier::dram;
  std::int64_t max_model_len = 0;
  Bytes engram_tables_total;              // all layers, payload + scales
  Bytes engram_bytes_per_token_position;  // all Engram layers
  GpuFootprint per_gpu;
  NodeFootprint per_node;
  std::int64_t replica_kv_tokens = 0;  // KV tokens one replica holds (sum over GPUs under DP attention)
  // The pool as the engine logs it ("GPU KV cache size: N tokens", vLLM): requests of
  // max_model_len tokens the pool's blocks hold, times max_model_len. Equal to replica_kv_tokens up
  // to rounding unless the card has a paged layout, whose blocks a request holds in whole pages.
  std::int64_t engine_logged_kv_tokens = 0;
};

// Throws std::invalid_argument for options outside their domain (tp < 1, ep not dividing tp,
// utilisation outside (0, 1], ...). An infeasible deployment is a result, not an error.
Footprint compute_footprint(const ModelCard& card, const NodeSpec& node, const FootprintOptions& options);

// Whether `options` resolve to data-parallel attention for this card.
bool uses_dp_attention(const ModelCard& card, const FootprintOptions& options);
// The expert-parallel degree a layout gets: options.ep, or when 0, tp under data-parallel attention
// and 1 otherwise.
int resolved_ep(const ModelCard& card, const FootprintOptions& options);

}  // namespace engramsim
