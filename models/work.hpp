// Per-step work decomposition: what one scheduler step asks of each GPU rank of a replica.
//
// Input: a model card, its weight inventory (models/weights.hpp: element counts, precisions and
// sharding of every weight group), the replica layout (tp GPUs, ep expert groups, data-parallel
// attention) and a BatchShape (prefill chunks: new tokens + cached context; decode sequences:
// context + positions verified this step). Output, per layer and per op: FLOPs, HBM bytes,
// collective bytes and Engram lookups of one rank.
//
// How it stays fast. At construction every op of every layer becomes an OpTemplate whose FLOPs,
// bytes and collective bytes are linear forms over a small vector of batch statistics (tokens,
// tokens per rank, attention pairs and KV entries per attention geometry, expected distinct experts,
// ...). Identical ops of different layers share one template with a multiplicity, so a step costs
// one pass over the batch (summarize) plus one evaluation per distinct template. The detailed
// breakdown (decompose) evaluates the same templates per layer, so the two can never disagree.
//
// Token sets. Statistics come in sets: set 0 is what layers below card.prefill_layers see (decode
// positions and prompt tokens), set 1 what the remaining layers see (decode positions only: V4.1
// prefill runs only the encoder half), set 2 what the drafter sees (drafted positions).
//
// Formulas (per rank; H heads, hd head_dim, kvh KV heads, T tokens, TR = tokens per rank = T, or
// T / tp under data-parallel attention; "frac" is weights.hpp's shard_fraction):
//   weight GEMM (each inventory group):  FLOPs = 2 TR elements frac
//                                        bytes = elements frac (bytes/elem + scales) + TR (in + out) 2 B
//   attention core, per attended (query, key) pair:
//     GQA  4 H_r hd;   MLA decode (absorbed) 2 H_r (2 kv_lora + rope);   MLA prefill 2 H_r (nope + rope + v);
//     CSA  4 H_r hd (MQA, one hd-wide entry serves as key and value)
//   attended keys of a query at position q (1-based, including itself):
//     window part   min(W, q) (W = sliding window; full context q when no window and no compression)
//     compressed    min(topk, q / r) on layers with compress ratio r > 0 (all q / r without an indexer)
//   KV bytes: a GQA/MLA decode sequence reads its attended entries once per step (all its
//     positions share the read); a CSA decode query gathers its own window and top-k entries (the
//     sparse kernel runs each verify position as its own row); a prefill chunk reads its context
//     once, and under CSA first dequantizes every compressed and window entry of its context into
//     a BF16 workspace (entry + 2 hd bytes each). Entry bytes: GQA 2 kvh_r hd, MLA kv_lora + rope,
//     CSA hd, times the KV precision; MLA/CSA entries are whole on every TP rank.
//   indexer (CSA index_source layers): scores 2 ih id FLOPs per (query, compressed entry) pair over
//     all q / r entries; keys (id FP8 + one FP32 scale per 128) read once per decode sequence, and
//     gathered (read + write) then read for a prompt chunk; FP32 logits written per pair; a top-k
//     kernel reads them back.
//   routed experts: FLOPs 2 T k per_expert_elements / tp; weights read = expected distinct experts
//     of the rank's EP group, ceil(E / ep) (1 - (1 - k/E)^T), times bytes per expert / (tp / ep).
//   TP all-reduce after attention and after the FFN: T h 2 B (TP attention only); EP all-to-all
//     dispatch T_r k (ep-1)/ep h 1 B (FP8) and combine 2 B under data-parallel attention.
//   mHC (hc_mult > 1): per sub-layer, a mixing GEMM (inventory mhc.mix, run on BF16 tensor cores)
//     and stream traffic TR h 2 B (hc + 1) before, TR h 2 B (2 hc + 1) after.
//   Engram module: fusion GEMM (inventory engram.fusion, split by table head), gating elementwise,
//     and an all-reduce of the (1 + hc) h projections across TP ranks.
//   embedding, final norm, LM head on logit positions (every decode position, one per prefill chunk),
//     logits gather across TP ranks, sampling over the vocabulary.
//   drafter (spec decoding): DSpark drafts a block in one pass through its stages over
//     sum(positions - 1) positions; MTP runs (positions - 1) sequential passes over the sequences.
// Rough parts (activation widths of non-attention groups, elementwise traffic, the expert-load
// balance) are listed in docs/cost-model.md under "Known limits".
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/model_card.hpp"
#include "models/op_cost.hpp"
#include "models/step_model.hpp"
#include "models/weights.hpp"

