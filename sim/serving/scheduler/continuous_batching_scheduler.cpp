#include "sim/serving/scheduler/continuous_batching_scheduler.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace engramsim::sim {

KvPolicy vllm_v1_kv_policy() { return {}; }

// Vidur's Sarathi replica scheduler: whole-prompt reservation, watermark_blocks_fraction 0.01
// (its default), victims from the tail of a running list kept in arrival order.
KvPolicy sarathi_kv_policy() { return {AdmissionReserve::whole_prompt, 0.01, VictimOrder::latest_arrival, true}; }

KvPolicy guaranteed_no_evict_kv_policy() {
  KvPolicy p;
  p.reserve = AdmissionReserve::whole_life;
  return p;
}

VllmParams VllmParams::from(const SchedulerParams& p) {
  return {p.max_num_batched_tokens, p.max_num_seqs, p.enable_chunked_prefill, p.long_prefill_token_threshold};
}

SarathiParams SarathiParams::from(const SchedulerParams& p) { return {p.chunk_size, p.max_num_seqs}; }

ContinuousBatchingScheduler::ContinuousBatchingScheduler(const char* name, const VllmParams& p, KvPolicy policy)
    : ContinuousBatchingScheduler(name, p.max_num_batched_tokens, p.max_num_seqs, p.enable_chunked_prefill,
                                  p.long_prefill_token_threshold, policy) {}

ContinuousBatchingScheduler::ContinuousBatchingScheduler(const SarathiParams& p)
    : ContinuousBatchingScheduler("sarathi", p.chunk_size, p.max_num_seqs, true, p.chunk_size, sarathi_kv_policy()) {}

ContinuousBatchingScheduler::ContinuousBatchingScheduler(const char* name, std::int32_t budget,
                                                         std::int32_t max_num_seqs, bool chunked_prefill,
                                                         std::int32_t max_chunk, KvPolicy policy)
    : name_(name),
      budget_(budget),
      max_num_seqs_(max_num_seqs),
      chunked_(chunked_prefill),
      max_chunk_(max_chunk > 0 ? max_chunk : INT32_MAX),
      policy_(policy) {}

void ContinuousBatchingScheduler::schedule(ReplicaState& st, StepPlan& plan) {
  std::int64_t left = budget_;
  auto& running = st.running();

  // 1. Decodes, oldest first.
  bool preempted = st.plan_decodes(plan, left, policy_.victim);

  // 2. Unfinished prefills of running sequences, oldest first.
  for (std::size_t i = 0; i < running.size() && left > 0; ++i) {
    const std::uint32_t slot = running[i];
    Sequence& s = st.seq(slot);
    if (s.state != SeqState::running || !s.prefilling() || st.planned_now(slot)) continue;
    const auto want = static_cast<std::int32_t>(
        std::min<std::int64_t>({static_cast<std::int64_t>(s.prefill_target - s.computed), left, max_chunk_}));
    if (!chunked_ && want < s.prefill_target - s.computed) continue;
    std::int32_t chunk = st.fit_chunk(slot, want);
    while (chunk == 0) {
      const std::uint32_t victim = st.preemption_victim(policy_.victim);
      if (victim == UINT32_MAX || victim == slot) break;
      st.preempt(victim);
      preempted = true;
      chunk = st.fit_chunk(slot, want);
    }
    if (chunk == 0 || (!chunked_ && chunk < want)) continue;
    st.grow(slot, static_cast<std::int64_t>(s.computed) + chunk);
    st.plan_prefill(plan, slot, chunk);
    left -= chunk;
  }

  // 3. Admissions from the waiting queue, unless this step had to preempt (vLLM v1 does the same:
  //    admitting right after evicting would only thrash; Sarathi's watermark gates it instead).
  if (!preempted || policy_.admit_after_preemption) {
    const auto watermark =
        static_cast<std::int64_t>(std::floor(policy_.watermark_fraction * static_cast<double>(st.kv().num_blocks())));
    st.compact_running();
    while (!st.waiting().empty() && st.num_running() < static_cast<std::size_t>(max_num_seqs_) && left > 0) {
      AdmitResult r;
      if (chunked_) {
        r = st.admit_waiting_head(static_cast<std::int32_t>(std::min<std::int64_t>(left, max_chunk_)),
                                  FirstChunk::any_part, policy_.reserve, watermark);
      } else {
        const bool alone = plan.empty();
        r = st.admit_waiting_head(alone ? INT32_MAX : static_cast<std::int32_t>(left), FirstChunk::whole_prefill,
                                  policy_.reserve, watermark);
      }
      if (!r.admitted) break;
      st.plan_prefill(plan, running.back(), r.chunk);
      left -= r.chunk;
    }
  }
  st.compact_running();
}

}  // namespace engramsim::sim
