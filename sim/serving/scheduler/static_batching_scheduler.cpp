#include "sim/serving/scheduler/static_batching_scheduler.hpp"

#include <climits>
#include <stdexcept>

namespace engramsim::sim {

StaticBatchingScheduler::StaticBatchingScheduler(const StaticBatchingParams& p) : max_num_seqs_(p.max_num_seqs) {}

void StaticBatchingScheduler::schedule(ReplicaState& st, StepPlan& plan) {
  auto& running = st.running();
  st.compact_running();
  if (st.num_running() == 0) {
    while (!st.waiting().empty() && st.num_running() < static_cast<std::size_t>(max_num_seqs_)) {
      const AdmitResult r = st.admit_waiting_head(INT32_MAX, FirstChunk::whole_prefill, AdmissionReserve::whole_life);
      if (!r.admitted) break;
      st.plan_prefill(plan, running.back(), r.chunk);
    }
    return;
  }
  for (const std::uint32_t slot : running) {
    Sequence& s = st.seq(slot);
    const std::int32_t positions = st.decode_positions(s);
    if (!st.grow(slot, static_cast<std::int64_t>(s.computed) + positions)) {
      throw std::logic_error("static batching: a sequence outgrew its reserved KV");
    }
    st.plan_decode(plan, slot, positions);
  }
}

}  // namespace engramsim::sim
