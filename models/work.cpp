#include "models/work.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace engramsim {
namespace {

constexpr double kActBytes = 2.0;  // activations, residual streams and collectives travel in BF16

std::uint16_t geom_slot(int g, GeomSlot s) { return static_cast<std::uint16_t>(geometry_slot(g, s)); }

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Tensor cores run what the weights are stored in; FP32 mixing weights (mHC) run on BF16 paths.
Precision compute_precision(Precision p) { return p == Precision::fp32 ? Precision::bf16 : p; }

// sum_{j=1..n} min(cap, slope (c + j)); cap <= 0 means no cap.
double sum_min(double c, double n, double cap, double slope) {
  if (n <= 0.0) return 0.0;
  auto linear = [&](double m) { return slope * (m * c + 0.5 * m * (m + 1.0)); };
  if (cap <= 0.0) return linear(n);
  const double n1 = std::clamp(std::floor(cap / slope - c), 0.0, n);
  return linear(n1) + (n - n1) * cap;
}

double min_or_all(double cap, double v) { return cap > 0.0 ? std::min(cap, v) : v; }

// Templates outlive any one inventory, so op names are string literals: the inventory's group
// name when it is one of these, else `fallback`.
const char* static_name(const std::string& group_name, const char* fallback) {
  static constexpr const char* known[] = {"attn.q",    "attn.q_a",        "attn.q_b",     "attn.kv",
                                          "attn.kv_a", "attn.kv_b",       "attn.o",       "attn.o_a",
                                          "attn.o_b",  "attn.compressor", "attn.indexer", "attn.indexer_compressor"};
  for (const char* k : known)
    if (group_name == k) return k;
  return fallback;
}

struct Dims {
  double in = 0.0;
  double out = 0.0;
};

// Activation widths of a projection, for its activation traffic. Known attention groups from the
// card's shapes; others read hidden and write elements / hidden.
Dims activation_dims(const WeightGroup& g, const ModelCard& c) {
  const AttentionSpec& a = c.attention;
  const double h = c.hidden_size;
  const double heads = a.num_heads;
  const std::string& n = g.name;
  if (n == "attn.q") return {h, heads * a.head_dim};
  if (n == "attn.kv") return {h, (a.kind == AttentionKind::gqa ? 2.0 : 1.0) * a.num_kv_heads * a.head_dim};
  if (n == "attn.o") return {heads * (a.kind == AttentionKind::mla ? a.v_head_dim : a.head_dim), h};
  if (n == "attn.q_a") return {h, static_cast<double>(a.q_lora_rank)};
  if (n == "attn.q_b")
    return {static_cast<double>(a.q_lora_rank),
            heads * (a.kind == AttentionKind::mla ? a.qk_nope_head_dim + a.qk_rope_head_dim : a.head_dim)};
  if (n == "attn.kv_a") return {h, static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim)};
  if (n == "attn.kv_b") return {static_cast<double>(a.kv_lora_rank), heads * (a.qk_nope_head_dim + a.v_head_dim)};
  if (n == "attn.o_a") return {heads * a.head_dim, static_cast<double>(a.o_groups) * a.o_lora_rank};
  if (n == "attn.o_b") return {static_cast<double>(a.o_groups) * a.o_lora_rank, h};
  if (n == "attn.compressor") return {h, 2.0 * a.num_kv_heads * a.head_dim};
  if (n == "attn.indexer")
    return {static_cast<double>(a.q_lora_rank > 0 ? a.q_lora_rank : c.hidden_size),
            static_cast<double>(a.indexer_heads) * a.indexer_head_dim};
  if (n == "attn.indexer_compressor") return {h, 2.0 * a.indexer_head_dim};
  if (n == "engram.fusion" && c.engram) {
    const double mem = static_cast<double>(c.engram->rows_per_token_per_layer()) * c.engram->head_dim;
    return {mem, (1.0 + c.hc_mult) * h};
  }
  return {h, static_cast<double>(g.elements) / h};
}

// The reduction depth of a projection's GEMMs on one rank (OpWork::gemm_k): its input width, the
// rank's share of it for a split row-parallel projection; for the FFN groups (gate, up and down in one
// op) the FLOP-weighted harmonic mean of gate-up's depth (the input) and down's (the rank's share of
// the intermediate width), 3 / (2 / in + 1 / down).
double gemm_depth(const WeightGroup& wg, const Dims& d, bool row_split, double frac) {
  if (wg.kind != WeightKind::dense_ffn && wg.kind != WeightKind::shared_experts) return d.in * (row_split ? frac : 1.0);
  const double down = d.out / 3.0 * frac;
  return d.in > 0.0 && down > 0.0 ? 3.0 / (2.0 / d.in + 1.0 / down) : 0.0;
}

// The 128-deep K steps the kernels of a dense GEMM on block-scaled FP8 weights walk on one rank
// (OpWork::block_fp8_k_steps): one GEMM for an attention projection (K its input, `k_frac` of it for
// the row-parallel output projection), two for the dense FFN (gate-up over the hidden size, down over
// the rank's `frac` of the intermediate size). 0 for other weights and precisions: the MoE block,
// shared experts included, runs in the engine's MoE kernels. MLA's KV down-projection shares the
// query down-projection's walk (SGLang, vLLM and TensorRT-LLM run the two as one GEMM over the same
// input), and its KV up-projection is absorbed into BF16 batched GEMMs around decode attention.
double block_fp8_k_steps(const WeightGroup& wg, const Dims& d, const ModelCard& c, double k_frac, double frac) {
  constexpr double kStep = 128.0;
  if (wg.precision != Precision::fp8 || !(wg.scale_bytes_per_element > 0.0)) return 0.0;
  if (wg.name == "attn.kv_b" || (wg.name == "attn.kv_a" && c.attention.q_lora_rank > 0)) return 0.0;
  switch (wg.kind) {
    case WeightKind::attn_q:
    case WeightKind::attn_kv:
    case WeightKind::attn_o:
    case WeightKind::attn_indexer:
    case WeightKind::attn_compressor:
      return std::ceil(d.in * k_frac / kStep);
    case WeightKind::dense_ffn:
      return std::ceil(d.in / kStep) + std::ceil(d.out / 3.0 * frac / kStep);  // gate, up and down
    default:
      return 0.0;
  }
}

}  // namespace

bool OpTemplate::operator==(const OpTemplate& o) const {
  auto same_terms = [](const std::vector<Term>& a, const std::vector<Term>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].slot != b[i].slot || a[i].coef != b[i].coef) return false;
    return true;
  };
  return std::strcmp(name, o.name) == 0 && op_class == o.op_class && precision == o.precision && kernels == o.kernels &&
         collective == o.collective && collective_ranks == o.collective_ranks && set == o.set &&
         same_terms(flops, o.flops) && same_terms(bytes, o.bytes) && same_terms(collective_bytes, o.collective_bytes) &&
         same_terms(scale_up_bytes, o.scale_up_bytes) && flops_key.slot == o.flops_key.slot &&
         flops_key.coef == o.flops_key.coef && bw_key == o.bw_key && block_fp8_k_steps == o.block_fp8_k_steps &&
         gemm_k == o.gemm_k;
}

WorkModel::WorkModel(const ModelCard& card, const WeightInventory& weights, ParallelLayout layout,
                     ActivationQuantFusion quant_fusion, SparseAttentionKernels sparse_attention)
    : card_(card),
      weights_(weights),
      layout_(layout),
      quant_fusion_(quant_fusion),
      sparse_attention_(std::move(sparse_attention)) {
  check_layout();
  // Expert-load imbalance over the EP ranks (models/expert_balance.hpp); balanced routing has none.
  const ExpertBalance& eb = layout_.expert_balance;
  if (card_.moe && layout_.ep > 1 && eb.placement != ExpertPlacement::ideal && eb.routing == ExpertRouting::random) {
    expert_skew_ =
        hottest_rank_skew(card_.moe->num_experts, layout_.ep, card_.moe->popularity_cv, layout_.expert_balance);
    expert_noise_z_ = expected_max_standard_normal(layout_.ep);
  }
  build_geometries();
  if (card_.engram)
    engram_lookups_per_pos_ = static_cast<double>(card_.engram->rows_per_token_per_layer()) / layout_.tp;

  add_pre_ops();
  layer_ops_.resize(static_cast<std::size_t>(card_.num_layers));
  for (int l = 0; l < card_.num_layers; ++l)
    add_layer_ops(weights_.layer(l), l, layer_set(l), false, layer_ops_[static_cast<std::size_t>(l)].ops);
  add_post_ops(0, weights_.model_groups(), false, post_ops_);
  has_drafter_ = card_.spec_decode.kind != SpecDecodeKind::none &&
                 (!weights_.drafter_layers().empty() || !weights_.drafter_groups().empty());
  if (has_drafter_) add_drafter_ops();

  count_templates();
  pack_templates();
}

