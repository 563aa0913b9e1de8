// Model-card loader: every catalog card loads and is annotated; malformed cards fail with the file,
// line and field in the message; each validation rule is probed on both sides.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "core/error.hpp"
#include "models/card_loader.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

namespace fs = std::filesystem;

std::string cards_dir() { return engramsim::test::source_root() + "/models/cards"; }

// A small valid MoE card with an Engram layer; tests replace one line at a time.
const char* kBase = R"(name: tiny
description: "test card"
family: test
num_layers: 4
hidden_size: 256
vocab_size: 1000
max_context: 4096
dense_intermediate: 512
attention:
  kind: gqa
  num_heads: 8
  num_kv_heads: 2
  head_dim: 32
moe:
  num_experts: 8
  top_k: 2
  num_shared_experts: 1
  expert_intermediate: 128
  first_moe_layer: 1
engram:
  layers: [1]
  max_order: 3
  heads_per_order: 4
  head_dim: 64
  precision: fp8
  row_bytes: 66B
  table_rows: [1000]
kv_cache:
  precision: bf16
precisions:
  attention: bf16
  dense_ffn: bf16
  embedding: bf16
  lm_head: bf16
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

// Loads `text` and returns the ConfigError message ("" when it loads).
std::string error_of(const std::string& text) {
  return test::config_error_of([&] { model_card_from_yaml(text, "card.yaml"); });
}

TEST(CardLoader, BaseCardLoads) {
  const ModelCard c = model_card_from_yaml(kBase, "card.yaml");
  EXPECT_EQ(c.name, "tiny");
  EXPECT_EQ(c.num_layers, 4);
  ASSERT_TRUE(c.moe.has_value());
  EXPECT_EQ(c.moe->top_k, 2);
  ASSERT_TRUE(c.engram.has_value());
  EXPECT_EQ(c.engram->rows_per_token_per_layer(), 8);
  EXPECT_EQ(c.precisions.experts, Precision::bf16);  // defaults to the dense FFN precision
  EXPECT_EQ(c.hc_mult, 1);
}

TEST(CardLoader, EveryCatalogCardLoadsUnderItsFileName) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(cards_dir())) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    const ModelCard c = load_model_card(entry.path().string());
    EXPECT_EQ(c.name, entry.path().stem().string());
    EXPECT_FALSE(c.description.empty());
    EXPECT_EQ(load_model_card(c.name).num_layers, c.num_layers);  // resolves by catalog name too
    ++count;
  }
  EXPECT_GE(count, 10);
}

// Every line holding a number (outside the name/description) carries a source tag in its comment.
TEST(CardLoader, EveryNumberInACardHasASourceTag) {
  const std::regex digit("[0-9]");
  const std::regex tag(R"(#.*\[(S|D|E|D/E|S/D)\])");
  for (const auto& entry : fs::directory_iterator(cards_dir())) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      const std::string code = line.substr(0, line.find('#'));
      if (code.find_first_not_of(" \t") == std::string::npos) continue;  // a comment line
      if (code.rfind("name:", 0) == 0 || code.rfind("description:", 0) == 0) continue;
      if (std::regex_search(code, digit)) {
        EXPECT_TRUE(std::regex_search(line, tag)) << entry.path().filename().string() << ":" << lineno << ": " << line;
      }
    }
  }
}

