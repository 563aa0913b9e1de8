// The scheduling state of one replica: its sequences, the running list, the waiting queue and the
// KV pool, plus the block-level operations every scheduling policy is built from (admission with
// prefix-cache hits, growing a sequence's KV, preemption by recompute, finishing).
//
// Sequences live in slots of a slab; a slot index names a sequence while it is on the replica and
// is reused afterwards. `running` is kept in admission order (oldest first); a preempted sequence
// goes back to the *front* of `waiting` (it was admitted before anything still waiting), as vLLM
// does. Entries of `running` whose sequence is no longer running are removed by compact_running(),
// so policies can preempt while iterating.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/serving/kv/kv_block_manager.hpp"
#include "sim/serving/sequence.hpp"
#include "sim/serving/slot_pool.hpp"
#include "sim/serving/step_plan.hpp"

namespace engramsim::sim {

// KV allocated when a request is admitted: its first prefill chunk (vLLM v1: blocks follow the
// scheduled tokens), its whole remaining prefill (Sarathi-Serve and vLLM v0, as Vidur models them),
// or its whole life, prompt + output + draft lookahead (TensorRT-LLM GUARANTEED_NO_EVICT, static
// batching).
enum class AdmissionReserve { first_chunk, whole_prompt, whole_life };

// Whether the first prefill chunk may be a part of the remaining prefill (chunked prefill) or must
// cover all of it (schedulers without chunking).
enum class FirstChunk { any_part, whole_prefill };

// Which running sequence a KV shortage evicts: the latest (re)admitted one, the tail of vLLM v1's
// running list, or the one whose request arrived last (Vidur's Sarathi scheduler keeps its running
// list in arrival order and evicts from the tail, so a re-admitted old request is not the next
// victim).
enum class VictimOrder { latest_admitted, latest_arrival };

struct AdmitResult {
  bool admitted = false;
  std::int32_t chunk = 0;          // prefill tokens scheduled for this step
  std::int32_t cached_before = 0;  // prefix-cache hit tokens (KV already present or loaded)
  std::int32_t loaded_blocks = 0;  // of them, blocks loaded from the host KV-offload pool
};

// Host KV-offload traffic of a replica so far (monotone counters; the replica prices the deltas of
// each step).
struct KvOffloadCounters {
  std::uint64_t written_blocks = 0;  // device to host, GPU evictions not already held
  std::uint64_t loaded_blocks = 0;   // host to device, prefix hits served by the pool
  std::uint64_t load_transfers = 0;  // admissions that loaded at least one block
};

class ReplicaState {
 public:
  ReplicaState(const KvPoolParams& kv, std::int32_t draft_tokens);

  KvBlockManager& kv() { return kv_; }
  const KvBlockManager& kv() const { return kv_; }
  Sequence& seq(std::uint32_t slot) { return slots_[slot]; }
  const Sequence& seq(std::uint32_t slot) const { return slots_[slot]; }
  std::vector<std::uint32_t>& running() { return running_; }
  const std::vector<std::uint32_t>& running() const { return running_; }
  std::deque<std::uint32_t>& waiting() { return waiting_; }
  const std::deque<std::uint32_t>& waiting() const { return waiting_; }
  std::size_t num_running() const { return num_running_; }
  std::size_t live_sequences() const { return live_; }
  std::int64_t preemptions() const { return preemptions_; }
  KvOffloadCounters offload_counters() const;

  // The step counter that stamps Sequence::planned_step; advance once per planned step.
  std::uint64_t step_id() const { return step_id_; }
  void begin_step() { ++step_id_; }
  bool planned_now(std::uint32_t slot) const { return slots_[slot].planned_step == step_id_; }

  // Positions a decoding sequence verifies in one step: 1 + draft tokens, capped by what it still
  // has to generate.
  std::int32_t decode_positions(const Sequence& s) const;
  // Whether a request can ever run here: its whole life (prompt + output + draft lookahead) fits
  // in the pool. Requests that fail this are rejected instead of queued forever.
  bool fits_ever(const Request& r) const;

  // Puts a new request at the back of the waiting queue and returns its slot.
  std::uint32_t add_waiting(Request&& r);

  // Tries to move the head of `waiting` to the back of `running` with a first prefill chunk of at
  // most `max_chunk` tokens after prefix-cache hits. `first` says whether the chunk must cover the
  // whole remaining prefill. `reserve` says how much KV is allocated at admission (the first chunk, the
  // whole remaining prefill, or the sequence's whole life); `watermark_blocks` must stay free after
  // that allocation. On failure nothing changes.
  //
  // A head prefilled elsewhere (RemoteKv::pending) first gets blocks for its whole prompt, its
  // prefix-cache hits included, and leaves the queue to receive the rest (take_reserved()); the
  // next head is then tried, so a reservation takes neither a running slot nor step tokens (vLLM's
  // WAITING_FOR_REMOTE_KVS). A head whose blocks are short stays, and blocks the queue. A head
  // whose KV has arrived is admitted with its last prompt token to compute.
  AdmitResult admit_waiting_head(std::int32_t max_chunk, FirstChunk first, AdmissionReserve reserve,
                                 std::int64_t watermark_blocks = 0);

