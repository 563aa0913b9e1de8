#include "sim/serving/replica_state.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/rng.hpp"

namespace engramsim::sim {
namespace {}  // namespace

ReplicaState::ReplicaState(const KvPoolParams& kv, std::int32_t draft_tokens) : kv_(kv), draft_tokens_(draft_tokens) {}

std::int32_t ReplicaState::decode_positions(const Sequence& s) const {
  return std::max<std::int32_t>(1, std::min<std::int32_t>(1 + draft_tokens_, s.remaining_output()));
}

bool ReplicaState::fits_ever(const Request& r) const {
  const std::int64_t tokens = static_cast<std::int64_t>(r.prompt_tokens) + r.output_tokens + draft_tokens_;
  return kv_.blocks_for_tokens(tokens) <= kv_.num_blocks();
}

std::uint32_t ReplicaState::add_waiting(Request&& r) {
  const std::uint32_t slot = slots_.acquire();
  if (lookup_.slot == slot) lookup_.valid = false;
  Sequence& s = slots_[slot];
  std::vector<std::uint32_t> refs = std::move(s.cache_refs);  // keep the capacity
  refs.clear();
  s = Sequence{};
  s.cache_refs = std::move(refs);
  s.request = std::move(r);
  s.prefill_target = s.request.prompt_tokens;
  s.state = SeqState::waiting;
  s.remote_kv = s.request.prefilled_elsewhere ? RemoteKv::pending : RemoteKv::none;
  waiting_.push_back(slot);
  ++live_;
  return slot;
}

std::int32_t ReplicaState::hashable_blocks(const Request& r) const {
  if (r.prefix_hashes.empty() || r.hash_block_tokens <= 0) return 0;
  const std::int64_t covered = static_cast<std::int64_t>(r.prefix_hashes.size()) * r.hash_block_tokens;
  const std::int64_t tokens = std::min<std::int64_t>(covered, r.prompt_tokens);
  return static_cast<std::int32_t>(tokens / kv_.block_size());
}

// KV block `block` ends at token (block+1)*bs - 1; the trace hash of the block containing that token
// names the whole prefix up to there (hashes are chained), and the block index pins the position.
std::uint64_t ReplicaState::block_hash(const Request& r, std::int32_t block) const {
  const std::int64_t last_token = static_cast<std::int64_t>(block + 1) * kv_.block_size() - 1;
  const std::uint64_t h = r.prefix_hashes[static_cast<std::size_t>(last_token / r.hash_block_tokens)];
  return mix64(mix64(h + 0x9e3779b97f4a7c15ULL) ^ (static_cast<std::uint64_t>(block) + 1));
}

namespace {

// Tokens of KV to allocate at admission for `reserve`, given what the first chunk alone needs.
std::int64_t reserved_tokens(AdmissionReserve reserve, std::int64_t chunk_tokens, const Sequence& s,
                             std::int32_t draft_tokens) {
  if (reserve == AdmissionReserve::whole_prompt) return std::max<std::int64_t>(chunk_tokens, s.prefill_target);
  if (reserve == AdmissionReserve::whole_life)
    return std::max<std::int64_t>(
        chunk_tokens, static_cast<std::int64_t>(s.request.prompt_tokens) + s.request.output_tokens + draft_tokens);
  return chunk_tokens;
}

}  // namespace

AdmitResult ReplicaState::admit_waiting_head(std::int32_t max_chunk, FirstChunk first, AdmissionReserve reserve,
                                             std::int64_t watermark_blocks) {
  AdmitResult res;
  while (!waiting_.empty() && slots_[waiting_.front()].remote_kv == RemoteKv::pending)
    if (!reserve_remote_head(watermark_blocks)) return res;
  if (waiting_.empty()) return res;
  const std::uint32_t slot = waiting_.front();
  Sequence& s = slots_[slot];
  if (s.remote_kv == RemoteKv::arrived) return admit_arrived_head(max_chunk, first, reserve, watermark_blocks);
  const std::int32_t bs = kv_.block_size();

  // At least one token must be computed to sample from, so a full hit stops one block short.
  const std::int32_t max_hit =
      kv_.prefix_caching() ? std::min(hashable_blocks(s.request), (s.prefill_target - 1) / bs) : 0;
  // The blocks needed never grow with more hits, so if even max_hit hits would not fit, skip the
  // lookups (a blocked queue head is retried every step).
  {
    const std::int64_t h_tokens = static_cast<std::int64_t>(max_hit) * bs;
    const std::int64_t chunk_min = std::min<std::int64_t>(s.prefill_target - h_tokens, max_chunk);
    const std::int64_t reserve_min =
        reserved_tokens(reserve, h_tokens + std::max<std::int64_t>(chunk_min, 1), s, draft_tokens_);
    if (kv_.free_blocks() - watermark_blocks < kv_.blocks_for_tokens(reserve_min) - max_hit) return res;
  }
  lookup_prefix(slot, max_hit);
  const auto gpu_hits = static_cast<std::int32_t>(hit_buf_.size());
  const std::int32_t host_hits = lookup_.host_hits;
  const std::int32_t hits = gpu_hits + host_hits;
  const std::int32_t hit_tokens = hits * bs;
  const std::int32_t remaining = s.prefill_target - hit_tokens;
  if (first == FirstChunk::whole_prefill && remaining > max_chunk) return res;
  const std::int32_t chunk = std::min(remaining, max_chunk);
  if (chunk <= 0) return res;

  const std::int64_t reserve_tokens =
      reserved_tokens(reserve, static_cast<std::int64_t>(hit_tokens) + chunk, s, draft_tokens_);
  // Blocks loaded from the host pool need GPU blocks like computed ones.
  const std::int64_t new_blocks = kv_.blocks_for_tokens(reserve_tokens) - gpu_hits;
  if (kv_.free_blocks() - watermark_blocks < new_blocks) return res;  // short even if no hit is free
  std::int64_t hits_now_free = 0;
  for (const auto e : hit_buf_) hits_now_free += kv_.is_free(e) ? 1 : 0;
  if (kv_.free_blocks() - hits_now_free - watermark_blocks < new_blocks) return res;

  // Take the hits first so the allocation below cannot evict them; the host blocks become most
  // recently used before the allocation's evictions are stored beside them.
  for (const auto e : hit_buf_) {
    kv_.acquire(e);
    s.cache_refs.push_back(e);
  }
  for (std::int32_t j = gpu_hits; j < hits; ++j) kv_.offload()->touch(block_hash(s.request, j));
  lookup_.valid = false;
  if (!kv_.allocate(new_blocks)) throw std::logic_error("ReplicaState: admission allocation failed after check");
  s.private_blocks += new_blocks;
  s.computed = hit_tokens;
  s.next_register_block = gpu_hits;
  // The loaded blocks hold their prefix again: they rejoin the GPU prefix cache at once.
  if (host_hits > 0) {
    register_full_blocks(s, hit_tokens);
    loaded_blocks_ += static_cast<std::uint64_t>(host_hits);
    ++load_transfers_;
  }
  if (!s.ever_admitted) {
    s.cached_prompt_tokens = hit_tokens;
    s.offloaded_prompt_tokens = host_hits * bs;
  }
  s.hit_tokens_total += hit_tokens;
  s.host_hit_tokens_total += static_cast<std::int64_t>(host_hits) * bs;
  s.ever_admitted = true;
  res = move_head_to_running(chunk);
  res.loaded_blocks = host_hits;
  return res;
}

AdmitResult ReplicaState::move_head_to_running(std::int32_t chunk) {
  const std::uint32_t slot = waiting_.front();
  Sequence& s = slots_[slot];
  s.state = SeqState::running;
  s.admit_order = ++admissions_;
  waiting_.pop_front();
  running_.push_back(slot);
  ++num_running_;
  AdmitResult res;
  res.admitted = true;
  res.chunk = chunk;
  res.cached_before = s.computed;
  return res;
}

bool ReplicaState::reserve_remote_head(std::int64_t watermark_blocks) {
  const std::uint32_t slot = waiting_.front();
  Sequence& s = slots_[slot];
  const std::int32_t bs = kv_.block_size();
  const std::int32_t max_hit =
      kv_.prefix_caching() ? std::min(hashable_blocks(s.request), (s.prefill_target - 1) / bs) : 0;
  const std::int64_t prompt_blocks = kv_.blocks_for_tokens(s.prefill_target);
  if (kv_.free_blocks() - watermark_blocks < prompt_blocks - max_hit) return false;
  lookup_prefix(slot, max_hit);
  const auto hits = static_cast<std::int32_t>(hit_buf_.size());  // GPU hits only: the rest is received
  const std::int64_t new_blocks = prompt_blocks - hits;
  std::int64_t hits_now_free = 0;
  for (const auto e : hit_buf_) hits_now_free += kv_.is_free(e) ? 1 : 0;
  if (kv_.free_blocks() - hits_now_free - watermark_blocks < new_blocks) return false;
  for (const auto e : hit_buf_) {
    kv_.acquire(e);
    s.cache_refs.push_back(e);
  }
  lookup_.valid = false;
  if (!kv_.allocate(new_blocks)) throw std::logic_error("ReplicaState: reservation failed after check");
  s.private_blocks += new_blocks;
  s.computed = hits * bs;
  s.next_register_block = hits;
  s.cached_prompt_tokens = s.computed;
  s.hit_tokens_total += s.computed;
  s.ever_admitted = true;
  s.state = SeqState::receiving;
  waiting_.pop_front();
  receiving_.push_back(slot);
  reserved_.push_back({slot, static_cast<std::int64_t>(s.prefill_target) - s.computed});
  return true;
}

std::int32_t ReplicaState::gpu_prefix_hit_tokens(const Request& r) const {
  if (!kv_.prefix_caching()) return 0;
  const std::int32_t bs = kv_.block_size();
  const std::int32_t max_hit = std::min(hashable_blocks(r), (r.prompt_tokens - 1) / bs);
  std::int32_t j = 0;
  while (j < max_hit && kv_.lookup(block_hash(r, j))) ++j;
  return j * bs;
}

std::vector<ReplicaState::Reserved> ReplicaState::take_reserved() {
  std::vector<Reserved> out;
  out.swap(reserved_);
  return out;
}

void ReplicaState::receive(std::uint32_t slot) {
  Sequence& s = slots_[slot];
  if (s.state != SeqState::receiving) throw std::logic_error("ReplicaState: KV arrived for a sequence not receiving");
  const std::int32_t received = s.prefill_target - 1 - s.computed;
  s.received_tokens_total += received;
  s.computed += received;
  register_full_blocks(s, s.computed);
  s.remote_kv = RemoteKv::arrived;
  s.state = SeqState::waiting;
  std::erase(receiving_, slot);
  waiting_.push_front(slot);
}

AdmitResult ReplicaState::admit_arrived_head(std::int32_t max_chunk, FirstChunk first, AdmissionReserve reserve,
                                             std::int64_t watermark_blocks) {
  AdmitResult res;
  const std::uint32_t slot = waiting_.front();
  Sequence& s = slots_[slot];
  const std::int32_t remaining = s.prefill_target - s.computed;
  if (first == FirstChunk::whole_prefill && remaining > max_chunk) return res;
  const std::int32_t chunk = std::min(remaining, max_chunk);
  if (chunk <= 0) return res;
  const std::int64_t need =
      kv_.blocks_for_tokens(reserved_tokens(reserve, static_cast<std::int64_t>(s.computed) + chunk, s, draft_tokens_)) -
      s.blocks();
  if (need > 0) {
    if (kv_.free_blocks() - watermark_blocks < need || !kv_.allocate(need)) return res;
    s.private_blocks += need;
  }
  s.remote_kv = RemoteKv::none;
  return move_head_to_running(chunk);
}

void ReplicaState::lookup_prefix(std::uint32_t slot, std::int32_t max_hit) {
  const KvOffloadPool* pool = kv_.offload();
  const std::uint64_t host_version = pool != nullptr ? pool->version() : 0;
  if (lookup_.valid && lookup_.slot == slot && lookup_.max_hit == max_hit &&
      lookup_.gpu_version == kv_.contents_version() && lookup_.host_version == host_version)
    return;
  const Request& r = slots_[slot].request;
  hit_buf_.clear();
  std::int32_t j = 0;
  for (; j < max_hit; ++j) {
    const auto e = kv_.lookup(block_hash(r, j));
    if (!e) break;
    hit_buf_.push_back(*e);
  }
  std::int32_t host = 0;
  if (pool != nullptr)
    while (j + host < max_hit && pool->contains(block_hash(r, j + host))) ++host;
  lookup_ = PrefixLookup{true, slot, max_hit, kv_.contents_version(), host_version, host};
}

KvOffloadCounters ReplicaState::offload_counters() const {
  KvOffloadCounters c;
  if (const KvOffloadPool* pool = kv_.offload()) c.written_blocks = pool->writes();
  c.loaded_blocks = loaded_blocks_;
  c.load_transfers = load_transfers_;
  return c;
}

bool ReplicaState::grow(std::uint32_t slot, std::int64_t tokens) {
  Sequence& s = slots_[slot];
  const std::int64_t need = kv_.blocks_for_tokens(tokens) - s.blocks();
  if (need <= 0) return true;
  if (!kv_.allocate(need)) return false;
  s.private_blocks += need;
  return true;
}

std::int32_t ReplicaState::fit_chunk(std::uint32_t slot, std::int32_t want) const {
  const Sequence& s = slots_[slot];
  const std::int64_t cap = (s.blocks() + kv_.free_blocks()) * kv_.block_size() - s.computed;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(cap, 0, want));
}