void WorkModel::check_layout() const {
  if (layout_.tp < 1 || layout_.ep < 1 || layout_.tp % layout_.ep != 0)
    throw std::invalid_argument("work model: need tp >= 1, ep >= 1 and ep dividing tp");
  if (static_cast<int>(weights_.layers().size()) != card_.num_layers)
    throw std::invalid_argument("work model: weight inventory does not match the card's layers");
  if (layout_.ep > 1 && !card_.moe) throw std::invalid_argument("work model: expert parallelism needs an MoE model");
  if (!layout_.dp_attention && card_.attention.num_heads % layout_.tp != 0)
    throw std::invalid_argument("work model: " + std::to_string(card_.attention.num_heads) +
                                " attention heads do not split evenly over tp " + std::to_string(layout_.tp));
}

// Attention geometries, one per distinct (window, ratio, top-k), and the context from which every
// geometry's caps saturate.
void WorkModel::build_geometries() {
  const AttentionSpec& a = card_.attention;
  for (int l = 0; l < card_.num_layers; ++l) {
    AttentionGeometry g;
    g.window = a.sliding_window;
    if (a.kind == AttentionKind::csa) {
      g.ratio = a.compress_ratios.empty() ? 0 : a.compress_ratios[static_cast<std::size_t>(l)];
      g.topk = g.ratio > 0 ? a.indexer_topk : 0;
      g.full_raw = g.ratio == 0 && g.window == 0;
    }
    auto it = std::find(geometries_.begin(), geometries_.end(), g);
    if (it == geometries_.end()) {
      if (static_cast<int>(geometries_.size()) == kMaxGeometries)
        throw std::invalid_argument("work model: more distinct attention geometries than supported");
      geometries_.push_back(g);
      it = geometries_.end() - 1;
    }
    layer_geometry_.push_back(static_cast<int>(it - geometries_.begin()));
  }
  for (const auto& g : geometries_) {
    saturation_context_ = std::max(saturation_context_, static_cast<double>(g.window));
    if (g.ratio > 0 && g.topk > 0)
      saturation_context_ = std::max(saturation_context_, static_cast<double>(g.topk) * g.ratio);
  }
}

void WorkModel::add_drafter_ops() {
  for (const auto& g : weights_.drafter_groups()) {
    // MTP's merge of the next embedding with the hidden state, or a draft model known by size.
    OpTemplate t;
    t.name = g.kind == WeightKind::drafter_merge ? "draft.merge" : "draft.weights";
    t.set = 2;
    t.precision = compute_precision(g.precision);
    const double frac = shard_fraction(g, layout_, weights_.drafter_replicated());
    t.flops = {{kTokensRank, 2.0 * static_cast<double>(g.elements) * frac}};
    t.bytes = {{kOne, g.bytes().value() * frac}, {kTokensRank, 2.0 * 2.0 * card_.hidden_size * kActBytes}};
    t.flops_key = {kTokensRank, 1.0};
    if (g.kind != WeightKind::norms) drafter_ops_.push_back(intern(t));
  }
  for (std::size_t i = 0; i < weights_.drafter_layers().size(); ++i)
    add_layer_ops(weights_.drafter_layers()[i], card_.num_layers - 1, 2, true, drafter_ops_);
  add_post_ops(2, weights_.model_groups(), true, drafter_ops_);
}

// How often each template runs per step, whether it is the drafter's, and how often before each
// Engram layer (the compute that can hide that layer's fetch).
void WorkModel::count_templates() {
  count_.assign(templates_.size(), 0.0);
  drafter_.assign(templates_.size(), 0);
  for (auto t : pre_ops_) count_[t] += 1.0;
  for (const auto& lp : layer_ops_)
    for (auto t : lp.ops) count_[t] += 1.0;
  for (auto t : post_ops_) count_[t] += 1.0;
  for (auto t : drafter_ops_) {
    count_[t] += 1.0;
    drafter_[t] = 1;
  }
  if (!card_.engram) return;
  for (int l : card_.engram->layers) {
    std::vector<double> before(templates_.size(), 0.0);
    for (auto t : pre_ops_) before[t] += 1.0;
    for (int k = 0; k < l && k < card_.num_layers; ++k)
      for (auto t : layer_ops_[static_cast<std::size_t>(k)].ops) before[t] += 1.0;
    std::vector<std::pair<std::size_t, double>> sparse;
    for (std::size_t t = 0; t < before.size(); ++t)
      if (before[t] > 0.0) sparse.emplace_back(t, before[t]);
    before_.push_back(std::move(before));
    before_sparse_.push_back(std::move(sparse));
  }
}

// Each template's linear forms packed for the fast path, and each set-1 template's set-0 twin.
void WorkModel::pack_templates() {
  for (const OpTemplate& t : templates_) {
    PackedForms p;
    p.base = static_cast<std::uint16_t>(t.set * kSlotsPerSet);
    if (t.flops.size() + t.bytes.size() + t.collective_bytes.size() + t.scale_up_bytes.size() > p.terms.size())
      throw std::logic_error("work model: op template with more terms than the packed form holds");
    std::size_t i = 0;
    for (const Term& x : t.flops) p.terms[i++] = x;
    for (const Term& x : t.bytes) p.terms[i++] = x;
    for (const Term& x : t.collective_bytes) p.terms[i++] = x;
    for (const Term& x : t.scale_up_bytes) p.terms[i++] = x;
    p.n_up = static_cast<std::uint8_t>(t.scale_up_bytes.size());
    p.n_flops = static_cast<std::uint8_t>(t.flops.size());
    p.n_bytes = static_cast<std::uint8_t>(t.bytes.size());
    p.n_coll = static_cast<std::uint8_t>(t.collective_bytes.size());
    packed_.push_back(p);
  }
  twin_.assign(templates_.size(), static_cast<std::size_t>(-1));
  for (std::size_t t = 0; t < templates_.size(); ++t) {
    if (templates_[t].set != 1) continue;
    OpTemplate probe = templates_[t];
    probe.set = 0;
    for (std::size_t u = 0; u < templates_.size(); ++u)
      if (templates_[u] == probe) twin_[t] = u;
  }
}

int WorkModel::layer_set(int layer) const { return card_.prefill_layers == 0 || layer < card_.prefill_layers ? 0 : 1; }

int WorkModel::geometry_of(int layer) const {
  return layer_geometry_.at(static_cast<std::size_t>(std::clamp(layer, 0, card_.num_layers - 1)));
}

std::size_t WorkModel::intern(OpTemplate t) {
  for (std::size_t i = 0; i < templates_.size(); ++i)
    if (templates_[i] == t) return i;
  templates_.push_back(std::move(t));
  return templates_.size() - 1;
}

void WorkModel::add_pre_ops() {
  const double h = card_.hidden_size;
  const bool tp_attn = layout_.tp > 1 && !layout_.dp_attention;
  const double emb_bpe = bytes_per_element(card_.precisions.embedding);
  // Vocabulary-parallel embedding: each rank reads the rows of its vocabulary shard, writes the full
  // activations, and the shards are summed by an all-reduce.
  OpTemplate e;
  e.name = "embed";
  e.op_class = OpClass::embedding;
  e.bytes = {{kTokensRank, h * emb_bpe / (tp_attn ? layout_.tp : 1) + h * kActBytes}};
  e.flops_key = {kTokensRank, 1.0};
  pre_ops_.push_back(intern(e));
  if (tp_attn) {
    OpTemplate r;
    r.name = "embed.all_reduce";
    r.collective = CollectiveKind::all_reduce;
    r.collective_ranks = layout_.tp;
    r.collective_bytes = {{kTokens, h * kActBytes}};
    pre_ops_.push_back(intern(r));
  }
  if (card_.hc_mult > 1) {
    OpTemplate m;
    m.name = "mhc.expand";
    m.op_class = OpClass::elementwise;
    m.bytes = {{kTokensRank, h * kActBytes * (1.0 + card_.hc_mult)}};
    m.flops_key = {kTokensRank, 1.0};
    pre_ops_.push_back(intern(m));
  }
}

