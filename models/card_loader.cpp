#include "models/card_loader.hpp"

#include <cctype>
#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/config_node.hpp"
#include "core/paths.hpp"

namespace engramsim {
namespace {

using Card = ModelCard;
using Table = FieldTable<ModelCard>;
// A bound that depends on keys read before the one it bounds (top_k <= num_experts).
using Bound = std::function<std::int64_t(const Card&)>;

constexpr std::int64_t kMaxDim = 1LL << 24;  // no width in a real model comes near 16M

// A card's optional part (moe, engram) as the schema's accessors reach it: a key read into it
// creates it; a card without it shows a default part, whose values are the docs' defaults.
template <class Part, class C>
auto& part(C& c, std::optional<Part> Card::*member) {
  auto& o = c.*member;
  if constexpr (std::is_const_v<C>) {
    static const Part none{};
    return o ? *o : none;
  } else {
    return o ? *o : o.emplace();
  }
}

// The access to a member that a field table takes: member(&Card::m)(c) is c.m, and
// of(&Card::p, &P::m)(c) is c.p.m (through part() when p is optional).
template <class M>
auto member(M Card::*m) {
  return [m](auto& c) -> auto& { return c.*m; };
}
template <class P, class M>
auto of(P Card::*p, M P::*m) {
  return [=](auto& c) -> auto& { return (c.*p).*m; };
}
template <class P, class M>
auto of(std::optional<P> Card::*p, M P::*m) {
  return [=](auto& c) -> auto& { return part(c, p).*m; };
}

// A width or count in [lo, 16M].
template <class Access>
Table& dim(Table& t, std::string key, Access access, std::int64_t lo, std::string meaning) {
  return t.integer(std::move(key), access, lo, kMaxDim, std::move(meaning));
}

// An integer in [lo(card), hi(card)]; `range` says the bounds in words ("[1, num_heads]").
template <class Access>
Table& bounded(Table& t, const std::string& key, Access access, Bound lo, Bound hi, const std::string& range,
               std::string meaning) {
  using M = std::remove_cvref_t<decltype(access(std::declval<Card&>()))>;
  const Card dflt{};
  return t.custom(
      {key, "integer in " + range, std::to_string(access(dflt)), std::move(meaning)},
      [key, access, lo, hi](const ConfigNode& m, Card& c) { access(c) = static_cast<M>(m.integer(key, lo(c), hi(c))); },
      [access](const Card& c) { return nlohmann::json(access(c)); });
}

std::int64_t zero(const Card&) { return 0; }
std::int64_t one(const Card&) { return 1; }

// Layer indices: each in [0, num_layers), strictly increasing (a repeat is a typo, not a choice).
std::vector<int> layer_list(const ConfigNode& list, int num_layers) {
  std::vector<int> out;
  for (const ConfigNode& e : list.elements()) {
    const std::int64_t v = e.as_integer();
    if (v < 0 || v >= num_layers)
      e.fail("layer index " + std::to_string(v) + " out of range [0, " + std::to_string(num_layers - 1) +
             "] (layers are 0-based)");
    if (!out.empty() && v <= out.back()) e.fail("layer indices must be strictly increasing");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

template <class Access>
Table& layers(Table& t, const std::string& key, Access access, std::string meaning) {
  return t.custom(
      {key, "list of layer indices in [0, num_layers), increasing", "empty", std::move(meaning)},
      [key, access](const ConfigNode& m, Card& c) { access(c) = layer_list(m.child(key), c.num_layers); },
      [access](const Card& c) { return nlohmann::json(access(c)); });
}

// Block-scale overhead as bytes per element: {block_elements: N, bytes_per_scale: "1B"}.
double scale_overhead(const ConfigNode& n) {
  const std::int64_t block = n.integer("block_elements", 1, 1LL << 30);
  const Bytes per = n.bytes("bytes_per_scale");
  if (per.value() <= 0.0 || per.value() > 16.0) n.fail_key("bytes_per_scale", "expected 1B..16B per scale");
  n.finish();
  return per.value() / static_cast<double>(block);
}

template <class Access>
Table& scales(Table& t, const std::string& key, Access access, const std::string& group) {
  return t.custom({key, "`{block_elements: N, bytes_per_scale: S}`, N in [1, 2^30], S a size in (0, 16B]", "none (0)",
                   "block scales of the " + group + " weights: S per N elements"},
                  [key, access](const ConfigNode& m, Card& c) { access(c) = scale_overhead(m.child(key)); });
}

std::vector<std::pair<std::string, Precision>> precision_names() { return kPrecisionNames.choices(); }

// --- attention ---------------------------------------------------------------------------------

// MLA's latent shapes: required, and at least 1.
void check_mla_latent(const ConfigNode& a, Card& c) {
  if (c.attention.kind != AttentionKind::mla) return;
  for (const char* k : {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
    if (a.integer(k) < 1) a.fail_key(k, "required >= 1 for MLA attention");
}

void add_head_keys(Table& t) {
  const auto a = &Card::attention;
  t.choice("kind", of(a, &AttentionSpec::kind), kAttentionKindNames.choices(),
           "`gqa`: grouped-query (MHA, MQA); `mla`: multi-head latent attention (DeepSeek-V2/V3); `csa`: "
           "DeepSeek-V4's MQA with low-rank Q/O, a sliding window and compressed KV")
      .required();
  dim(t, "num_heads", of(a, &AttentionSpec::num_heads), 1, "query heads").required();
  bounded(
      t, "num_kv_heads", of(a, &AttentionSpec::num_kv_heads), one, [](const Card& c) { return c.attention.num_heads; },
      "[1, num_heads]", "KV heads; must divide `num_heads` (but for `mla`)")
      .required()
      .check([](const Card& c) -> std::string {
        const AttentionSpec& s = c.attention;
        if (s.kind == AttentionKind::mla || s.num_heads % s.num_kv_heads == 0) return "";
        return "num_heads (" + std::to_string(s.num_heads) + ") must be a multiple of num_kv_heads";
      });
  dim(t, "q_lora_rank", of(a, &AttentionSpec::q_lora_rank), 0, "`mla`, `csa`: low-rank query width (0: full rank)");
  dim(t, "kv_lora_rank", of(a, &AttentionSpec::kv_lora_rank), 0,
      "`mla` (required >= 1 there, 0 elsewhere): latent KV width cached per token and layer");
  dim(t, "qk_rope_head_dim", of(a, &AttentionSpec::qk_rope_head_dim), 0,
      "`mla` (required >= 1 there), `csa`: decoupled RoPE dims per head, at most `head_dim`");
  dim(t, "qk_nope_head_dim", of(a, &AttentionSpec::qk_nope_head_dim), 0,
      "`mla` (required >= 1 there): non-RoPE query/key dims per head");
  dim(t, "v_head_dim", of(a, &AttentionSpec::v_head_dim), 0, "`mla` (required >= 1 there): value dims per head");
  dim(t, "o_lora_rank", of(a, &AttentionSpec::o_lora_rank), 0,
      "`csa` (required >= 1 there, 0 elsewhere): low-rank output projection");
  dim(t, "o_groups", of(a, &AttentionSpec::o_groups), 0,
      "`csa` (required >= 1 there, 0 elsewhere): grouped output projection; divides `num_heads` and `num_heads "
      "x head_dim`");
  dim(t, "sliding_window", of(a, &AttentionSpec::sliding_window), 0, "tokens of the window on every layer (0: none)");
  t.rule(check_mla_latent);
  dim(t, "head_dim", of(a, &AttentionSpec::head_dim), 1,
      "per-head dims of Q and K; for `mla` it must equal `qk_nope_head_dim + qk_rope_head_dim`")
      .default_words("required (`mla`: `qk_nope_head_dim + qk_rope_head_dim`)");
}

// head_dim: MLA's is qk_nope + qk_rope (derived when omitted), the others' is required; only MLA has
// a latent KV.
void check_head_dim(const ConfigNode& a, Card& c) {
  AttentionSpec& s = c.attention;
  if (s.kind == AttentionKind::mla) {
    const int qk = s.qk_nope_head_dim + s.qk_rope_head_dim;
    if (!a.has("head_dim")) s.head_dim = qk;
    if (s.head_dim != qk)
      a.fail_key("head_dim",
                 "for MLA head_dim must equal qk_nope_head_dim + qk_rope_head_dim (" + std::to_string(qk) + ")");
  } else {
    a.child("head_dim");  // required: throws when absent
    if (s.kv_lora_rank != 0) a.fail_key("kv_lora_rank", "only MLA attention has a KV latent");
  }
  if (s.qk_rope_head_dim > s.head_dim) a.fail_key("qk_rope_head_dim", "exceeds head_dim");
}

// CSA's low-rank, grouped output; only CSA has one.
void check_csa_output(const ConfigNode& a, Card& c) {
  const AttentionSpec& s = c.attention;
  if (s.kind == AttentionKind::csa) {
    if (s.o_lora_rank < 1) a.fail_key("o_lora_rank", "required >= 1 for CSA attention");
    if (s.o_groups < 1) a.fail_key("o_groups", "required >= 1 for CSA attention");
    if ((static_cast<std::int64_t>(s.num_heads) * s.head_dim) % s.o_groups != 0)
      a.fail_key("o_groups", "num_heads * head_dim must be divisible by o_groups");
    if (s.num_heads % s.o_groups != 0) a.fail_key("o_groups", "num_heads must be divisible by o_groups");
  } else {
    if (s.o_lora_rank != 0) a.fail_key("o_lora_rank", "only CSA attention has a low-rank output");
    if (s.o_groups != 0) a.fail_key("o_groups", "only CSA attention has grouped outputs");
  }
}

Table indexer_keys() {
  const auto a = &Card::attention;
  Table t("indexer");
  dim(t, "heads", of(a, &AttentionSpec::indexer_heads), 1, "heads of the sparse indexer").required();
  dim(t, "head_dim", of(a, &AttentionSpec::indexer_head_dim), 1, "dims per indexer head").required();
  dim(t, "topk", of(a, &AttentionSpec::indexer_topk), 1, "compressed entries it selects per query").required();
  return t;
}

void add_compressed_kv_keys(Table& t) {
  const auto a = &Card::attention;
  layers(t, "kv_source_layers", of(a, &AttentionSpec::kv_source_layers),
         "`csa`: layers that build compressed KV (the others reuse the latest source layer's)");
  layers(t, "index_source_layers", of(a, &AttentionSpec::index_source_layers),
         "`csa`: layers that run the indexer (with `indexer`)");
  t.custom(
      {"compress_ratios", "list of integers in [0, 65536], one per layer", "empty",
       "`csa`: tokens per compressed KV entry on each layer (0: window only)"},
      [](const ConfigNode& m, Card& c) {
        const auto ratios = m.integers("compress_ratios", 0, 1 << 16);
        if (static_cast<int>(ratios.size()) != c.num_layers)
          m.fail_key("compress_ratios", "expected one ratio per layer (" + std::to_string(c.num_layers) + "), got " +
                                            std::to_string(ratios.size()));
        for (auto r : ratios) c.attention.compress_ratios.push_back(static_cast<int>(r));
      },
      [](const Card& c) { return nlohmann::json(c.attention.compress_ratios); });
  t.rule([](const ConfigNode& m, Card& c) {
    const AttentionSpec& s = c.attention;
    if (s.kind != AttentionKind::csa &&
        (!s.kv_source_layers.empty() || !s.index_source_layers.empty() || !s.compress_ratios.empty()))
      m.fail("kv_source_layers, index_source_layers and compress_ratios belong to CSA attention only");
  });
  t.section("indexer", indexer_keys(), "`csa`: the sparse indexer that selects compressed entries");
  t.rule([](const ConfigNode& m, Card& c) {
    const AttentionSpec& s = c.attention;
    if (s.indexer_heads > 0 && s.index_source_layers.empty())
      m.fail_key("indexer", "an indexer needs index_source_layers (the layers that run it)");
    if (s.indexer_heads == 0 && !s.index_source_layers.empty())
      m.fail_key("index_source_layers", "index_source_layers given without an indexer");
  });
}

Table attention_keys() {
  Table t("attention");
  add_head_keys(t);
  t.rule(check_head_dim);
  t.rule(check_csa_output);
  add_compressed_kv_keys(t);
  return t;
}

// --- MoE and Engram ----------------------------------------------------------------------------

// A rule: `key` is required when `with` is given.
Table::Rule required_with(std::string key, std::string with) {
  return [key, with](const ConfigNode& m, Card&) {
    if (m.has(with)) m.child(key);  // throws when absent
  };
}

Table moe_keys() {
  const auto m = &Card::moe;
  const Bound experts = [](const Card& c) { return part(c, &Card::moe).num_experts; };
  Table t("moe");
  dim(t, "num_experts", of(m, &MoeSpec::num_experts), 1, "routed experts").required();
  bounded(t, "top_k", of(m, &MoeSpec::top_k), one, experts, "[1, num_experts]", "routed experts per token").required();
  dim(t, "num_shared_experts", of(m, &MoeSpec::num_shared_experts), 0, "always-active experts");
  dim(t, "expert_intermediate", of(m, &MoeSpec::expert_intermediate), 1, "FFN width of one expert").required();
  bounded(
      t, "first_moe_layer", of(m, &MoeSpec::first_moe_layer), zero,
      [](const Card& c) { return std::int64_t{c.num_layers} - 1; }, "[0, num_layers)",
      "layers before it run the dense FFN (`dense_intermediate`)");
  t.rule(required_with("routing_groups", "groups_per_token"));
  bounded(t, "routing_groups", of(m, &MoeSpec::routing_groups), one, experts, "[1, num_experts]",
          "group-limited routing (HF `n_group`): experts form this many equal groups; with `groups_per_token`")
      .default_words("0 (none)")
      .check([](const Card& c) -> std::string {
        const MoeSpec& s = part(c, &Card::moe);
        if (s.routing_groups == 0 || s.num_experts % s.routing_groups == 0) return "";
        return "must divide num_experts (" + std::to_string(s.num_experts) + ")";
      });
  t.rule(required_with("groups_per_token", "routing_groups"));
  bounded(
      t, "groups_per_token", of(m, &MoeSpec::groups_per_token), one,
      [](const Card& c) { return part(c, &Card::moe).routing_groups; }, "[1, routing_groups]",
      "HF `topk_group`: the groups a token picks its experts in; with `routing_groups`")
      .default_words("0 (none)");
  t.number("popularity_cv", of(m, &MoeSpec::popularity_cv), 0.0, 10.0,
           "coefficient of variation of the rows routed to each expert in a layer (models/expert_balance.hpp); 0: "
           "not stated, only sampling noise");
  return t;
}

void add_engram_table_keys(Table& t) {
  const auto e = &Card::engram;
  t.choice("precision", of(e, &EngramSpec::precision), precision_names(), "precision of a row's payload").required();
  t.at_least_zero("row_bytes", of(e, &EngramSpec::row_bytes), "bytes per row: payload plus block scales")
      .required()
      .check([](const Card& c) -> std::string {
        const EngramSpec& s = part(c, &Card::engram);
        const double payload = s.head_dim * bytes_per_element(s.precision);
        if (s.row_bytes.value() >= payload) return "";
        return "smaller than the row payload (" + std::to_string(static_cast<long long>(payload)) +
               " B = head_dim x precision)";
      });
  t.custom(
       {"table_rows", "list of integers >= 1", "required", "rows of each Engram layer's table, as `layers`"},
       [](const ConfigNode& m, Card& c) { part(c, &Card::engram).table_rows = m.integers("table_rows", 1, INT64_MAX); },
       [](const Card& c) { return nlohmann::json(part(c, &Card::engram).table_rows); })
      .required()
      .check([](const Card& c) -> std::string {
        const EngramSpec& s = part(c, &Card::engram);
        if (s.table_rows.size() == s.layers.size()) return "";
        return "expected one entry per Engram layer (" + std::to_string(s.layers.size()) + "), got " +
               std::to_string(s.table_rows.size());
      });
  t.integer("vocab_size_per_ngram", of(e, &EngramSpec::vocab_size_per_ngram), 0, INT64_MAX,
            "hashing: where the search for each table's prime starts");
  t.integer("compressed_vocab_size", of(e, &EngramSpec::compressed_vocab_size), 0, INT64_MAX,
            "hashing: the compressed tokenizer's vocabulary");
  t.integer("pad_token_id", of(e, &EngramSpec::pad_token_id), 0, INT64_MAX, "hashing: the padding token");
  t.integer("hash_seed", of(e, &EngramSpec::hash_seed), 0, INT64_MAX, "hashing: the seed");
}

Table engram_keys() {
  const auto e = &Card::engram;
  Table t("engram");
  layers(t, "layers", of(e, &EngramSpec::layers), "layers that hold an Engram module")
      .default_words("required")
      .check([](const Card& c) -> std::string {
        return part(c, &Card::engram).layers.empty() ? "an Engram block needs at least one layer" : "";
      });
  dim(t, "min_order", of(e, &EngramSpec::min_order), 1, "lowest N-gram order");
  bounded(
      t, "max_order", of(e, &EngramSpec::max_order), [](const Card& c) { return part(c, &Card::engram).min_order; },
      [](const Card&) { return std::int64_t{64}; }, "[min_order, 64]", "highest N-gram order")
      .required();
  dim(t, "heads_per_order", of(e, &EngramSpec::heads_per_order), 1, "hash heads per N-gram order").required();
  dim(t, "head_dim", of(e, &EngramSpec::head_dim), 1, "elements of a row's payload").required();
  add_engram_table_keys(t);
  return t;
}

// --- KV cache, speculative decoding, precisions ------------------------------------------------

FieldTable<KvPageRecord> page_record_keys(const std::string& name) {
  FieldTable<KvPageRecord> t(name);
  t.at_least_zero("state_bytes", &KvPageRecord::state, "one compressed state with its scales").required();
  t.at_least_zero("indexer_key_bytes", &KvPageRecord::indexer_key, "one indexer key with its scale (0: no indexer)")
      .required();
  t.at_least_zero("page_alignment", &KvPageRecord::alignment, "pages padded to a multiple of this").required();
  return t;
}

FieldTable<KvPagedLayout> paged_layout_keys() {
  FieldTable<KvPagedLayout> t("paged_layout");
  t.integer("block_states", &KvPagedLayout::block_states, 1, 1 << 20,
            "compressed states per page (the engine's block size)")
      .required();
  t.section("standard", &KvPagedLayout::standard, page_record_keys("standard"),
            "records on every GPU but sm_family 100")
      .required();
  t.section("sm100", &KvPagedLayout::sm100, page_record_keys("sm100"), "records on sm_family 100 GPUs (Blackwell)")
      .required();
  return t;
}

Table kv_keys() {
  const auto k = &Card::kv;
  Table t("kv_cache");
  t.choice("precision", of(k, &KvCacheSpec::precision), precision_names(), "precision of the cached K and V")
      .required();
  t.custom(
       {"bytes_per_token", "size > 0", "derived from the attention shapes",
        "KV per token of the whole model, before TP sharding; replaces the size the attention shapes give"},
       [](const ConfigNode& m, Card& c) {
         c.kv.bytes_per_token = m.bytes("bytes_per_token");
         if (c.kv.bytes_per_token->value() <= 0.0) m.fail_key("bytes_per_token", "must be > 0");
       },
       [](const Card& c) { return nlohmann::json(c.kv.bytes_per_token.value_or(Bytes(0.0)).value()); })
      .written_if([](const Card& c) { return c.kv.bytes_per_token.has_value(); });
  t.at_least_zero("bytes_per_sequence_fixed", of(k, &KvCacheSpec::bytes_per_sequence_fixed),
                  "fixed KV per sequence of the whole model (sliding-window ring buffers)");
  t.section(
      "paged_layout", [](auto& c) -> auto& { return c.kv.paged_layout; }, paged_layout_keys(),
      "`csa`: how the engine pages the compressed KV and indexer keys (absent: bytes_per_token or the shapes)");
  t.rule([](const ConfigNode& m, Card& c) {
    if (c.kv.paged_layout && c.attention.kind != AttentionKind::csa)
      m.fail_key("paged_layout", "belongs to CSA attention only");
  });
  return t;
}

// The drafter's experts: routed experts of an MoE backbone, at least its top-k.
void check_drafter(const ConfigNode& sd, Card& c) {
  const SpecDecodeSpec& s = c.spec_decode;
  if (s.drafter_experts == 0 && s.drafter_top_k == 0) return;
  if (!c.moe) sd.fail("drafter_experts / drafter_top_k need an MoE backbone");
  const int experts = s.drafter_experts > 0 ? s.drafter_experts : c.moe->num_experts;
  if (s.drafter_top_k > experts)
    sd.fail_key("drafter_top_k", "exceeds the drafter's experts (" + std::to_string(experts) + ")");
}

// A rule: `key` is required unless the drafter kind is `none`.
Table::Rule required_unless_none(std::string key) {
  return [key](const ConfigNode& m, Card& c) {
    if (c.spec_decode.kind != SpecDecodeKind::none) m.child(key);  // throws when absent
  };
}

Table spec_keys() {
  const auto s = &Card::spec_decode;
  const std::string unless_none = "required unless `kind` is `none`";
  Table t("spec_decode");
  t.choice("kind", of(s, &SpecDecodeSpec::kind), kSpecDecodeKindNames.choices(),
           "the drafter; `none` takes no other key")
      .required();
  t.rule([](const ConfigNode& m, Card& c) {
    if (c.spec_decode.kind == SpecDecodeKind::none) m.finish();  // no other key
  });
  t.rule(required_unless_none("draft_tokens"));
  t.integer("draft_tokens", of(s, &SpecDecodeSpec::draft_tokens), 1, 64,
            "positions drafted per step (a verify step touches 1 + draft_tokens)")
      .default_words(unless_none);
  t.rule(required_unless_none("acceptance_length"));
  t.custom(
      {"acceptance_length", "number in [1, 1 + draft_tokens]", unless_none, "mean tokens emitted per verify step"},
      [](const ConfigNode& m, Card& c) {
        c.spec_decode.acceptance_length = m.number("acceptance_length", 1.0, 1.0 + c.spec_decode.draft_tokens);
      },
      [](const Card& c) { return nlohmann::json(c.spec_decode.acceptance_length); });
  t.integer("drafter_params", of(s, &SpecDecodeSpec::drafter_params), 0, INT64_MAX,
            "parameters of the drafter (replicated per replica)");
  dim(t, "drafter_layers", of(s, &SpecDecodeSpec::drafter_layers), 0, "drafter depth in backbone layer-equivalents");
  dim(t, "drafter_experts", of(s, &SpecDecodeSpec::drafter_experts), 0,
      "routed experts per drafter layer (0: the backbone's; needs `moe`)");
  dim(t, "drafter_top_k", of(s, &SpecDecodeSpec::drafter_top_k), 0,
      "routed experts per token in the drafter (0: the backbone's), at most its experts");
  t.rule(check_drafter);
  return t;
}

Table precision_keys() {
  const auto p = &Card::precisions;
  Table t("precisions");
  t.choice("attention", of(p, &WeightPrecisions::attention), precision_names(), "attention weights").required();
  t.choice("dense_ffn", of(p, &WeightPrecisions::dense_ffn), precision_names(),
           "dense FFN weights, shared experts' too")
      .required();
  t.rule([](const ConfigNode&, Card& c) { c.precisions.experts = c.precisions.dense_ffn; });  // the default
  t.choice("experts", of(p, &WeightPrecisions::experts), precision_names(), "routed experts' weights")
      .default_words("`dense_ffn`'s");
  t.choice("embedding", of(p, &WeightPrecisions::embedding), precision_names(), "embedding table").required();
  t.choice("lm_head", of(p, &WeightPrecisions::lm_head), precision_names(), "output head").required();
  t.rule([](const ConfigNode& n, Card& c) {
    if (c.tie_word_embeddings && c.precisions.embedding != c.precisions.lm_head)
      n.fail_key("lm_head", "differs from `embedding`, but tie_word_embeddings stores them as one matrix");
  });
  scales(t, "attention_scales", of(p, &WeightPrecisions::attention_scale_bytes_per_element), "attention");
  scales(t, "dense_ffn_scales", of(p, &WeightPrecisions::dense_ffn_scale_bytes_per_element), "dense FFN");
  scales(t, "experts_scales", of(p, &WeightPrecisions::experts_scale_bytes_per_element), "routed experts'");
  return t;
}

// --- the card ----------------------------------------------------------------------------------

void add_identity_keys(Table& t) {
  t.text("name", member(&Card::name), "catalog key, equal to the file name: lower-case letters, digits, `-`, `.`, `_`")
      .required()
      .check([](const Card& c) -> std::string {
        for (char ch : c.name)
          if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) ||
                ch == '-' || ch == '.' || ch == '_'))
            return "use lower-case letters, digits, '-', '.' and '_' only";
        return "";
      });
  t.any_text("description", member(&Card::description), "one line for `engramsim list models`").required();
  t.any_text("family", member(&Card::family), "`deepseek`, `llama`, `qwen`, `engram-paper`, ...").required();
  t.any_text("hf_repo", member(&Card::hf_repo),
             "the public checkpoint serving engines load, as `owner/name` on Hugging Face "
             "(`deepseek-ai/DeepSeek-V4.1-Flash`); serve commands name it. Empty: no public checkpoint")
      .check([](const Card& c) -> std::string {
        if (c.hf_repo.empty()) return "";
        const auto slash = c.hf_repo.find('/');
        const bool ok = slash != std::string::npos && slash > 0 && slash + 1 < c.hf_repo.size() &&
                        c.hf_repo.find('/', slash + 1) == std::string::npos &&
                        c.hf_repo.find_first_of(" \t\n") == std::string::npos;
        return ok ? "" : "expected owner/name (one '/', no spaces)";
      });
}

void add_shape_keys(Table& t) {
  dim(t, "num_layers", member(&Card::num_layers), 1, "backbone layers").required();
  dim(t, "hidden_size", member(&Card::hidden_size), 1, "model width").required();
  dim(t, "vocab_size", member(&Card::vocab_size), 1, "tokenizer vocabulary").required();
  t.integer("max_context", member(&Card::max_context), 1, 1LL << 40, "longest context in tokens").required();
  dim(t, "dense_intermediate", member(&Card::dense_intermediate), 0,
      "dense FFN width: required >= 1 when a layer runs a dense FFN (no `moe`, or `moe.first_moe_layer` > 0), "
      "0 otherwise");
  dim(t, "hc_mult", member(&Card::hc_mult), 1, "mHC residual streams (1: a plain residual)");
  t.boolean("tie_word_embeddings", member(&Card::tie_word_embeddings),
            "one matrix is both the embedding table and the output head (stored once; "
            "`precisions.embedding` and `precisions.lm_head` must then agree)");
  bounded(
      t, "prefill_layers", member(&Card::prefill_layers), zero, [](const Card& c) { return c.num_layers; },
      "[0, num_layers]", "layers that run for prompt tokens (0: all)");
  t.integer("published_params", member(&Card::published_params), 0, INT64_MAX,
            "published parameter count of the backbone (without Engram), for the inventory's self-check");
}

// A dense FFN width exactly where some layer runs a dense FFN.
void check_dense_width(const ConfigNode& root, Card& c) {
  const bool needs_dense = !c.moe || c.moe->first_moe_layer > 0;
  if (needs_dense && c.dense_intermediate < 1)
    root.fail_key("dense_intermediate", "required >= 1: some layers run a dense FFN");
  if (!needs_dense && c.dense_intermediate != 0)
    root.fail_key("dense_intermediate", "every layer is MoE; a dense FFN width would be unused");
}

Table fixed_buffer_keys() {
  Table t("fixed_buffers");
  t.at_least_zero("bytes_per_batched_token", member(&Card::fixed_buffer_per_batched_token),
                  "activation buffers the engine allocates per batched token (V4.1's indexer logits)")
      .required();
  t.integer("token_cap", member(&Card::fixed_buffer_token_cap), 0, 1LL << 32,
            "batched tokens the buffer is capped at (0: none, sized by `max_num_batched_tokens`)");
  return t;
}

ModelCard parse_card(const ConfigNode& root) {
  ModelCard c;
  card_schema().read(root, c);
  root.finish();
  return c;
}

}  // namespace

const FieldTable<ModelCard>& card_schema() {
  static const Table table = [] {
    Table t("model card");
    add_identity_keys(t);
    add_shape_keys(t);
    t.section("attention", attention_keys(), "attention shapes").required();
    t.section("moe", moe_keys(), "mixture of experts (absent: every layer is dense)").written_if([](const Card& c) {
      return c.moe.has_value();
    });
    t.rule(check_dense_width);
    t.section("engram", engram_keys(), "Engram N-gram memory (absent: none)").written_if([](const Card& c) {
      return c.engram.has_value();
    });
    t.section("kv_cache", kv_keys(), "KV cache").required();
    t.section("spec_decode", spec_keys(), "speculative decoding (absent: none)");
    t.section("precisions", precision_keys(), "weight precisions").required();
    t.section("fixed_buffers", fixed_buffer_keys(), "fixed activation buffers (absent: none)");
    return t;
  }();
  return table;
}

ModelCard load_model_card(const std::string& name_or_path) {
  const std::string path = resolve_catalog_path("models/cards", name_or_path);
  return parse_card(ConfigNode::load_file(path));
}

ModelCard model_card_from_yaml(const std::string& text, const std::string& file_name) {
  const ConfigNode root = ConfigNode::load_string(text, file_name);
  if (!root.raw().IsDefined() || root.raw().IsNull()) throw ConfigError({file_name, 1, 1}, "", "file is empty");
  return parse_card(root);
}

const char* to_string(AttentionKind k) { return kAttentionKindNames.name(k); }

const char* to_string(SpecDecodeKind k) { return kSpecDecodeKindNames.name(k); }

}  // namespace engramsim