namespace engramsim {

inline constexpr int kTokenSets = 3;
inline constexpr int kMaxGeometries = 4;

// Per-set statistic slots (see BatchStats).
enum StatSlot : std::uint16_t {
  kOne = 0,
  kTokens,              // T: positions through the layer, whole replica
  kTokensRank,          // TR: tokens one rank processes on the attention side
  kLogits,              // positions that need logits (whole replica)
  kLogitsRank,          // ... per rank
  kMoeDistinct,         // share of experts touched (experts_touched_share)
  kMoeTokensPerExpert,  // T k / E / share touched: tokens per touched expert
  kDecodePosPerSeq,     // mean positions per decode sequence
  kPrefillTokPerChunk,  // mean new tokens per prefill chunk
  kPrefillCached,       // sum of cached context over prefill chunks (MLA up-projection)
  kPrefillCtxPerChunk,  // mean cached context per prefill chunk: the rows of that up-projection
  kDrafterPasses,       // sequential drafter passes (MTP); 1 for block drafters
  kTokensRankNormal,    // TR when the step holds prompt tokens (normal expert kernels), else 0
  kTokensRankLowLat,    // TR when the step is decode-only (low-latency expert kernels), else 0
  kMoeHotTokens,        // T scaled to the busiest EP rank's routed rows (models/expert_balance.hpp)
  kMoeCommTokensRank,   // tokens behind the busiest rank's all-to-all: max(TR sent, busiest EP rank's receive)
  kGeometryBase,        // then, per geometry g: kGeometryBase + kGeomSlots * g + GeomSlot
};
enum GeomSlot : std::uint16_t {
  kDecodePairs = 0,  // attended (query, key) pairs of decode positions
  kDecodeKv,         // KV entries read by decode sequences
  kPrefillPairs,
  kPrefillKv,
  kIndexPairs,         // (query, compressed entry) pairs the indexer scores for decode positions
  kIndexKv,            // compressed index keys decode sequences read
  kPrefillIndexPairs,  // ... for prompt tokens
  kPrefillIndexKv,     // index keys of prompt chunks' contexts, gathered before scoring
  kPrefillGather,      // sparse-attention entries prompt chunks dequantize into a workspace (CSA)
  kGeomSlots,
};
inline constexpr int kSlotsPerSet = kGeometryBase + kGeomSlots * kMaxGeometries;
// The slot of statistic `s` of attention geometry `g`.
constexpr int geometry_slot(int g, GeomSlot s) {
  return static_cast<int>(kGeometryBase) + static_cast<int>(kGeomSlots) * g + static_cast<int>(s);
}

struct BatchStats {
  std::array<double, kTokenSets * kSlotsPerSet> x{};
  double at(int set, int slot) const { return x[static_cast<std::size_t>(set * kSlotsPerSet + slot)]; }
  double& at(int set, int slot) { return x[static_cast<std::size_t>(set * kSlotsPerSet + slot)]; }
  // Totals for reports.
  double decode_seqs = 0.0;
  double decode_positions = 0.0;
  double prefill_chunks = 0.0;
  double prefill_tokens = 0.0;
  double prefill_first_chunk_tokens = 0.0;  // tokens of chunks with no cached context
};

// Attended keys of a layer: sliding window, compression ratio, indexer top-k.
struct AttentionGeometry {
  int window = 0;        // 0 = no sliding window
  int ratio = 0;         // compressed entries per ratio tokens; 0 = none
  int topk = 0;          // compressed entries selected per query; 0 = all
  bool full_raw = true;  // without a window, raw keys cover the whole context (GQA/MLA)
  bool operator==(const AttentionGeometry&) const = default;
};

// One term of a linear form: coefficient x stats[set][slot].
struct Term {
  std::uint16_t slot = 0;
  double coef = 0.0;
};

struct OpTemplate {
  const char* name = "";
  OpClass op_class = OpClass::gemm;
  Precision precision = Precision::bf16;
  int kernels = 1;
  CollectiveKind collective = CollectiveKind::none;
  int collective_ranks = 1;
  int set = 0;
  std::vector<Term> flops;
  std::vector<Term> bytes;
  std::vector<Term> collective_bytes;  // expert_* kinds: bytes over the scale-out NIC
  std::vector<Term> scale_up_bytes;    // expert_* kinds: bytes over the scale-up fabric
  Term flops_key{kOne, 1.0};           // key = coef x stats[slot]
  double bw_key = 0.0;                 // fixed bandwidth key (0 = the op's bytes)
  double block_fp8_k_steps = 0.0;      // see OpWork::block_fp8_k_steps
  double gemm_k = 0.0;                 // see OpWork::gemm_k
  bool operator==(const OpTemplate& o) const;
};

struct LayerWork {
  int layer = 0;
  std::vector<OpWork> ops;
  bool engram = false;
  double engram_positions = 0.0;         // token positions through the Engram module (replica)
  double engram_lookups_per_rank = 0.0;  // row lookups one rank issues (before dedup)
};

struct StepWork {
  BatchStats stats;
  std::vector<OpWork> pre;  // embedding, mHC expansion
  std::vector<LayerWork> layers;
  std::vector<OpWork> post;     // final norm, LM head, logits gather, sampling
  std::vector<OpWork> drafter;  // the drafter's ops, work of one pass
  double drafter_passes = 0.0;  // sequential passes per step (MTP: draft tokens; DSpark: 1)
};

// A template's linear forms packed for the per-step evaluation (no pointer chasing).
struct PackedForms {
  std::uint16_t base = 0;  // set x kSlotsPerSet: offset of the template's statistics
  std::uint8_t n_flops = 0, n_bytes = 0, n_coll = 0, n_up = 0;
  std::array<Term, 4> terms{};  // flops terms, then bytes, then collective bytes, then scale-up bytes
  double flops(const double* x) const { return sum(x, 0, n_flops); }
  double bytes(const double* x) const { return sum(x, n_flops, n_bytes); }
  // The bytes that do not grow with the batch (the weights a GEMM streams once per step).
  double fixed_bytes() const {
    double v = 0.0;
    for (std::size_t k = n_flops; k < std::size_t{n_flops} + n_bytes; ++k)
      if (terms[k].slot == kOne) v += terms[k].coef;
    return v;
  }
  double collective_bytes(const double* x) const { return sum(x, static_cast<std::size_t>(n_flops) + n_bytes, n_coll); }
  double scale_up_bytes(const double* x) const {
    return sum(x, static_cast<std::size_t>(n_flops) + n_bytes + n_coll, n_up);
  }

