#include "sim/serving/prefill_first_scheduler.hpp"

#include <algorithm>
#include <climits>

namespace engramsim::sim {

PrefillFirstScheduler::PrefillFirstScheduler(const PrefillFirstParams& p)
    : budget_(p.max_num_batched_tokens), max_num_seqs_(p.max_num_seqs) {}

void PrefillFirstScheduler::schedule(ReplicaState& st, StepPlan& plan) {
  std::int64_t left = budget_;
  auto& running = st.running();
  st.compact_running();
  while (!st.waiting().empty() && st.num_running() < static_cast<std::size_t>(max_num_seqs_) && left > 0) {
    const bool alone = plan.empty();
    const AdmitResult r = st.admit_waiting_head(alone ? INT32_MAX : static_cast<std::int32_t>(left),
                                                FirstChunk::whole_prefill, AdmissionReserve::first_chunk);
    if (!r.admitted) break;
    st.plan_prefill(plan, running.back(), r.chunk);
    left -= r.chunk;
  }
  if (!plan.empty()) return;

  for (std::size_t i = 0; i < running.size() && left > 0; ++i) {
    const std::uint32_t slot = running[i];
    Sequence& s = st.seq(slot);
    if (s.state != SeqState::running || s.prefilling()) continue;
    const auto positions = static_cast<std::int32_t>(std::min<std::int64_t>(st.decode_positions(s), left));
    bool fits = st.grow(slot, static_cast<std::int64_t>(s.computed) + positions);
    while (!fits) {
      const std::uint32_t victim = st.preemption_victim();
      if (victim == UINT32_MAX) break;
      st.preempt(victim);
      if (victim == slot) break;
      fits = st.grow(slot, static_cast<std::int64_t>(s.computed) + positions);
    }
    if (!fits) continue;
    st.plan_decode(plan, slot, positions);
    left -= positions;
  }
  st.compact_running();
}

}  // namespace engramsim::sim
