// One inference request as the workload presents it to the serving world.
//
// Lengths are in tokens. `arrival` is simulation time (ns since the start of the run).
// `prefix_hashes` optionally identify the prompt's content in blocks of `hash_block_tokens` tokens,
// as Mooncake and Qwen-Bailian traces publish it: the i-th hash names tokens
// [i*hash_block_tokens, (i+1)*hash_block_tokens) *and everything before them* (the hashes are
// chained), so equal hashes at equal positions mean an equal prefix. Empty = no prefix information
// (never a cache hit). `session` groups the turns of one conversation (0 = none) for session-affine
// routing. `measured` is false for requests a windowed workload (the agentic replay, a closed loop
// with warm-up) excludes from the summary (warm-up, outside the measured window);
// `reusable_prompt_tokens` is the prompt prefix an unbounded prefix cache would hold for it (-1 = not
// known), so recomputed prefixes can be told apart from first-time prefill. `prefilled_elsewhere`
// marks a request a prefill replica has already computed (disaggregated serving): the replica that
// decodes it reserves blocks for its prompt and receives their KV instead of computing it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/units.hpp"

namespace engramsim::sim {

struct Request {
  std::uint64_t id = 0;  // unique within a run, assigned in arrival order from 0
  Time arrival;
  std::int32_t prompt_tokens = 0;  // >= 1
  std::int32_t output_tokens = 0;  // >= 1: tokens the request generates before it finishes
  std::uint64_t session = 0;
  std::int32_t hash_block_tokens = 0;  // tokens per prefix hash (0 when prefix_hashes is empty)
  std::vector<std::uint64_t> prefix_hashes;
  bool measured = true;
  std::int32_t reusable_prompt_tokens = -1;
  bool prefilled_elsewhere = false;
};

}  // namespace engramsim::sim