void ReplicaState::register_full_blocks(Sequence& s, std::int32_t tokens_after) {
  if (!kv_.prefix_caching()) return;
  const std::int32_t full = std::min(tokens_after / kv_.block_size(), hashable_blocks(s.request));
  for (std::int32_t j = s.next_register_block; j < full && s.private_blocks > 0; ++j) {
    if (const auto e = kv_.register_block(block_hash(s.request, j))) {
      --s.private_blocks;
      s.cache_refs.push_back(*e);
    }
  }
  s.next_register_block = std::max(s.next_register_block, full);
}

void ReplicaState::release_all(Sequence& s) {
  // Reverse order: the tail of a prompt becomes least recently used first, so a later request
  // sharing the head keeps finding it (vLLM frees blocks in the same order for the same reason).
  for (auto it = s.cache_refs.rbegin(); it != s.cache_refs.rend(); ++it) kv_.release(*it);
  s.cache_refs.clear();
  kv_.release_private(s.private_blocks);
  s.private_blocks = 0;
}

void ReplicaState::preempt(std::uint32_t slot) {
  Sequence& s = slots_[slot];
  if (s.state != SeqState::running) throw std::logic_error("ReplicaState: preempting a sequence that is not running");
  s.discarded_tokens += s.computed;
  release_all(s);
  s.computed = 0;
  s.prefill_target = s.request.prompt_tokens + s.generated;
  s.next_register_block = 0;
  ++s.preemptions;
  ++preemptions_;
  s.state = SeqState::waiting;
  waiting_.push_front(slot);
  --num_running_;
}

