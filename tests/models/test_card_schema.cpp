// Model cards: one declaration (card_schema) reads every card and is the key table of docs/footprint.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "models/card_loader.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/docs_table.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

// A small dense card; the tests below add one bad line at a time.
const std::string kCard =
    "name: tiny\n"
    "description: \"test card\"\n"
    "family: test\n"
    "num_layers: 4\n"
    "hidden_size: 256\n"
    "vocab_size: 1000\n"
    "max_context: 4096\n"
    "dense_intermediate: 512\n"
    "attention:\n"
    "  kind: gqa\n"
    "  num_heads: 8\n"
    "  num_kv_heads: 2\n"
    "  head_dim: 32\n"
    "kv_cache:\n"
    "  precision: bf16\n"
    "precisions:\n"
    "  attention: bf16\n"
    "  dense_ffn: bf16\n"
    "  embedding: bf16\n"
    "  lm_head: bf16\n";

std::string error_of(const std::string& yaml) {
  return test::config_error_of([&] { model_card_from_yaml(yaml, "card.yaml"); });
}

TEST(CardSchema, DocsTableIsTheSchemas) {
  test::check_docs_table("docs/footprint.md", "## Model card keys (`models/cards/NAME.yaml`)",
                         card_schema().markdown());
}

TEST(CardSchema, EveryShippedCardWritesWhatItRead) {
  for (const auto& e : std::filesystem::directory_iterator(test::source_root() + "/models/cards")) {
    if (e.path().extension() != ".yaml") continue;
    SCOPED_TRACE(e.path().string());
    const ModelCard c = load_model_card(e.path().string());
    const nlohmann::json j = card_schema().write(c);
    EXPECT_EQ(j.at("name"), c.name);
    EXPECT_EQ(j.at("num_layers"), c.num_layers);
    EXPECT_EQ(j.at("attention").at("head_dim"), c.attention.head_dim);  // derived for MLA
    EXPECT_EQ(j.contains("moe"), c.moe.has_value());
    EXPECT_EQ(j.contains("engram"), c.engram.has_value());
    if (c.moe) {
      EXPECT_EQ(j.at("moe").at("top_k"), c.moe->top_k);
    }
    EXPECT_EQ(j.at("precisions").at("experts"), std::string(to_string(c.precisions.experts)));
  }
}

TEST(CardSchema, BadInputsNameFileLineColumnAndKey) {
  EXPECT_EQ(error_of(kCard), "");
  // A misspelt key, with the key it stands for.
  EXPECT_EQ(error_of(kCard + "hiden_size: 3\n"),
            "card.yaml:21:1: hiden_size: unknown field; did you mean 'hidden_size'?");
  EXPECT_EQ(error_of(kCard + "moe:\n  num_experts: 8\n  top_k: 2\n  expert_intermediate: 64\n  frist_moe_layer: 1\n"),
            "card.yaml:25:3: moe.frist_moe_layer: unknown field; did you mean 'first_moe_layer'?");
  // A value out of its range, fixed or set by another key.
  EXPECT_EQ(error_of(kCard + "hc_mult: 0\n"), "card.yaml:21:10: hc_mult: value 0 out of range [1, 16777216]");
  EXPECT_EQ(error_of(kCard + "prefill_layers: 5\n"), "card.yaml:21:17: prefill_layers: value 5 out of range [0, 4]");
  // A key that another calls for: MLA's latent shapes (located at the map that lacks it).
  std::string mla = kCard;
  mla.replace(mla.find("kind: gqa"), 9, "kind: mla");
  mla.erase(mla.find("  head_dim: 32\n"), 15);
  EXPECT_EQ(error_of(mla), "card.yaml:10:3: attention.kv_lora_rank: missing required field");
}

}  // namespace
}  // namespace engramsim