// The op templates of one layer, block by block: the Engram module (on its layers), attention,
// then the FFN (dense, or MoE with its expert all-to-all). Ops are interned in execution order.
struct WorkModel::LayerBuilder {
  LayerBuilder(WorkModel& model, const LayerWeights& weights, int layer_index, int token_set, bool is_drafter,
               std::vector<std::size_t>& ops)
      : m(model),
        c(model.card_),
        lw(weights),
        layer(layer_index),
        set(token_set),
        drafter(is_drafter),
        out(ops),
        h(c.hidden_size),
        tp(model.layout_.tp),
        dp(model.layout_.dp_attention),
        replicate_all(is_drafter && model.weights_.drafter_replicated()),
        // A per-rank drafter (DSpark, draft model) runs whole on each rank and talks to no other rank.
        tp_attn(model.layout_.tp > 1 && !dp && !replicate_all),
        hc(c.hc_mult),
        g(model.geometry_of(layer_index)) {}

  // The layer's attention shapes as one rank sees them.
  struct AttentionShape {
    double heads_rank = 0.0;
    double pair_share = 1.0;   // per-rank share of attention pairs: heads split under TP; sequences under DP
    double entry_bytes = 0.0;  // one KV entry as one rank stores it
    double pair_flops_decode = 0.0;
    double pair_flops_prefill = 0.0;
    double rows_per_kv_head = 0.0;
    double kv_share = 1.0;
  };

  WorkModel& m;
  const ModelCard& c;
  const LayerWeights& lw;
  int layer;
  int set;
  bool drafter;
  std::vector<std::size_t>& out;
  double h;
  double tp;
  bool dp;
  bool replicate_all;
  bool tp_attn;
  double hc;
  int g;

  const char* nm(const char* backbone, const char* draft) const { return drafter ? draft : backbone; }
  double frac_of(const WeightGroup& wg) const { return shard_fraction(wg, m.layout_, replicate_all); }
  const WeightGroup* find_group(WeightKind k) const {
    for (const auto& wg : lw.groups)
      if (wg.kind == k) return &wg;
    return nullptr;
  }
  void push(OpTemplate t) { out.push_back(m.intern(std::move(t))); }

  void gemm(const WeightGroup& wg, const char* name, int kernels) {
    const double frac = frac_of(wg);
    const Dims d = activation_dims(wg, c);
    const bool row_parallel = wg.kind == WeightKind::attn_o || wg.kind == WeightKind::engram_fusion;
    const bool split = wg.sharding == ShardingClass::tp_sharded && frac < 1.0;
    const double act = d.in * (split && row_parallel ? frac : 1.0) + d.out * (split && !row_parallel ? frac : 1.0);
    OpTemplate t;
    t.name = name;
    t.op_class = OpClass::gemm;
    t.precision = compute_precision(wg.precision);
    t.block_fp8_k_steps = block_fp8_k_steps(wg, d, c, split && row_parallel ? frac : 1.0, frac);
    t.gemm_k = gemm_depth(wg, d, split && row_parallel, frac);
    t.kernels = kernels;
    t.set = set;
    t.flops = {{kTokensRank, 2.0 * static_cast<double>(wg.elements) * frac}};
    t.bytes = {{kOne, wg.bytes().value() * frac}, {kTokensRank, act * kActBytes}};
    t.flops_key = {kTokensRank, 1.0};
    push(std::move(t));
  }
  // The engine's own kernel that quantizes `in_per_token_rank` BF16 input elements per token for a GEMM
  // on `wg` unless `fused` (ActivationQuantFusion): reads them, writes them at the weights' width and
  // scale overhead.
  void act_quant(const WeightGroup& wg, bool fused, const char* name, double in_per_token_rank) {
    const bool per_tensor_fp8 = wg.precision == Precision::fp8 && !(wg.scale_bytes_per_element > 0.0);
    if (fused || (!per_tensor_fp8 && wg.precision != Precision::fp4)) return;
    const double out_bytes = bytes_per_element(wg.precision) + wg.scale_bytes_per_element;
    elementwise(name, in_per_token_rank * (kActBytes + out_bytes), 1);
  }
  void elementwise(const char* name, double bytes_per_token_rank, int kernels) {
    OpTemplate t;
    t.name = name;
    t.op_class = OpClass::elementwise;
    t.kernels = kernels;
    t.set = set;
    t.bytes = {{kTokensRank, bytes_per_token_rank}};
    t.flops_key = {kTokensRank, 1.0};
    push(std::move(t));
  }
  void all_reduce(const char* name, double bytes_per_token) {
    OpTemplate t;
    t.name = name;
    t.set = set;
    t.collective = CollectiveKind::all_reduce;
    t.collective_ranks = m.layout_.tp;
    t.collective_bytes = {{kTokens, bytes_per_token}};
    push(std::move(t));
  }
  void mhc_sublayer(const char* name) {
    const WeightGroup* mix = find_group(WeightKind::mhc);
    if (mix == nullptr || hc <= 1) return;
    // Half of the mixing weights serve each sub-layer; stream traffic before and after it.
    const double el = static_cast<double>(mix->elements) / 2.0 * frac_of(*mix);
    OpTemplate t;
    t.name = name;
    t.op_class = OpClass::gemm;
    t.precision = Precision::bf16;
    t.kernels = 3;  // coefficients, Sinkhorn normalisation, apply
    t.set = set;
    t.flops = {{kTokensRank, 2.0 * el}};
    t.bytes = {{kOne, el * bytes_per_element(mix->precision)},
               {kTokensRank, h * kActBytes * ((hc + 1.0) + (2.0 * hc + 1.0))}};
    t.flops_key = {kTokensRank, 1.0};
    push(std::move(t));
  }

  void engram_block();
  AttentionShape attention_shape() const;
  void attention_block();
  void attention_kernels(const AttentionShape& sh);
  void csa_prefill_gather(const AttentionShape& sh);
  void indexer_kernels(const AttentionShape& sh);
  void ffn_block();
  void routed_experts(const WeightGroup& ex);
  void expert_all_to_all_across_domains();
  void expert_all_to_all();
};

// The Engram module (before attention, on its own layers).
void WorkModel::LayerBuilder::engram_block() {
  const EngramSpec& e = *c.engram;
  const double rpt = e.rows_per_token_per_layer();
  if (const WeightGroup* fusion = find_group(WeightKind::engram_fusion)) gemm(*fusion, "engram.fusion", 1);
  // Gate: norms of the hidden state and keys, dot product, sigmoid, weighted value into each stream.
  const double mem_rank = rpt * e.head_dim * bytes_per_element(e.precision) / tp;
  elementwise("engram.gate", mem_rank + kActBytes * h * (2.0 * (1.0 + hc) + 2.0 * hc), 3);
  if (tp_attn) {
    all_reduce("engram.all_reduce", (1.0 + hc) * h * kActBytes);
  } else if (dp && m.layout_.tp > 1) {
    // Tables stay split by head: each rank sends the rows it gathered for other ranks' tokens.
    OpTemplate t;
    t.name = "engram.all_to_all";
    t.set = set;
    t.collective = CollectiveKind::all_to_all;
    t.collective_ranks = m.layout_.tp;
    t.collective_bytes = {{kTokens, (tp - 1.0) / tp * rpt / tp * e.row_bytes.value()}};
    push(std::move(t));
  }
}