  // Sequences that got their blocks since the last call, each with the prompt tokens it lacks.
  struct Reserved {
    std::uint32_t slot = 0;
    std::int64_t tokens = 0;
  };
  std::vector<Reserved> take_reserved();
  // The KV of a receiving sequence has arrived: every prompt token but the last counts as computed,
  // the full blocks join the prefix cache, and the sequence goes to the front of `waiting`.
  void receive(std::uint32_t slot);
  const std::vector<std::uint32_t>& receiving() const { return receiving_; }
  // Prompt tokens of `r` the GPU prefix cache holds now, as an admission would find them.
  std::int32_t gpu_prefix_hit_tokens(const Request& r) const;

  // Ensures blocks for `tokens` tokens of KV; false (nothing changed) when the pool is short.
  bool grow(std::uint32_t slot, std::int64_t tokens);
  // Largest prefill chunk (<= want) whose KV fits in the blocks the sequence holds plus the free ones.
  std::int32_t fit_chunk(std::uint32_t slot, std::int32_t want) const;

  // Preemption by recompute: frees all blocks, resets progress and puts the sequence at the front of
  // the waiting queue. The caller removes it from `running` (compact_running()).
  void preempt(std::uint32_t slot);
  // The running sequence not placed in the current step that is latest admitted (or, by
  // `VictimOrder::latest_arrival`, whose request arrived last), or UINT32_MAX.
  std::uint32_t preemption_victim(VictimOrder order = VictimOrder::latest_admitted) const;
  // Frees the blocks of a sequence that has finished; its slot is reused after compact_running().
  void finish(std::uint32_t slot);
  // A finished sequence that keeps its blocks (SeqState::held) until release_held(slot).
  void finish_holding(std::uint32_t slot);
  void release_held(std::uint32_t slot);
  const std::vector<std::uint32_t>& held() const { return held_; }
  // Drops entries of `running` whose sequence is no longer running and recycles finished slots.
  void compact_running();

  // Adds a planned prefill/decode and stamps the sequence as placed in this step. Planning a
  // prefill also offers the prompt blocks it completes to the prefix cache (at scheduling time, as
  // vLLM does, so a request admitted in the same step can already hit them).
  void plan_prefill(StepPlan& plan, std::uint32_t slot, std::int32_t tokens);
  void plan_decode(StepPlan& plan, std::uint32_t slot, std::int32_t positions);
  // Plans a decode for each running sequence past its prefill, oldest first, while `left` tokens
  // remain (less what it plans). A sequence short of KV blocks preempts victims by `order` until it
  // fits or none is left (it may be the victim itself). Returns whether any sequence was preempted.
  bool plan_decodes(StepPlan& plan, std::int64_t& left, VictimOrder order);

 private:
  std::uint64_t block_hash(const Request& r, std::int32_t block) const;
  std::int32_t hashable_blocks(const Request& r) const;
  void release_all(Sequence& s);
  void register_full_blocks(Sequence& s, std::int32_t tokens_after);
  // The prefix hits of the waiting sequence in `slot` over its first `max_hit` blocks: the GPU run
  // in hit_buf_, then the run the host pool holds in lookup_.host_hits. Cached until the GPU or host
  // contents change or another sequence asks, so a head that stays blocked is not probed again
  // every step.
  void lookup_prefix(std::uint32_t slot, std::int32_t max_hit);
  // The head of `waiting`, its blocks in hand, joins `running` with a first chunk of `chunk` tokens.
  AdmitResult move_head_to_running(std::int32_t chunk);
  // Disaggregated serving: the two halves of admit_waiting_head for a head prefilled elsewhere.
  bool reserve_remote_head(std::int64_t watermark_blocks);
  AdmitResult admit_arrived_head(std::int32_t max_chunk, FirstChunk first, AdmissionReserve reserve,
                                 std::int64_t watermark_blocks);

  KvBlockManager kv_;
  std::int32_t draft_tokens_;
  SlotPool<Sequence> slots_;
  std::vector<std::uint32_t> finished_slots_;
  std::vector<std::uint32_t> running_;
  std::deque<std::uint32_t> waiting_;
  std::vector<std::uint32_t> receiving_;  // SeqState::receiving, in reservation order
  std::vector<Reserved> reserved_;        // since the last take_reserved()
  std::vector<KvBlockManager::EntryId> hit_buf_;
  struct PrefixLookup {
    bool valid = false;
    std::uint32_t slot = 0;
    std::int32_t max_hit = 0;
    std::uint64_t gpu_version = 0;
    std::uint64_t host_version = 0;
    std::int32_t host_hits = 0;
  } lookup_;
  std::uint64_t loaded_blocks_ = 0;
  std::uint64_t load_transfers_ = 0;
  std::size_t num_running_ = 0;
  std::vector<std::uint32_t> held_;  // SeqState::held, in the order they finished
  std::size_t live_ = 0;
  std::uint64_t step_id_ = 0;
  std::uint64_t admissions_ = 0;
  std::int64_t preemptions_ = 0;
};

}  // namespace engramsim::sim