TEST(CardLoader, DeepSeekV41FlashShapes) {
  const ModelCard c = load_model_card("deepseek-v4.1-flash");
  EXPECT_EQ(c.attention.kind, AttentionKind::csa);
  EXPECT_EQ(c.attention.num_heads, 64);
  EXPECT_EQ(c.attention.num_kv_heads, 1);
  EXPECT_EQ(c.attention.head_dim, 512);
  EXPECT_EQ(c.attention.compress_ratios.size(), 40u);
  EXPECT_EQ(c.attention.kv_source_layers, (std::vector<int>{2, 8, 14, 20}));
  EXPECT_EQ(c.attention.indexer_topk, 512);
  ASSERT_TRUE(c.moe && c.engram);
  EXPECT_EQ(c.moe->num_experts, 384);
  EXPECT_EQ(c.engram->layers, (std::vector<int>{1, 14}));
  EXPECT_EQ(c.engram->rows_per_token_per_layer(), 24);
  EXPECT_DOUBLE_EQ(c.engram->row_bytes.value(), 264.0);
  EXPECT_EQ(c.engram->table_rows[0] + c.engram->table_rows[1], 768022850);
  EXPECT_FALSE(c.kv.bytes_per_token.has_value());  // the paged layout prices the pool
  ASSERT_TRUE(c.kv.paged_layout.has_value());
  EXPECT_EQ(c.kv.paged_layout->block_states, 128);
  EXPECT_DOUBLE_EQ(c.kv.paged_layout->sm100.state.value(), 528.0);
  EXPECT_DOUBLE_EQ(c.kv.paged_layout->standard.indexer_key.value(), 132.0);
  EXPECT_EQ(c.spec_decode.kind, SpecDecodeKind::dspark);
  EXPECT_DOUBLE_EQ(c.spec_decode.acceptance_length, 3.51);
  EXPECT_EQ(c.precisions.experts, Precision::fp4);
  EXPECT_DOUBLE_EQ(c.precisions.experts_scale_bytes_per_element, 1.0 / 32.0);
  EXPECT_EQ(c.prefill_layers, 20);
  EXPECT_EQ(c.fixed_buffer_token_cap, 0);  // sized by max_num_batched_tokens (see the card)
  EXPECT_DOUBLE_EQ(c.fixed_buffer_per_batched_token.value(), 2.0 * 1024 * 1024);
}

TEST(CardLoader, MlaHeadDimIsDerivedAndChecked) {
  const ModelCard c = load_model_card("deepseek-v3");
  EXPECT_EQ(c.attention.kind, AttentionKind::mla);
  EXPECT_EQ(c.attention.head_dim, c.attention.qk_nope_head_dim + c.attention.qk_rope_head_dim);
}

// --- malformed files: the message names file, line and field --------------------------------------