WorkModel::LayerBuilder::AttentionShape WorkModel::LayerBuilder::attention_shape() const {
  const AttentionSpec& a = c.attention;
  const double kv_bpe = bytes_per_element(c.kv.precision);
  AttentionShape sh;
  sh.heads_rank = dp || replicate_all ? a.num_heads : std::ceil(a.num_heads / tp);
  sh.pair_share = dp ? 1.0 / tp : 1.0;
  sh.rows_per_kv_head = sh.heads_rank;
  switch (a.kind) {
    case AttentionKind::gqa: {
      const double kvh_rank = dp || replicate_all ? a.num_kv_heads : std::max(1.0, std::ceil(a.num_kv_heads / tp));
      sh.entry_bytes = 2.0 * kvh_rank * a.head_dim * kv_bpe;
      sh.pair_flops_decode = sh.pair_flops_prefill = 4.0 * sh.heads_rank * a.head_dim;
      sh.rows_per_kv_head = sh.heads_rank / kvh_rank;
      break;
    }
    case AttentionKind::mla:
      sh.entry_bytes = (a.kv_lora_rank + a.qk_rope_head_dim) * kv_bpe;
      sh.pair_flops_decode = 2.0 * sh.heads_rank * (2.0 * a.kv_lora_rank + a.qk_rope_head_dim);
      sh.pair_flops_prefill = 2.0 * sh.heads_rank * (a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim);
      break;
    case AttentionKind::csa:
      sh.entry_bytes = static_cast<double>(a.head_dim) * kv_bpe;
      sh.pair_flops_decode = sh.pair_flops_prefill = 4.0 * m.sparse_attention_.padded(sh.heads_rank) * a.head_dim;
      break;
  }
  sh.kv_share = dp ? 1.0 / tp : 1.0;
  return sh;
}

void WorkModel::LayerBuilder::attention_block() {
  mhc_sublayer(nm("mhc.attn", "draft.mhc.attn"));
  const AttentionShape sh = attention_shape();
  elementwise(nm("attn.norm_rope_kv", "draft.attn.norm_rope_kv"), kActBytes * h * 2.0 + sh.entry_bytes, 3);
  // The query and key-value projections read the same normed input: one quantization serves them.
  for (const auto& wg : lw.groups)
    if (wg.kind == WeightKind::attn_q || wg.kind == WeightKind::attn_kv) {
      act_quant(wg, m.quant_fusion_.norm, nm("attn.input_quant", "draft.attn.input_quant"), activation_dims(wg, c).in);
      break;
    }
  for (const auto& wg : lw.groups) {
    switch (wg.kind) {
      case WeightKind::attn_q:
      case WeightKind::attn_kv:
      case WeightKind::attn_indexer:
      case WeightKind::attn_compressor:
        gemm(wg, drafter ? "draft.attn.proj" : static_name(wg.name, "attn.proj"), 1);
        break;
      default:
        break;
    }
  }
  attention_kernels(sh);
  for (const auto& wg : lw.groups)
    if (wg.kind == WeightKind::attn_o) {
      const double frac = frac_of(wg);
      const bool split = wg.sharding == ShardingClass::tp_sharded && frac < 1.0;
      act_quant(wg, m.quant_fusion_.attention, nm("attn.o.input_quant", "draft.attn.o.input_quant"),
                activation_dims(wg, c).in * (split ? frac : 1.0));
      gemm(wg, drafter ? "draft.attn.o" : static_name(wg.name, "attn.o"), 1);
    }
  if (tp_attn) all_reduce(nm("attn.all_reduce", "draft.attn.all_reduce"), h * kActBytes);
}

// MLA's context up-projection of prompt chunks, decode and prefill attention, the sparse indexer.
void WorkModel::LayerBuilder::attention_kernels(const AttentionShape& sh) {
  const AttentionSpec& a = c.attention;
  // MLA prefill up-projects the cached latent of each chunk's context (kv_b over cached tokens).
  if (a.kind == AttentionKind::mla && set == 0) {
    for (const auto& wg : lw.groups) {
      if (wg.name != "attn.kv_b") continue;
      const double frac = frac_of(wg);
      OpTemplate t;
      t.name = nm("attn.kv_b_context", "draft.attn.kv_b_context");
      t.set = set;
      t.precision = compute_precision(wg.precision);
      t.flops = {{kPrefillCached, 2.0 * static_cast<double>(wg.elements) * frac * sh.pair_share}};
      t.bytes = {{kPrefillCached,
                  kActBytes * sh.pair_share * (a.kv_lora_rank + sh.heads_rank * (a.qk_nope_head_dim + a.v_head_dim))}};
      t.flops_key = {kPrefillCtxPerChunk, 1.0};
      push(std::move(t));
    }
  }
  {
    // CSA's sparse decode kernel runs each verify position as its own row with its own window and
    // top-k indices, so it gathers an entry per (query, key) pair; dense kernels read a sequence's
    // context once for all its positions.
    const bool per_query = a.kind == AttentionKind::csa;
    OpTemplate t;
    t.name = nm("attn.decode", "draft.attn.decode");
    t.op_class = OpClass::attention_decode;
    t.kernels = 2;  // split-KV partials and their combine
    t.set = set;
    t.flops = {{geom_slot(g, kDecodePairs), sh.pair_flops_decode * sh.pair_share}};
    t.bytes = {{geom_slot(g, per_query ? kDecodePairs : kDecodeKv), sh.entry_bytes * sh.kv_share}};
    t.flops_key = {kDecodePosPerSeq, sh.rows_per_kv_head};
    push(std::move(t));
  }
  if (set == 0 && a.kind == AttentionKind::csa) csa_prefill_gather(sh);
  if (set == 0) {
    OpTemplate t;
    t.name = "attn.prefill";
    t.op_class = OpClass::attention_prefill;
    t.set = set;
    t.flops = {{geom_slot(g, kPrefillPairs), sh.pair_flops_prefill * sh.pair_share}};
    t.bytes = {{geom_slot(g, kPrefillKv), sh.entry_bytes * sh.kv_share}};
    t.flops_key = {kPrefillTokPerChunk, 1.0};
    push(std::move(t));
  }
  const AttentionGeometry& geo = m.geometries_[static_cast<std::size_t>(g)];
  if (!drafter && a.kind == AttentionKind::csa && geo.ratio > 0 && geo.topk > 0 && a.indexer_heads > 0 &&
      contains(a.index_source_layers, layer))
    indexer_kernels(sh);
}

// A prompt chunk's sparse attention first dequantizes its whole compressed context and its window
// into a BF16 workspace (vLLM's dequantize_and_gather_k_cache, one call per cache), then attends
// over the workspace: each entry is read in the cache's format and written as 2 B per dimension.
void WorkModel::LayerBuilder::csa_prefill_gather(const AttentionShape& sh) {
  const AttentionGeometry& geo = m.geometries_[static_cast<std::size_t>(g)];
  OpTemplate t;
  t.name = "attn.prefill_gather";
  t.op_class = OpClass::elementwise;
  t.kernels = geo.ratio > 0 ? 2 : 1;  // compressed cache, window cache
  t.set = set;
  t.bytes = {{geom_slot(g, kPrefillGather), (sh.entry_bytes + kActBytes * c.attention.head_dim) * sh.kv_share}};
  t.flops_key = {kTokensRank, 1.0};
  push(std::move(t));
}

