#include "sim/serving/scheduler/prefill_first_scheduler.hpp"

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

  st.plan_decodes(plan, left, VictimOrder::latest_admitted);
  st.compact_running();
}

}  // namespace engramsim::sim