std::uint32_t ReplicaState::preemption_victim(VictimOrder order) const {
  if (order == VictimOrder::latest_admitted) {
    for (auto it = running_.rbegin(); it != running_.rend(); ++it) {
      const Sequence& s = slots_[*it];
      if (s.state == SeqState::running && s.planned_step != step_id_) return *it;
    }
    return UINT32_MAX;
  }
  std::uint32_t victim = UINT32_MAX;
  for (const std::uint32_t slot : running_) {
    const Sequence& s = slots_[slot];
    if (s.state != SeqState::running || s.planned_step == step_id_) continue;
    // Request ids follow arrival order, so they break ties between equal arrival times.
    const auto later = [](const Request& a, const Request& b) {
      return a.arrival != b.arrival ? b.arrival < a.arrival : a.id > b.id;
    };
    if (victim == UINT32_MAX || later(s.request, slots_[victim].request)) victim = slot;
  }
  return victim;
}

void ReplicaState::finish(std::uint32_t slot) {
  Sequence& s = slots_[slot];
  if (s.state != SeqState::running) throw std::logic_error("ReplicaState: finishing a sequence that is not running");
  release_all(s);
  s.state = SeqState::finished;
  --num_running_;
  --live_;
  finished_slots_.push_back(slot);
}

void ReplicaState::finish_holding(std::uint32_t slot) {
  Sequence& s = slots_[slot];
  if (s.state != SeqState::running) throw std::logic_error("ReplicaState: holding a sequence that is not running");
  s.state = SeqState::held;
  --num_running_;
  --live_;
  held_.push_back(slot);
}