// The sparse indexer of an index-source layer (vLLM's sparse_attn_indexer on DeepGEMM's MQA-logits
// kernels): decode positions and prompt tokens are scored by separate kernels, then top-k. Its
// weights are whole on every rank, so under TP each rank scores every query. Keys are FP8 with one
// FP32 scale per 128 dimensions; logits are FP32, one per scored pair. The scoring kernels multiply
// each 128-key block against all the query rows of a sequence (heads x its positions) or of a
// chunk's query block: that row count, not the batch, keys their FLOP efficiency.
void WorkModel::LayerBuilder::indexer_kernels(const AttentionShape& sh) {
  const AttentionSpec& a = c.attention;
  constexpr double kLogitBytes = 4.0;
  const double key_bytes = a.indexer_head_dim + std::ceil(a.indexer_head_dim / 128.0) * 4.0;
  const double pair_flops = 2.0 * a.indexer_heads * a.indexer_head_dim * sh.pair_share;
  auto scan = [&](const char* name, GeomSlot pairs, GeomSlot keys, std::uint16_t rows_slot) {
    OpTemplate t;
    t.name = name;
    t.op_class = OpClass::indexer;
    t.precision = Precision::fp8;
    t.set = set;
    t.flops = {{geom_slot(g, pairs), pair_flops}};
    t.bytes = {{geom_slot(g, keys), key_bytes * sh.kv_share}, {geom_slot(g, pairs), kLogitBytes * sh.pair_share}};
    t.flops_key = {rows_slot, static_cast<double>(a.indexer_heads)};
    push(std::move(t));
  };
  // Radix top-k over each query's logits row: its first pass reads the whole row.
  auto top_k = [&](const char* name, GeomSlot pairs) {
    OpTemplate t;
    t.name = name;
    t.op_class = OpClass::indexer;
    t.set = set;
    t.bytes = {{geom_slot(g, pairs), kLogitBytes * sh.pair_share}};
    t.flops_key = {kTokensRank, 1.0};
    push(std::move(t));
  };
  if (set == 0) {
    // Prompt chunks first copy their context's keys out of the paged cache into a workspace.
    OpTemplate t;
    t.name = "attn.indexer_k_gather";
    t.op_class = OpClass::elementwise;
    t.set = set;
    t.bytes = {{geom_slot(g, kPrefillIndexKv), 2.0 * key_bytes * sh.kv_share}};
    t.flops_key = {kTokensRank, 1.0};
    push(std::move(t));
    scan("attn.indexer_prefill_scan", kPrefillIndexPairs, kPrefillIndexKv, kPrefillTokPerChunk);
    top_k("attn.indexer_prefill_topk", kPrefillIndexPairs);
  }
  // Decode: the key block is loaded once per sequence for all its positions.
  scan("attn.indexer_scan", kIndexPairs, kIndexKv, kDecodePosPerSeq);
  top_k("attn.indexer_topk", kIndexPairs);
}

void WorkModel::LayerBuilder::ffn_block() {
  mhc_sublayer(nm("mhc.ffn", "draft.mhc.ffn"));
  elementwise(nm("ffn.norm", "draft.ffn.norm"), kActBytes * h * 2.0, 1);
  if (!lw.moe) {
    if (const WeightGroup* d = find_group(WeightKind::dense_ffn)) {
      const double inter_rank = static_cast<double>(d->elements) / (3.0 * h) * frac_of(*d);
      // Gate-up reads the normed hidden state, down the activation's output.
      act_quant(*d, m.quant_fusion_.norm, nm("ffn.input_quant", "draft.ffn.input_quant"), h);
      act_quant(*d, m.quant_fusion_.activation, nm("ffn.down.input_quant", "draft.ffn.down.input_quant"), inter_rank);
      gemm(*d, nm("ffn.dense", "draft.ffn.dense"), 2);
      elementwise(nm("ffn.act", "draft.ffn.act"), 3.0 * inter_rank * kActBytes, 1);
    }
    if (tp_attn) all_reduce(nm("ffn.all_reduce", "draft.ffn.all_reduce"), h * kActBytes);
    return;
  }
  if (const WeightGroup* r = find_group(WeightKind::router)) gemm(*r, nm("moe.router", "draft.moe.router"), 2);
  if (const WeightGroup* ex = find_group(WeightKind::routed_experts)) routed_experts(*ex);
  if (const WeightGroup* sh = find_group(WeightKind::shared_experts))
    gemm(*sh, nm("moe.shared", "draft.moe.shared"), 3);
  const ParallelLayout& l = m.layout_;
  const bool spans_domains = l.gpus_per_domain > 0 && l.tp > l.gpus_per_domain;
  if (dp && l.ep > 1 && !replicate_all && spans_domains) {
    expert_all_to_all_across_domains();
  } else if (dp && l.ep > 1 && !replicate_all) {
    expert_all_to_all();
  }
  if (tp_attn) all_reduce(nm("ffn.all_reduce", "draft.ffn.all_reduce"), h * kActBytes);
}

void WorkModel::LayerBuilder::routed_experts(const WeightGroup& ex) {
  const ParallelLayout& l = m.layout_;
  const double experts = lw.num_experts;
  const double k = lw.top_k;
  const double ep = replicate_all ? 1.0 : l.ep;
  const double inner = replicate_all ? 1.0 : tp / l.ep;
  const double redundant =
      !replicate_all && l.expert_balance.placement == ExpertPlacement::eplb ? l.expert_balance.redundant_experts : 0.0;
  const double group_experts = std::ceil((experts + redundant) / ep);
  const double per_expert_el = static_cast<double>(ex.elements) / experts;
  const double inter = per_expert_el / (3.0 * h);
  // Under replication every rank computes every expert for its tokens (no split).
  const double flops_share = replicate_all ? 1.0 : 1.0 / tp;
  OpTemplate t;
  t.name = nm("moe.experts", "draft.moe.experts");
  t.op_class = OpClass::grouped_gemm;
  t.precision = compute_precision(ex.precision);
  t.kernels = 4;  // permute, gate-up, activation, down (+ combine inside)
  t.set = set;
  // Routed tokens come from every rank of the replica (all tokens), except for a per-rank drafter;
  // the layer waits for the busiest EP rank's rows.
  const std::uint16_t token_slot = replicate_all ? kTokensRank : kMoeHotTokens;
  t.flops = {{token_slot, 2.0 * k * per_expert_el * flops_share}};
  t.bytes = {{kMoeDistinct, group_experts * lw.bytes_per_expert().value() / inner},
             {token_slot, k / ep * kActBytes * (2.0 * h + 3.0 * inter / inner)}};
  t.flops_key = {kMoeTokensPerExpert, 1.0};
  push(std::move(t));
}

// Expert all-to-all across scale-up domains (docs/cost-model.md, "Expert all-to-all across
// domains"). N domains of G GPUs, R = ep expert ranks, k experts per token placed uniformly.
void WorkModel::LayerBuilder::expert_all_to_all_across_domains() {
  const ParallelLayout& l = m.layout_;
  const double k = lw.top_k;
  const double r = l.ep;
  const double n = static_cast<double>(l.tp) / l.gpus_per_domain;
  const double per_domain = r / n;  // expert ranks per domain (G)
  // Group-limited routing caps the domains a token reaches at m (groups laid out in order).
  double reach = n;
  if (c.moe->routing_groups > 0) {
    const double groups = c.moe->routing_groups;
    reach = std::min(n, c.moe->groups_per_token * std::max(1.0, n / groups));
  }
  // Normal kernels: one NIC copy per remote domain reached, then one scale-up hop per distinct
  // expert rank other than the receiving one. Low latency: one NIC copy per remote expert,
  // scale-up copies to same-domain experts on other GPUs.
  const double normal_nic = reach * (1.0 - 1.0 / n) * -std::expm1(k * std::log1p(-1.0 / reach));
  const double distinct_ranks = r * -std::expm1(k * std::log1p(-1.0 / r));
  const double normal_up = distinct_ranks * (per_domain - 1.0) / per_domain;
  const double ll_nic = k * (n - 1.0) / n;
  const double ll_up = k * (per_domain - 1.0) / r;
  for (int pass = 0; pass < 2; ++pass) {
    const double payload = h * (pass == 0 ? 1.0 : 2.0);  // FP8 dispatch, BF16 combine
    for (int kernels = 0; kernels < 2; ++kernels) {
      OpTemplate t;
      if (kernels == 0)
        t.name = pass == 0 ? nm("moe.dispatch", "draft.moe.dispatch") : nm("moe.combine", "draft.moe.combine");
      else
        t.name = pass == 0 ? nm("moe.dispatch.low_latency", "draft.moe.dispatch.low_latency")
                           : nm("moe.combine.low_latency", "draft.moe.combine.low_latency");
      t.set = set;
      t.collective = kernels == 0 ? CollectiveKind::expert_normal : CollectiveKind::expert_low_latency;
      t.collective_ranks = l.tp;
      const std::uint16_t slot = kernels == 0 ? kTokensRankNormal : kTokensRankLowLat;
      t.collective_bytes = {{slot, payload * (kernels == 0 ? normal_nic : ll_nic)}};
      t.scale_up_bytes = {{slot, payload * (kernels == 0 ? normal_up : ll_up)}};
      push(std::move(t));
    }
  }
}