 private:
  double sum(const double* x, std::size_t from, std::size_t count) const {
    double v = 0.0;
    for (std::size_t k = from; k < from + count; ++k) v += terms[k].coef * x[terms[k].slot];
    return v;
  }
};

// Where the serving engine quantizes a projection's BF16 input to the narrow format of its weights when
// they are FP8 with one scale per tensor (or per channel) or FP4: inside the kernel that produces the
// input (true: no op of its own), or in a quantizing kernel of its own before the GEMM (false). The
// producers: the RMSNorm before the attention and FFN projections, the FFN activation before the down
// projection, attention before the output projection. Block-scaled FP8 and the MoE block are not
// covered: their per-group quantization belongs to the engine's GEMM and MoE kernels
// (docs/cost-model.md "Activation quantization").
struct ActivationQuantFusion {
  bool norm = false;
  bool activation = false;
  bool attention = false;
};

// The engine's sparse-attention kernels for compressed-KV (CSA) layers run a rank's query heads padded
// up to the first of `head_pad` at or above them (FlashMLA's sparse kernels take 64 or 128 heads), so
// the attention FLOPs are those of the padded heads; the KV read is not padded. Empty, or more heads
// than the largest entry: the heads as they are.
struct SparseAttentionKernels {
  std::vector<int> head_pad;  // ascending
  double padded(double heads) const {
    for (const int p : head_pad)
      if (heads <= p) return p;
    return heads;
  }
};

class WorkModel {
 public:
  WorkModel(const ModelCard& card, const WeightInventory& weights, ParallelLayout layout,
            ActivationQuantFusion quant_fusion = {}, SparseAttentionKernels sparse_attention = {});

  // One pass over the batch. Throws std::invalid_argument for negative sizes.
  BatchStats summarize(const BatchShape& batch) const;

  // The detailed per-layer breakdown.
  StepWork decompose(const BatchShape& batch) const;

  // Fast-path access: distinct templates, their multiplicities over the whole step, and how often
  // each runs before a given Engram layer (the compute that can hide that layer's fetch).
  const std::vector<OpTemplate>& templates() const { return templates_; }
  double multiplicity(std::size_t t) const { return count_[t]; }
  // Drafter templates run `passes` times per step (stats slot kDrafterPasses of set 2).
  bool is_drafter(std::size_t t) const { return drafter_[t] != 0; }
  // Occurrences of template t before Engram layer index e (order of card.engram->layers).
  double count_before_engram(std::size_t e, std::size_t t) const { return before_[e][t]; }
  // The same as (template, count) pairs with count > 0.
  const std::vector<std::pair<std::size_t, double>>& before_engram(std::size_t e) const { return before_sparse_[e]; }
  // For a template of set 1, the set-0 template with identical work (or npos): in a step without
  // prompt tokens both sets see the same statistics, so one evaluation serves both.
  std::size_t set0_twin(std::size_t t) const { return twin_[t]; }
  OpWork evaluate(std::size_t t, const BatchStats& s) const;
  const PackedForms& packed(std::size_t t) const { return packed_[t]; }

