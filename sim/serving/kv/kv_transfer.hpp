// What moves when a request's KV goes from a prefill replica to a decode replica (disaggregated
// serving): one flow per pair of ranks that must exchange bytes, for the tokens the decode side
// lacks (its prefix cache may already hold the start of the prompt).
//
// How a replica holds its KV decides the pairs:
//   sharded     KV heads split evenly over the TP ranks (GQA/MHA): decode rank j needs heads
//               [j/D, (j+1)/D) of the whole and receives from every prefill rank i whose share
//               [i/P, (i+1)/P) overlaps it, the overlap's share of the bytes (TP resharding, as
//               NIXL-based connectors do);
//   replicated  every rank holds the whole KV (one latent/KV head, MLA and MQA under tensor
//               parallelism): decode rank j receives it whole from prefill rank j mod P, so the
//               prefill ranks share the sending.
// `bytes_per_token` is one token's KV over all layers for the whole replica (sharded) or for one
// rank (replicated, where every rank holds that much).
#pragma once

#include <cstdint>
#include <vector>

#include "core/units.hpp"

namespace engramsim::sim {

enum class KvLayout { sharded, replicated };

struct KvRankFlow {
  int prefill_rank = 0;
  int decode_rank = 0;
  Bytes bytes;
};

// Throws std::invalid_argument for a TP below 1, negative tokens or bytes; no flows for 0 tokens.
std::vector<KvRankFlow> kv_transfer_flows(std::int64_t tokens, Bytes bytes_per_token, KvLayout layout, int prefill_tp,
                                          int decode_tp);

}  // namespace engramsim::sim