// Expert all-to-all inside one scale-up domain.
void WorkModel::LayerBuilder::expert_all_to_all() {
  const double k = lw.top_k;
  const double ep = m.layout_.ep;
  for (int pass = 0; pass < 2; ++pass) {
    OpTemplate t;
    t.name = pass == 0 ? nm("moe.dispatch", "draft.moe.dispatch") : nm("moe.combine", "draft.moe.combine");
    t.set = set;
    t.collective = CollectiveKind::all_to_all;
    t.collective_ranks = m.layout_.tp;
    // FP8 dispatch, BF16 combine (DeepEP's formats).
    t.collective_bytes = {{kMoeCommTokensRank, k * (ep - 1.0) / ep * h * (pass == 0 ? 1.0 : 2.0)}};
    push(std::move(t));
  }
}

void WorkModel::add_layer_ops(const LayerWeights& lw, int layer, int set, bool drafter, std::vector<std::size_t>& out) {
  LayerBuilder b(*this, lw, layer, set, drafter, out);
  if (!drafter && lw.engram && card_.engram) b.engram_block();
  b.attention_block();
  b.ffn_block();
}

void WorkModel::add_post_ops(int set, const std::vector<WeightGroup>& groups, bool drafter,
                             std::vector<std::size_t>& out) {
  // The drafter shares the backbone's vocabulary-parallel head, so its logits are sharded and
  // gathered like the backbone's.
  const double h = card_.hidden_size;
  const double v = card_.vocab_size;
  const bool tp_attn = layout_.tp > 1 && !layout_.dp_attention;
  const double hc = card_.hc_mult;
  {
    OpTemplate t;
    t.name = drafter ? "draft.final_norm" : "final.norm";
    t.op_class = OpClass::elementwise;
    t.kernels = hc > 1 ? 2 : 1;
    t.set = set;
    t.bytes = {{kLogitsRank, h * kActBytes * (hc + 1.0)}};
    t.flops_key = {kLogitsRank, 1.0};
    out.push_back(intern(t));
  }
  double vocab_frac = 1.0;
  for (const auto& g : groups) {
    if (g.kind != WeightKind::lm_head) continue;
    vocab_frac = shard_fraction(g, layout_);
    OpTemplate t;
    t.name = drafter ? "draft.lm_head" : "lm_head";
    t.precision = compute_precision(g.precision);
    t.set = set;
    t.flops = {{kLogitsRank, 2.0 * static_cast<double>(g.elements) * vocab_frac}};
    t.bytes = {{kOne, g.bytes().value() * vocab_frac}, {kLogitsRank, (h + v * vocab_frac) * kActBytes}};
    t.flops_key = {kLogitsRank, 1.0};
    out.push_back(intern(t));
  }
  if (tp_attn) {
    // All-gather of the vocabulary shards of the logits: each rank sends its shard to the others.
    OpTemplate t;
    t.name = drafter ? "draft.logits_gather" : "logits.gather";
    t.set = set;
    t.collective = CollectiveKind::all_to_all;
    t.collective_ranks = layout_.tp;
    t.collective_bytes = {{kLogits, v * vocab_frac * kActBytes * (layout_.tp - 1.0)}};
    out.push_back(intern(t));
  }
  {
    // Softmax / top-p / rejection sampling over FP32 logits: read and write them once.
    OpTemplate t;
    t.name = drafter ? "draft.sampling" : "sampling";
    t.op_class = OpClass::elementwise;
    t.kernels = 3;
    t.set = set;
    t.bytes = {{kLogitsRank, v * 4.0 * 2.0}};
    t.flops_key = {kLogitsRank, 1.0};
    out.push_back(intern(t));
  }
}

void WorkModel::accumulate_decode(BatchStats& s, int set, double c, double p) const {
  for (std::size_t g = 0; g < geometries_.size(); ++g) {
    const AttentionGeometry& geo = geometries_[g];
    const int gi = static_cast<int>(g);
    double pairs = 0.0;
    double kv = 0.0;
    if (geo.window > 0) {
      pairs += sum_min(c, p, geo.window, 1.0);
      kv += std::min<double>(geo.window, c + p);
    } else if (geo.full_raw) {
      pairs += sum_min(c, p, 0.0, 1.0);
      kv += c + p;
    }
    if (geo.ratio > 0) {
      const double slope = 1.0 / geo.ratio;
      pairs += sum_min(c, p, geo.topk, slope);
      kv += min_or_all(geo.topk, (c + p) * slope);
      if (geo.topk > 0) {
        s.at(set, geom_slot(gi, kIndexPairs)) += sum_min(c, p, 0.0, slope);
        s.at(set, geom_slot(gi, kIndexKv)) += (c + p) * slope;
      }
    }
    s.at(set, geom_slot(gi, kDecodePairs)) += pairs;
    s.at(set, geom_slot(gi, kDecodeKv)) += kv;
  }
}

void WorkModel::accumulate_prefill(BatchStats& s, int set, double cached, double tokens) const {
  // The same sums as a decode sequence; chunk tokens are queries, the context read once.
  BatchStats tmp;
  accumulate_decode(tmp, set, cached, tokens);
  for (std::size_t g = 0; g < geometries_.size(); ++g) {
    const AttentionGeometry& geo = geometries_[g];
    const int gi = static_cast<int>(g);
    s.at(set, geom_slot(gi, kPrefillPairs)) += tmp.at(set, geom_slot(gi, kDecodePairs));
    s.at(set, geom_slot(gi, kPrefillKv)) += tmp.at(set, geom_slot(gi, kDecodeKv));
    s.at(set, geom_slot(gi, kPrefillIndexPairs)) += tmp.at(set, geom_slot(gi, kIndexPairs));
    s.at(set, geom_slot(gi, kPrefillIndexKv)) += tmp.at(set, geom_slot(gi, kIndexKv));
    // Sparse prefill gathers every compressed entry of the context and the chunk with the window
    // before it, whatever the top-k selects.
    double gathered = 0.0;
    if (geo.ratio > 0) gathered += (cached + tokens) / geo.ratio;
    if (geo.window > 0) gathered += std::min<double>(geo.window, cached) + tokens;
    s.at(set, geom_slot(gi, kPrefillGather)) += gathered;
  }
}

void WorkModel::flush_saturated(BatchStats& s, int set, const SaturatedSums& a) const {
  for (std::size_t g = 0; g < geometries_.size(); ++g) {
    const AttentionGeometry& geo = geometries_[g];
    const int gi = static_cast<int>(g);
    double pairs = 0.0, kv = 0.0;
    if (geo.window > 0) {
      pairs += a.p * geo.window;
      kv += a.n * geo.window;
    } else if (geo.full_raw) {
      pairs += a.pc + a.pp;
      kv += a.c + a.p;
    }
    if (geo.ratio > 0) {
      const double slope = 1.0 / geo.ratio;
      if (geo.topk > 0) {
        pairs += a.p * geo.topk;
        kv += a.n * geo.topk;
        s.at(set, geom_slot(gi, kIndexPairs)) += slope * (a.pc + a.pp);
        s.at(set, geom_slot(gi, kIndexKv)) += slope * (a.c + a.p);
      } else {
        pairs += slope * (a.pc + a.pp);
        kv += slope * (a.c + a.p);
      }
    }
    s.at(set, geom_slot(gi, kDecodePairs)) += pairs;
    s.at(set, geom_slot(gi, kDecodeKv)) += kv;
  }
}

namespace {
// Integer closed-form sums over saturated decode sequences (see exact_decode_sums).
struct IntSums {
  std::int64_t n = 0, p = 0, pc = 0, pp2 = 0, c = 0;  // pp2 = sum of p (p + 1)
  void add(std::int64_t context, std::int64_t pos) {
    n += 1;
    p += pos;
    pc += pos * context;
    pp2 += pos * (pos + 1);
    c += context;
  }
};
}  // namespace