TEST(CardLoaderErrors, MissingFile) {
  const std::string path = engramsim::test::binary_dir() + "/no-such-card.yaml";
  try {
    load_model_card(path);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
}

TEST(CardLoaderErrors, MissingCatalogName) { EXPECT_THROW(load_model_card("no-such-model"), ConfigError); }

TEST(CardLoaderErrors, BadYaml) {
  const std::string msg = error_of(replace(kBase, "  num_heads: 8\n", "  num_heads: [8\n"));
  EXPECT_NE(msg.find("card.yaml:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("invalid YAML"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, UnknownKeyNamesLineAndPath) {
  const std::string msg = error_of(replace(kBase, "  top_k: 2\n", "  top_k: 2\n  topk: 2\n"));
  EXPECT_NE(msg.find("card.yaml:17:3: moe.topk: unknown field"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, RoutingGroupsMustDivideTheExperts) {
  // Line 19 is first_moe_layer; the added keys follow it.
  std::string msg = error_of(
      replace(kBase, "  first_moe_layer: 1\n", "  first_moe_layer: 1\n  routing_groups: 3\n  groups_per_token: 1\n"));
  EXPECT_NE(msg.find("moe.routing_groups: must divide num_experts (8)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("card.yaml:20:19:"), std::string::npos) << msg;
  msg = error_of(replace(kBase, "  first_moe_layer: 1\n", "  first_moe_layer: 1\n  routing_groups: 4\n"));
  EXPECT_NE(msg.find("moe.groups_per_token"), std::string::npos) << msg;
  msg = error_of(
      replace(kBase, "  first_moe_layer: 1\n", "  first_moe_layer: 1\n  routing_groups: 4\n  groups_per_token: 5\n"));
  EXPECT_NE(msg.find("card.yaml:21:21:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("moe.groups_per_token"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, TiedEmbeddingNeedsOnePrecision) {
  const std::string tied =
      replace(kBase, "dense_intermediate: 512\n", "dense_intermediate: 512\ntie_word_embeddings: true\n");
  EXPECT_EQ(error_of(tied), "");
  EXPECT_TRUE(model_card_from_yaml(tied, "card.yaml").tie_word_embeddings);
  EXPECT_FALSE(model_card_from_yaml(kBase, "card.yaml").tie_word_embeddings);
  // The head's precision sits on line 35 once the key is added.
  const std::string msg = error_of(replace(tied, "  lm_head: bf16\n", "  lm_head: fp8\n"));
  EXPECT_NE(msg.find("card.yaml:35:12: precisions.lm_head: differs from `embedding`"), std::string::npos) << msg;
  EXPECT_EQ(error_of(replace(kBase, "  lm_head: bf16\n", "  lm_head: fp8\n")), "");  // untied: free to differ
  EXPECT_NE(error_of(replace(kBase, "dense_intermediate: 512\n", "dense_intermediate: 512\ntie_word_embeddings: 2\n")),
            "");
}

TEST(CardLoaderErrors, UnknownTopLevelKey) {
  const std::string msg = error_of(std::string(kBase) + "layers: 4\n");
  EXPECT_NE(msg.find("card.yaml:35:1: layers: unknown field"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, BareNumberWhereASizeIsExpected) {
  const std::string msg = error_of(replace(kBase, "row_bytes: 66B", "row_bytes: 66"));
  EXPECT_NE(msg.find("card.yaml:26:14: engram.row_bytes:"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, WrongUnit) {
  const std::string msg = error_of(replace(kBase, "row_bytes: 66B", "row_bytes: 66GB/s"));
  EXPECT_NE(msg.find("card.yaml:26:14: engram.row_bytes:"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, NegativeSize) {
  const std::string msg = error_of(replace(kBase, "row_bytes: 66B", "row_bytes: -66B"));
  EXPECT_NE(msg.find("card.yaml:26:14: engram.row_bytes:"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, NegativeCount) {
  const std::string msg = error_of(replace(kBase, "hidden_size: 256", "hidden_size: -256"));
  EXPECT_NE(msg.find("card.yaml:5:14: hidden_size: value -256 out of range"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, MissingRequiredField) {
  const std::string msg = error_of(replace(kBase, "hidden_size: 256\n", ""));
  EXPECT_NE(msg.find("hidden_size: missing required field"), std::string::npos) << msg;
}

TEST(CardLoaderErrors, EmptyText) { EXPECT_NE(error_of("").find("empty"), std::string::npos); }

// --- validation rules, both sides -----------------------------------------------------------------

TEST(CardValidation, TopKAtMostExperts) {
  EXPECT_EQ(error_of(replace(kBase, "top_k: 2", "top_k: 8")), "");
  EXPECT_NE(error_of(replace(kBase, "top_k: 2", "top_k: 9")).find("moe.top_k"), std::string::npos);
  EXPECT_NE(error_of(replace(kBase, "top_k: 2", "top_k: 0")).find("moe.top_k"), std::string::npos);
}

TEST(CardValidation, LayerIndicesBelowNumLayers) {
  EXPECT_EQ(error_of(replace(kBase, "layers: [1]", "layers: [3]")), "");
  const std::string msg = error_of(replace(kBase, "layers: [1]", "layers: [4]"));
  EXPECT_NE(msg.find("card.yaml:21:12: engram.layers[0]: layer index 4 out of range [0, 3]"), std::string::npos) << msg;
  EXPECT_NE(error_of(replace(kBase, "layers: [1]", "layers: [-1]")).find("engram.layers[0]"), std::string::npos);
}

TEST(CardValidation, LayerIndicesStrictlyIncreasing) {
  const std::string ok =
      replace(replace(kBase, "layers: [1]", "layers: [1, 2]"), "table_rows: [1000]", "table_rows: [1000, 1000]");
  EXPECT_EQ(error_of(ok), "");
  const std::string bad =
      replace(replace(kBase, "layers: [1]", "layers: [2, 2]"), "table_rows: [1000]", "table_rows: [1000, 1000]");
  EXPECT_NE(error_of(bad).find("engram.layers[1]: layer indices must be strictly increasing"), std::string::npos);
}

TEST(CardValidation, TableRowsOnePerEngramLayer) {
  EXPECT_NE(error_of(replace(kBase, "table_rows: [1000]", "table_rows: [1000, 5]")).find("engram.table_rows"),
            std::string::npos);
}

TEST(CardValidation, RowBytesAtLeastPayload) {
  EXPECT_EQ(error_of(replace(kBase, "row_bytes: 66B", "row_bytes: 64B")), "");
  EXPECT_NE(error_of(replace(kBase, "row_bytes: 66B", "row_bytes: 63B")).find("smaller than the row payload"),
            std::string::npos);
}

TEST(CardValidation, KvHeadsDivideHeads) {
  EXPECT_EQ(error_of(replace(kBase, "num_kv_heads: 2", "num_kv_heads: 8")), "");
  EXPECT_NE(error_of(replace(kBase, "num_kv_heads: 2", "num_kv_heads: 3")).find("attention.num_kv_heads"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kBase, "num_kv_heads: 2", "num_kv_heads: 9")).find("attention.num_kv_heads"),
            std::string::npos);
}

TEST(CardValidation, FirstMoeLayerBelowNumLayersAndDenseWidthWhenNeeded) {
  EXPECT_EQ(error_of(replace(kBase, "first_moe_layer: 1", "first_moe_layer: 3")), "");
  EXPECT_NE(error_of(replace(kBase, "first_moe_layer: 1", "first_moe_layer: 4")).find("moe.first_moe_layer"),
            std::string::npos);
  // All-MoE: a dense width would be unused; a dense prefix without one is an error.
  EXPECT_NE(error_of(replace(kBase, "first_moe_layer: 1", "first_moe_layer: 0")).find("dense_intermediate"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kBase, "dense_intermediate: 512\n", "")).find("dense_intermediate"), std::string::npos);
}

TEST(CardValidation, EngramOrders) {
  EXPECT_EQ(error_of(replace(kBase, "max_order: 3", "max_order: 2")), "");
  EXPECT_NE(error_of(replace(kBase, "max_order: 3", "max_order: 1")).find("engram.max_order"), std::string::npos);
}

TEST(CardValidation, SpecDecodeAcceptanceLength) {
  const std::string sd = "spec_decode:\n  kind: mtp\n  draft_tokens: 1\n  acceptance_length: AL\n";
  EXPECT_EQ(error_of(std::string(kBase) + replace(sd, "AL", "2.0")), "");
  EXPECT_NE(error_of(std::string(kBase) + replace(sd, "AL", "2.01")).find("spec_decode.acceptance_length"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + replace(sd, "AL", "0.99")).find("spec_decode.acceptance_length"),
            std::string::npos);
}

TEST(CardValidation, MlaNeedsLatentShapes) {
  const std::string mla = replace(kBase, "  kind: gqa\n  num_heads: 8\n  num_kv_heads: 2\n  head_dim: 32\n",
                                  "  kind: mla\n  num_heads: 8\n  num_kv_heads: 8\n  kv_lora_rank: 64\n"
                                  "  qk_nope_head_dim: 32\n  qk_rope_head_dim: 16\n  v_head_dim: 32\n");
  EXPECT_EQ(error_of(mla), "");
  EXPECT_EQ(model_card_from_yaml(mla, "card.yaml").attention.head_dim, 48);
  EXPECT_NE(error_of(replace(mla, "  v_head_dim: 32\n", "")).find("attention.v_head_dim"), std::string::npos);
  EXPECT_NE(
      error_of(replace(mla, "  v_head_dim: 32\n", "  v_head_dim: 32\n  head_dim: 40\n")).find("attention.head_dim"),
      std::string::npos);
}

TEST(CardValidation, CsaFieldsOnlyOnCsa) {
  EXPECT_NE(error_of(replace(kBase, "  head_dim: 32\nmoe", "  head_dim: 32\n  o_groups: 2\nmoe")).find("o_groups"),
            std::string::npos);
}

TEST(CardValidation, UnknownPrecision) {
  EXPECT_NE(error_of(replace(kBase, "attention: bf16", "attention: int8")).find("precisions.attention"),
            std::string::npos);
}

}  // namespace
}  // namespace engramsim
