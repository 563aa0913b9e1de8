// Strict loader for model cards (models/cards/NAME.yaml) into a validated ModelCard.
//
// A name without '/' and without ".yaml" resolves to <data root>/models/cards/NAME.yaml; anything
// else is a path. The schema mirrors ModelCard (field by field; see any card in models/cards/ for an
// annotated example). Every key, its type, default and range: card_schema() below, printed as the
// key table of docs/footprint.md ("Model card keys"). Sizes carry units ("264B", "2MiB"); counts are plain
// integers. Unknown keys, missing required fields, bare numbers where a size is expected and
// out-of-range values throw ConfigError naming file:line:col and the field path.
//
// Invariants of a returned card (checked here so no cost function has to):
//   num_layers, hidden_size, vocab_size, max_context >= 1; 0 <= prefill_layers <= num_layers;
//   attention: heads >= 1, 1 <= kv_heads <= heads and heads % kv_heads == 0 (GQA/CSA), head_dim >= 1;
//     MLA: kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim >= 1 and
//     head_dim == qk_nope_head_dim + qk_rope_head_dim (filled in when omitted);
//     CSA: o_lora_rank, o_groups >= 1, heads * head_dim divisible by o_groups, compress_ratios
//     empty or one entry per layer; every layer index in any list is < num_layers, lists strictly
//     increasing; indexer fields all zero or all >= 1;
//   moe (optional): 1 <= top_k <= num_experts, expert_intermediate >= 1,
//     0 <= first_moe_layer < num_layers; dense_intermediate >= 1 wherever a dense FFN runs;
//   engram (optional): 1 <= min_order <= max_order, heads and head_dim >= 1, one table_rows entry
//     per Engram layer (each >= 1), row_bytes >= head_dim payload bytes;
//   spec_decode: kind none <=> draft_tokens == 0; 1 <= acceptance_length <= 1 + draft_tokens;
//     drafter_top_k <= drafter experts.
#pragma once

#include <string>

#include "core/field_table.hpp"
#include "models/model_card.hpp"

namespace engramsim {

// The card's keys, declared once: the loader reads them, docs/footprint.md's key table is theirs.
const FieldTable<ModelCard>& card_schema();

ModelCard load_model_card(const std::string& name_or_path);

// Parses card text; `file_name` stands in for the file in error messages (tests, embedded cards).
ModelCard model_card_from_yaml(const std::string& text, const std::string& file_name);

const char* to_string(AttentionKind k);
const char* to_string(SpecDecodeKind k);

}  // namespace engramsim