  const ModelCard& card() const { return card_; }
  const ParallelLayout& layout() const { return layout_; }
  const std::vector<AttentionGeometry>& geometries() const { return geometries_; }
  int layer_set(int layer) const;
  // Engram row lookups per rank per token position through an Engram layer.
  double engram_lookups_per_position_per_rank() const { return engram_lookups_per_pos_; }

 private:
  struct LayerPlan {
    std::vector<std::size_t> ops;  // template ids in execution order
  };
  struct LayerBuilder;  // the ops of one layer, block by block (work.cpp)
  void check_layout() const;
  void build_geometries();
  void add_drafter_ops();
  void count_templates();
  void pack_templates();
  std::size_t intern(OpTemplate t);
  void add_pre_ops();
  void add_layer_ops(const LayerWeights& lw, int layer, int set, bool drafter, std::vector<std::size_t>& out);
  void add_post_ops(int set, const std::vector<WeightGroup>& groups, bool drafter, std::vector<std::size_t>& out);
  int geometry_of(int layer) const;
  void accumulate_decode(BatchStats& s, int set, double context, double positions) const;
  // Totals over decode sequences whose context saturates every geometry's caps: their attention
  // sums are closed forms in these five numbers.
  struct SaturatedSums {
    double n = 0, p = 0, pc = 0, pp = 0, c = 0;
    void add(double context, double positions) {
      n += 1.0;
      p += positions;
      pc += positions * context;
      pp += 0.5 * positions * (positions + 1.0);
      c += context;
    }
    void merge(const SaturatedSums& o) {
      n += o.n;
      p += o.p;
      pc += o.pc;
      pp += o.pp;
      c += o.c;
    }
  };
  void flush_saturated(BatchStats& s, int set, const SaturatedSums& sums) const;
  // The decode batch's totals (two lanes: the floating-point loop alternates them).
  struct DecodeTotals {
    SaturatedSums sat[2];
    SaturatedSums draft_sat[2];
    double positions[2] = {0.0, 0.0};
    double n_draft = 0.0, d_sum = 0.0;
  };
  bool exact_decode_sums(const BatchShape& batch, BatchStats& s, DecodeTotals& t) const;
  void float_decode_sums(const BatchShape& batch, DecodeTotals& t) const;
  double prefill_sums(const BatchShape& batch, BatchStats& s) const;
  void fill_token_counts(BatchStats& s, int set, double tokens, double logits, double experts, double top_k) const;
  void fill_layer_sets(const BatchShape& batch, BatchStats& s, double cached_sum) const;
  void fill_drafter_set(BatchStats& s, const DecodeTotals& d) const;
  void accumulate_prefill(BatchStats& s, int set, double cached, double tokens) const;
  // Data-parallel attention with prompt chunks: set 0's attention side becomes the busiest rank's.
  void apply_expert_balance(BatchStats& s) const;
  void busiest_rank_prompts(const BatchShape& batch, BatchStats& s) const;

  ModelCard card_;
  WeightInventory weights_;
  ParallelLayout layout_;
  ActivationQuantFusion quant_fusion_;
  SparseAttentionKernels sparse_attention_;
  double expert_skew_ = 1.0;     // busiest EP rank's share over the mean from popularity skew
  double expert_noise_z_ = 0.0;  // expected max of ep standard normals (sampling noise); 0 = ideal
  std::vector<AttentionGeometry> geometries_;
  std::vector<int> layer_geometry_;
  std::vector<OpTemplate> templates_;
  std::vector<std::size_t> pre_ops_;
  std::vector<LayerPlan> layer_ops_;
  std::vector<std::size_t> post_ops_;
  std::vector<std::size_t> drafter_ops_;
  std::vector<double> count_;
  std::vector<unsigned char> drafter_;
  std::vector<PackedForms> packed_;
  std::vector<std::vector<double>> before_;
  std::vector<std::vector<std::pair<std::size_t, double>>> before_sparse_;
  std::vector<std::size_t> twin_;
  double engram_lookups_per_pos_ = 0.0;
  double saturation_context_ = 0.0;  // contexts at or above this saturate every geometry's mins
  bool has_drafter_ = false;
};

}  // namespace engramsim
