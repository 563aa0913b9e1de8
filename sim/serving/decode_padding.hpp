// CUDA-graph padding of decode-only steps.
//
// Engines replay a decode step from a CUDA graph captured at a fixed batch size, so a batch of n
// sequences runs as the smallest captured size >= n, the extra rows being dummy sequences that go
// through every GEMM (and a one-token attention). Steps that carry prompt tokens run without a
// graph and are not padded; a decode batch above the largest captured size runs unpadded too.
// Under data-parallel attention every rank replays the same captured size: the padded batch is
// ranks x the size that holds the busiest rank's ceil(n / ranks) sequences.
//
// Which sizes an engine captures is a deployment setting (`scheduler.cuda_graph_batch_sizes`);
// make_decode_padding() applies TensorRT-LLM's filter (_filter_cuda_graph_batch_sizes in its
// PyTorch model engine): sizes above the largest pure-decode batch, min(max_batch_size,
// max_num_tokens / (1 + draft tokens)), are dropped, and if any was dropped that largest batch is
// captured instead.
#pragma once

#include <cstdint>
#include <vector>

namespace engramsim::sim {

struct DecodePadding {
  std::vector<std::int32_t> batch_sizes;  // captured sizes per attention rank, ascending; empty: no padding
  std::int32_t ranks = 1;                 // attention ranks of the replica
  bool enabled() const { return !batch_sizes.empty(); }
};

// The captured sizes for `listed` (any order, positive) under the per-rank limits.
DecodePadding make_decode_padding(std::vector<std::int32_t> listed, std::int32_t max_num_seqs_per_rank,
                                  std::int32_t max_num_tokens_per_rank, std::int32_t draft_tokens, std::int32_t ranks);

// Rows a decode-only step of `n` sequences runs as (n itself when no captured size holds it).
std::int32_t padded_decode_rows(const DecodePadding& p, std::int32_t n);

}  // namespace engramsim::sim
