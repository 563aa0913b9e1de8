// What a serving engine's start-up memory profile takes from HBM before it sizes the KV pool,
// beyond the model's weights and activations (docs/footprint.md "KV pool"). Engine presets carry
// these (models/engines/*.yaml, `memory_profile`); the footprint applies them.
//
// vLLM profiles one forward at max_num_batched_tokens, then estimates the memory of the CUDA
// graphs it will capture, and gives the rest of gpu_memory_utilization x HBM to the KV cache
// (Worker.determine_available_memory). Two of its terms depend on the model and the deployment:
//   - the sparse indexer's logits: the profile run reserves a capped stand-in for the prefill
//     logits buffer (VLLM_SPARSE_INDEXER_MAX_LOGITS_MB, 512 MiB), not the [tokens, context] buffer
//     itself, which is allocated at run time from the memory the utilisation leaves out;
//   - graph memory grows with the largest captured batch: every captured token's warm-up holds
//     FP32 indexer logits rows of max_model_len / ratio entries.
#pragma once

#include "core/units.hpp"

namespace engramsim {

struct EngineMemoryProfile {
  // The profile run's stand-in for the card's per-batched-token fixed buffers (the indexer's
  // logits), when > 0: the buffer is charged at most this much. 0: charged whole.
  Bytes indexer_logits_profile_cap;
  // FP32 indexer logits rows (max_model_len / smallest ratio of an index layer, 4 B each) the graph
  // memory holds per token of the largest captured batch. 0: none.
  double graph_indexer_logit_rows = 0.0;
};

}  // namespace engramsim