// Decode: sequences whose context saturates every geometry's caps are summed in closed form; the
// others (short contexts) go through the exact per-geometry sums, in batch order. The closed-form
// sums (counts, positions, contexts, positions x context, p (p + 1) / 2) are whole numbers, so they
// are accumulated in 64-bit integers: as long as every total stays below 2^53 the floating-point
// sums they replace were exact too, whatever their order, and the result is the same bit for bit.
// False (totals not filled) when a total is too large (never seen in practice): the caller takes
// the floating-point loop.
bool WorkModel::exact_decode_sums(const BatchShape& batch, BatchStats& s, DecodeTotals& t) const {
  const bool spec = has_drafter_;
  const bool block_drafter = card_.spec_decode.kind != SpecDecodeKind::mtp;
  // Contexts are integers: c >= saturation_context_ exactly when c >= ceil(saturation_context_).
  const std::int64_t sat_from = static_cast<std::int64_t>(std::ceil(saturation_context_));
  IntSums isat, idraft;
  std::int64_t ipos = 0, in_draft = 0, id_sum = 0;
  // With contexts and positions below 2^21 every term is below 2^43, so 2^19 sequences cannot
  // overflow; bigger inputs (or totals of 2^53 and more, checked below) take the floating-point loop.
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  std::int64_t big = 0;
  for (const DecodeSeq& d : batch.decode) {
    if (d.context < 0 || d.positions < 1) throw std::invalid_argument("decode sequence with negative size");
    const std::int64_t c = d.context;
    const std::int64_t p = d.positions;
    big |= (c | p) >> 21;
    ipos += p;
    if (c >= sat_from)
      isat.add(c, p);
    else
      accumulate_decode(s, 0, static_cast<double>(c), static_cast<double>(p));
    if (spec && p > 1) {
      in_draft += 1;
      id_sum += p - 1;
      // The drafter queries after the verified positions: block drafters all drafted positions at
      // once, MTP one per pass.
      const std::int64_t dc = c + 1;
      const std::int64_t dq = block_drafter ? p - 1 : 1;
      if (dc >= sat_from)
        idraft.add(dc, dq);
      else
        accumulate_decode(s, 2, static_cast<double>(dc), static_cast<double>(dq));
    }
  }
  bool exact = big == 0 && batch.decode.size() < (std::size_t{1} << 19);
  for (std::int64_t v : {isat.p, isat.pc, isat.pp2, isat.c, idraft.p, idraft.pc, idraft.pp2, idraft.c, ipos, id_sum})
    if (v >= kExact) exact = false;
  if (!exact) return false;
  t.positions[0] = static_cast<double>(ipos);
  t.n_draft = static_cast<double>(in_draft);
  t.d_sum = static_cast<double>(id_sum);
  auto to_double = [](const IntSums& a, SaturatedSums& o) {
    o.n = static_cast<double>(a.n);
    o.p = static_cast<double>(a.p);
    o.pc = static_cast<double>(a.pc);
    o.pp = static_cast<double>(a.pp2 / 2);
    o.c = static_cast<double>(a.c);
  };
  to_double(isat, t.sat[0]);
  to_double(idraft, t.draft_sat[0]);
  return true;
}

// The floating-point sums, two interleaved lanes (the original formulation).
void WorkModel::float_decode_sums(const BatchShape& batch, DecodeTotals& t) const {
  const bool block_drafter = card_.spec_decode.kind != SpecDecodeKind::mtp;
  std::size_t half = 0;
  for (const DecodeSeq& d : batch.decode) {
    const double c = d.context;
    const double p = d.positions;
    t.positions[half] += p;
    if (c >= saturation_context_) t.sat[half].add(c, p);
    if (has_drafter_ && p > 1.0) {
      t.n_draft += 1.0;
      t.d_sum += p - 1.0;
      const double dc = c + 1.0;
      const double dq = block_drafter ? p - 1.0 : 1.0;
      if (dc >= saturation_context_) t.draft_sat[half].add(dc, dq);
    }
    half ^= 1;
  }
}

// Prompt chunks into set 0; returns the sum of their cached tokens.
double WorkModel::prefill_sums(const BatchShape& batch, BatchStats& s) const {
  double cached_sum = 0.0;
  for (const PrefillChunk& ch : batch.prefill) {
    if (ch.tokens < 0 || ch.cached < 0) throw std::invalid_argument("prefill chunk with negative size");
    if (ch.tokens == 0) continue;
    s.prefill_chunks += 1.0;
    s.prefill_tokens += ch.tokens;
    if (ch.cached == 0) s.prefill_first_chunk_tokens += ch.tokens;
    cached_sum += ch.cached;
    accumulate_prefill(s, 0, ch.cached, ch.tokens);
  }
  return cached_sum;
}

// A token set's counts: tokens and logits (whole replica and per rank), the MoE's distinct experts
// and tokens per active expert.
void WorkModel::fill_token_counts(BatchStats& s, int set, double tokens, double logits, double experts,
                                  double top_k) const {
  const double tp = layout_.tp;
  const bool dp = layout_.dp_attention;
  s.at(set, kOne) = 1.0;
  s.at(set, kTokens) = tokens;
  s.at(set, kTokensRank) = dp ? tokens / tp : tokens;
  s.at(set, kLogits) = logits;
  s.at(set, kLogitsRank) = dp ? logits / tp : logits;
  if (experts > 0 && tokens > 0) {
    const double share = experts_touched_share(tokens, experts, top_k, layout_.expert_balance.routing);
    s.at(set, kMoeDistinct) = share;
    s.at(set, kMoeTokensPerExpert) = tokens * top_k / experts / share;
  }
}

// Sets 0 (every layer's tokens) and 1 (layers prompts of an encoder-only prefill skip).
void WorkModel::fill_layer_sets(const BatchShape& batch, BatchStats& s, double cached_sum) const {
  const double moe_e = card_.moe ? card_.moe->num_experts : 0.0;
  const double moe_k = card_.moe ? card_.moe->top_k : 0.0;
  const bool all_layers_prefill = card_.prefill_layers == 0;
  fill_token_counts(s, 0, s.decode_positions + s.prefill_tokens, s.decode_positions + s.prefill_chunks, moe_e, moe_k);
  fill_token_counts(s, 1, s.decode_positions, s.decode_positions + (all_layers_prefill ? s.prefill_chunks : 0.0), moe_e,
                    moe_k);
  // DeepEP-style engines pick the expert kernels per batch: normal ones when prompt tokens are in
  // it, low-latency ones for decode-only batches (SGLang's deepep-mode auto).
  const bool normal_kernels = s.prefill_tokens > 0.0;
  for (int set = 0; set < 2; ++set) {
    s.at(set, normal_kernels ? kTokensRankNormal : kTokensRankLowLat) = s.at(set, kTokensRank);
    s.at(set, kDecodePosPerSeq) = s.decode_seqs > 0 ? s.decode_positions / s.decode_seqs : 0.0;
    s.at(set, kDrafterPasses) = 1.0;
  }
  s.at(0, kPrefillTokPerChunk) = s.prefill_chunks > 0 ? s.prefill_tokens / s.prefill_chunks : 0.0;
  s.at(0, kPrefillCached) = cached_sum;
  s.at(0, kPrefillCtxPerChunk) = s.prefill_chunks > 0 ? cached_sum / s.prefill_chunks : 0.0;
  // The final norm and head run after the last layer, which prompt tokens of an encoder-only
  // prefill never reach; they still produce one logit row per chunk for its first token.
  const bool dp = layout_.dp_attention;
  if (!all_layers_prefill) {
    s.at(0, kLogits) = s.decode_positions + s.prefill_chunks;
    s.at(0, kLogitsRank) = dp ? s.at(0, kLogits) / layout_.tp : s.at(0, kLogits);
  }
  if (dp && layout_.tp > 1 && s.prefill_chunks > 0.0) busiest_rank_prompts(batch, s);
}

// Set 2: the drafter's tokens. Block drafters (DSpark) draft all positions of a sequence in one
// pass; MTP one per pass.
void WorkModel::fill_drafter_set(BatchStats& s, const DecodeTotals& d) const {
  const bool block_drafter = card_.spec_decode.kind != SpecDecodeKind::mtp;
  const double passes = block_drafter ? 1.0 : d.d_sum / d.n_draft;
  const double tokens = block_drafter ? d.d_sum : d.n_draft;
  const auto& sd = card_.spec_decode;
  const double de = sd.drafter_experts > 0 ? sd.drafter_experts : (card_.moe ? card_.moe->num_experts : 0.0);
  const double dk = sd.drafter_top_k > 0 ? sd.drafter_top_k : (card_.moe ? card_.moe->top_k : 0.0);
  fill_token_counts(s, 2, tokens, tokens, de, dk);
  s.at(2, kDecodePosPerSeq) = tokens / d.n_draft;
  s.at(2, kDrafterPasses) = passes;
  flush_saturated(s, 2, d.draft_sat[0]);
}