void ReplicaState::release_held(std::uint32_t slot) {
  Sequence& s = slots_[slot];
  if (s.state != SeqState::held) throw std::logic_error("ReplicaState: releasing a sequence that is not held");
  release_all(s);
  s.state = SeqState::finished;
  std::erase(held_, slot);
  finished_slots_.push_back(slot);  // recycled by the next compact_running()
}

void ReplicaState::compact_running() {
  std::erase_if(running_, [this](std::uint32_t slot) { return slots_[slot].state != SeqState::running; });
  for (const auto slot : finished_slots_) slots_.release(slot);
  finished_slots_.clear();
}

void ReplicaState::plan_prefill(StepPlan& plan, std::uint32_t slot, std::int32_t tokens) {
  Sequence& s = slots_[slot];
  plan.prefills.push_back(PlannedPrefill{slot, tokens, s.computed});
  plan.tokens += tokens;
  s.planned_step = step_id_;
  register_full_blocks(s, s.computed + tokens);
}

void ReplicaState::plan_decode(StepPlan& plan, std::uint32_t slot, std::int32_t positions) {
  Sequence& s = slots_[slot];
  plan.decodes.push_back(PlannedDecode{slot, positions});
  plan.tokens += positions;
  s.planned_step = step_id_;
}

bool ReplicaState::plan_decodes(StepPlan& plan, std::int64_t& left, VictimOrder order) {
  bool preempted = false;
  // Indexing (not iterators): preemption pushes onto `waiting_` only.
  for (std::size_t i = 0; i < running_.size() && left > 0; ++i) {
    const std::uint32_t slot = running_[i];
    Sequence& s = slots_[slot];
    if (s.state != SeqState::running || s.prefilling()) continue;
    const auto positions = static_cast<std::int32_t>(std::min<std::int64_t>(decode_positions(s), left));
    bool fits = grow(slot, static_cast<std::int64_t>(s.computed) + positions);
    while (!fits) {
      const std::uint32_t victim = preemption_victim(order);
      if (victim == UINT32_MAX) break;
      preempt(victim);
      preempted = true;
      if (victim == slot) break;
      fits = grow(slot, static_cast<std::int64_t>(s.computed) + positions);
    }
    if (!fits) continue;
    plan_decode(plan, slot, positions);
    left -= positions;
  }
  return preempted;
}

}  // namespace engramsim::sim
