// A request while it lives on a replica: its progress and the KV blocks it holds.
//
// Token accounting (the invariant every scheduler keeps):
//   computed        tokens whose KV is in the cache;
//   prefill_target  tokens that must be computed before the next token can be sampled:
//                   prompt_tokens at first, prompt_tokens + generated after a preemption by
//                   recompute (the emitted tokens are recomputed as part of the prompt);
//   generated       output tokens already emitted to the user (never taken back).
// While computed < prefill_target the sequence is prefilling; the step that completes the prefill
// samples one token. Afterwards it decodes with computed == prompt + generated - 1 (the newest
// token is the input of the next step, its KV is written by that step).
#pragma once

#include <cstdint>
#include <vector>

#include "core/units.hpp"
#include "sim/serving/request.hpp"

namespace engramsim::sim {

// `receiving`: blocks reserved for a prompt whose KV is being copied from a prefill replica
// (Request::prefilled_elsewhere); the sequence is in neither the waiting nor the running list.
// held: finished, its blocks kept until the replica is told to free them (a prefill replica of a
// disaggregated deployment keeps a request's KV until the decode side has it).
enum class SeqState : std::uint8_t { waiting, running, finished, receiving, held };

// The KV of a request prefilled elsewhere: blocks not yet reserved, or received and waiting for
// admission (none: the replica computes the prompt itself, also after a preemption).
enum class RemoteKv : std::uint8_t { none, pending, arrived };

struct Sequence {
  Request request;
  SeqState state = SeqState::waiting;
  std::int32_t prefill_target = 0;
  std::int32_t computed = 0;
  std::int32_t generated = 0;
  // KV blocks held: private ones by count, cached prefix blocks by entry (block order).
  std::int64_t private_blocks = 0;
  std::vector<std::uint32_t> cache_refs;
  std::int32_t next_register_block = 0;      // first block index not yet offered to the prefix cache
  std::int32_t cached_prompt_tokens = 0;     // prefix-cache hits at first admission (GPU and host pool)
  std::int32_t offloaded_prompt_tokens = 0;  // the part of them loaded from the host KV-offload pool
  std::int64_t discarded_tokens = 0;         // KV tokens thrown away by preemptions (recomputed later)
  // Work ledger over the request's life, for conservation checks (no policy reads it):
  //   computed + discarded_tokens
  //       == hit_tokens_total + received_tokens_total + prefill_tokens_total + decode_tokens_total
  //   generated == prefill_samples + decode_tokens_total
  std::int64_t hit_tokens_total = 0;       // prefix-cache hit tokens over every (re)admission (GPU and host)
  std::int64_t host_hit_tokens_total = 0;  // the part of them loaded from the host KV-offload pool
  std::int64_t received_tokens_total = 0;  // tokens whose KV came from a prefill replica
  std::int64_t prefill_tokens_total = 0;   // tokens computed by prefill chunks, recompute included
  std::int64_t decode_tokens_total = 0;    // tokens accepted by decode steps
  std::int32_t prefill_samples = 0;        // tokens sampled by the steps that completed a prefill
  std::int32_t preemptions = 0;
  std::uint64_t admit_order = 0;            // increases with each (re)admission; preemption victims are the largest
  std::uint64_t planned_step = UINT64_MAX;  // the step this sequence was last placed in
  bool ever_admitted = false;
  RemoteKv remote_kv = RemoteKv::none;
  Time first_scheduled = Time::max();  // first step that computed any of its tokens
  Time first_token = Time::max();
  Time last_token = Time::max();

  std::int64_t blocks() const { return private_blocks + static_cast<std::int64_t>(cache_refs.size()); }
  bool prefilling() const { return computed < prefill_target; }
  std::int32_t remaining_output() const { return request.output_tokens - generated; }
};

}  // namespace engramsim::sim