BatchStats WorkModel::summarize(const BatchShape& batch) const {
  BatchStats s;
  DecodeTotals d;
  if (!exact_decode_sums(batch, s, d)) float_decode_sums(batch, d);
  s.decode_positions = d.positions[0] + d.positions[1];
  d.sat[0].merge(d.sat[1]);
  d.draft_sat[0].merge(d.draft_sat[1]);
  s.decode_seqs = static_cast<double>(batch.decode.size());
  flush_saturated(s, 0, d.sat[0]);
  // Decode positions run through every layer: set 1 starts as a copy of set 0's decode part.
  for (int slot = kGeometryBase; slot < kSlotsPerSet; ++slot) s.at(1, slot) = s.at(0, slot);
  const double cached_sum = prefill_sums(batch, s);
  fill_layer_sets(batch, s, cached_sum);
  if (has_drafter_ && d.n_draft > 0) fill_drafter_set(s, d);
  apply_expert_balance(s);
  return s;
}

void WorkModel::apply_expert_balance(BatchStats& s) const {
  // Mean rows per EP rank n = T k / ep; the busiest rank gets hottest_rank_rows(n). kMoeHotTokens is
  // T scaled by that ratio; the all-to-all of the busiest rank moves max(what it sends, what the
  // busiest expert rank receives).
  const double ep = layout_.ep;
  const bool dp = layout_.dp_attention;
  for (int set = 0; set < kTokenSets; ++set) {
    const double tokens = s.at(set, kTokens);
    double factor = 1.0;
    if (card_.moe && ep > 1.0 && tokens > 0.0 && expert_noise_z_ > 0.0) {
      const double k =
          set == 2 && card_.spec_decode.drafter_top_k > 0 ? card_.spec_decode.drafter_top_k : card_.moe->top_k;
      const double n = tokens * k / ep;
      factor = hottest_rank_rows(n, expert_skew_, expert_noise_z_) / n;
    }
    s.at(set, kMoeHotTokens) = tokens * factor;
    const double recv = (dp ? tokens / layout_.tp : tokens) * factor;
    const double comm = std::max(s.at(set, kTokensRank), recv);
    s.at(set, kMoeCommTokensRank) = comm;
    if (s.at(set, kTokensRankNormal) > 0.0) s.at(set, kTokensRankNormal) = comm;
    if (s.at(set, kTokensRankLowLat) > 0.0) s.at(set, kTokensRankLowLat) = comm;
  }
}

void WorkModel::busiest_rank_prompts(const BatchShape& batch, BatchStats& s) const {
  // Under data-parallel attention a prompt chunk runs whole on one rank, and the expert all-to-all
  // makes every rank wait for the slowest. Decode sequences spread evenly; chunks go longest first
  // to the least-loaded rank (the best balance an engine can reach). The attention side of set 0 is
  // then the busiest rank's: its tokens, logits and prompt attention. Templates scale the geometry
  // and cached-context slots by 1 / tp, so those hold tp x the rank's prompt part plus the decode part.
  const int ranks = layout_.tp;
  // Fixed buffers cover every realistic step (<= 256 chunks, <= 1024 ranks); larger ones allocate.
  std::array<std::size_t, 256> order_buf;
  std::array<int, 256> owner_buf;
  std::array<double, 1024> load_buf;
  std::vector<std::size_t> order_big;
  std::vector<int> owner_big;
  std::vector<double> load_big;
  std::size_t n = 0;
  for (const PrefillChunk& ch : batch.prefill) n += ch.tokens > 0 ? 1 : 0;
  std::size_t* order = order_buf.data();
  int* owner = owner_buf.data();
  if (n > order_buf.size()) {
    order_big.resize(n);
    owner_big.resize(n);
    order = order_big.data();
    owner = owner_big.data();
  }
  double* load = load_buf.data();
  if (static_cast<std::size_t>(ranks) > load_buf.size()) {
    load_big.resize(static_cast<std::size_t>(ranks));
    load = load_big.data();
  }
  std::size_t k = 0;
  for (std::size_t i = 0; i < batch.prefill.size(); ++i)
    if (batch.prefill[i].tokens > 0) order[k++] = i;
  std::stable_sort(order, order + n,
                   [&](std::size_t a, std::size_t b) { return batch.prefill[a].tokens > batch.prefill[b].tokens; });
  std::fill_n(load, ranks, s.decode_positions / ranks);
  for (std::size_t j = 0; j < n; ++j) {
    const int r = static_cast<int>(std::min_element(load, load + ranks) - load);
    load[r] += static_cast<double>(batch.prefill[order[j]].tokens);
    owner[j] = r;
  }
  const int busiest = static_cast<int>(std::max_element(load, load + ranks) - load);
  BatchStats mine;
  double tokens = 0.0, chunks = 0.0, cached = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    if (owner[j] != busiest) continue;
    const PrefillChunk& ch = batch.prefill[order[j]];
    accumulate_prefill(mine, 0, static_cast<double>(ch.cached), static_cast<double>(ch.tokens));
    tokens += static_cast<double>(ch.tokens);
    chunks += 1.0;
    cached += static_cast<double>(ch.cached);
  }
  const double tp = ranks;
  // Set 1 still holds the decode part of set 0's geometry statistics (summarize copies it first).
  for (int slot = kGeometryBase; slot < kSlotsPerSet; ++slot) s.at(0, slot) = s.at(1, slot) + tp * mine.at(0, slot);
  s.at(0, kPrefillCached) = tp * cached;
  s.at(0, kPrefillCtxPerChunk) = chunks > 0.0 ? cached / chunks : 0.0;
  s.at(0, kTokensRank) = s.decode_positions / tp + tokens;
  s.at(0, kLogitsRank) = s.decode_positions / tp + chunks;
  s.at(0, kTokensRankNormal) = s.at(0, kTokensRank);
}

OpWork WorkModel::evaluate(std::size_t t, const BatchStats& s) const {
  const OpTemplate& tpl = templates_[t];
  const PackedForms& pk = packed_[t];
  const double* x = &s.x[pk.base];
  OpWork w;
  w.name = tpl.name;
  w.op_class = tpl.op_class;
  w.precision = tpl.precision;
  w.kernels = tpl.kernels;
  w.collective = tpl.collective;
  w.collective_ranks = tpl.collective_ranks;
  const double f = pk.flops(x);
  const double b = pk.bytes(x);
  const double n = pk.collective_bytes(x);
  w.flops = Flops(f);
  w.hbm_bytes = Bytes(b);
  w.weight_bytes = Bytes(pk.fixed_bytes());
  w.collective_bytes = Bytes(n);
  w.scale_up_bytes = Bytes(pk.scale_up_bytes(x));
  w.flops_key = tpl.flops_key.coef * x[tpl.flops_key.slot];
  w.bw_key = tpl.bw_key;
  w.block_fp8_k_steps = tpl.block_fp8_k_steps;
  w.gemm_k = tpl.gemm_k;
  return w;
}

StepWork WorkModel::decompose(const BatchShape& batch) const {
  StepWork out;
  out.stats = summarize(batch);
  for (auto t : pre_ops_) out.pre.push_back(evaluate(t, out.stats));
  for (int l = 0; l < card_.num_layers; ++l) {
    LayerWork lw;
    lw.layer = l;
    for (auto t : layer_ops_[static_cast<std::size_t>(l)].ops) lw.ops.push_back(evaluate(t, out.stats));
    lw.engram = card_.engram && contains(card_.engram->layers, l);
    if (lw.engram) {
      lw.engram_positions = out.stats.at(layer_set(l), kTokens);
      lw.engram_lookups_per_rank = lw.engram_positions * engram_lookups_per_pos_;
    }
    out.layers.push_back(std::move(lw));
  }
  for (auto t : post_ops_) out.post.push_back(evaluate(t, out.stats));
  for (auto t : drafter_ops_) out.drafter.push_back(evaluate(t, out.stats));
  out.drafter_passes = has_drafter_ ? out.stats.at(2, kDrafterPasses) : 0.0;
  return out;
}

}  // namespace engramsim
