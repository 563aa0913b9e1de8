#include "sim/serving/replica.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "sim/serving/event_priorities.hpp"

namespace engramsim::sim {
namespace {
constexpr std::uint64_t kStepDone = 0;
constexpr std::uint64_t kWake = 1;
}  // namespace

Replica::Replica(Simulation& sim, std::uint32_t index, const ReplicaParams& params,
                 std::unique_ptr<Scheduler> scheduler, const std::vector<ServingObserver*>& observers)
    : sim_(sim),
      index_(index),
      name_(params.name.empty() ? "replica" + std::to_string(index) : params.name),
      model_(params.step_model),
      gpus_(params.gpus),
      scheduler_(std::move(scheduler)),
      observers_(observers),
      state_(params.kv, params.spec.num_speculative_tokens),
      acceptance_(params.spec),
      spec_rng_(&sim.rng("spec_decode/" + std::to_string(index))) {
  if (model_ == nullptr) throw ConfigError({}, "replicas[" + std::to_string(index) + "].step_model", "missing");
  if (gpus_ <= 0) throw ConfigError({}, "replicas[" + std::to_string(index) + "].gpus", "must be positive");
}

ReplicaTotals Replica::totals() const {
  ReplicaTotals t = totals_;
  t.preemptions = state_.preemptions();
  return t;
}

ReplicaLoad Replica::load() const {
  ReplicaLoad l;
  l.outstanding = static_cast<std::int64_t>(state_.live_sequences());
  l.waiting = static_cast<std::int64_t>(state_.waiting().size());
  l.kv_usage = state_.kv().usage();
  return l;
}

void Replica::submit(Request&& request) {
  if (!state_.fits_ever(request)) {
    Sequence s;
    s.request = std::move(request);
    const RequestRecord rec = make_record(s, RequestStatus::rejected);
    for (ServingObserver* o : observers_) o->on_request_done(rec);
    return;
  }
  state_.add_waiting(std::move(request));
  if (!busy_ && !wake_pending_) {
    wake_pending_ = true;
    sim_.schedule_at(sim_.now(), event_priority::replica_wake, *this, kWake);
  }
}

void Replica::on_event(std::uint64_t tag) {
  if (tag == kStepDone) {
    complete_step();
    start_step();
  } else {
    wake_pending_ = false;
    if (!busy_) start_step();
  }
}

void Replica::start_step() {
  plan_.clear();
  state_.begin_step();
  scheduler_->schedule(state_, plan_);
  if (plan_.empty()) {
    busy_ = false;
    // Every policy can always place something while requests are on the replica (each request
    // fits the pool alone); idling here would silently strand them, so it is a bug.
    if (state_.live_sequences() > 0) {
      throw std::logic_error("replica " + name_ + ": scheduler '" + scheduler_->name() +
                             "' planned nothing while requests wait");
    }
    return;
  }
  const Time now = sim_.now();
  prefill_buf_.clear();
  decode_buf_.clear();
  for (const PlannedPrefill& p : plan_.prefills) {
    prefill_buf_.push_back(PrefillChunk{p.tokens, p.cached_before});
    Sequence& s = state_.seq(p.seq);
    if (s.first_scheduled == Time::max()) s.first_scheduled = now;
  }
  for (const PlannedDecode& d : plan_.decodes) {
    decode_buf_.push_back(DecodeSeq{state_.seq(d.seq).computed, d.positions});
  }
  const BatchShape shape{prefill_buf_, decode_buf_};
  StepCost cost = model_->step(shape);
  if (cost.total < Time::ns(1)) cost.total = Time::ns(1);

  totals_.steps += 1;
  totals_.busy += cost.total;
  totals_.engram_stall += cost.engram_stall;
  totals_.engram_fetch += cost.engram_fetch;
  StepRecord rec;
  rec.replica = index_;
  rec.start = now;
  rec.cost = cost;
  rec.prefill_seqs = static_cast<std::int32_t>(plan_.prefills.size());
  rec.decode_seqs = static_cast<std::int32_t>(plan_.decodes.size());
  for (const auto& p : plan_.prefills) rec.prefill_tokens += p.tokens;
  rec.decode_positions = plan_.tokens - rec.prefill_tokens;
  rec.kv_usage = state_.kv().usage();
  rec.waiting = static_cast<std::int64_t>(state_.waiting().size());
  totals_.prefill_tokens += rec.prefill_tokens;
  totals_.decode_positions += rec.decode_positions;
  for (ServingObserver* o : observers_) o->on_step(rec);

  busy_ = true;
  sim_.schedule_at(now + cost.total, event_priority::step_done, *this, kStepDone);
}

void Replica::complete_step() {
  for (const PlannedPrefill& p : plan_.prefills) {
    Sequence& s = state_.seq(p.seq);
    s.computed += p.tokens;
    if (!s.prefilling()) emit(p.seq, 1);
  }
  for (const PlannedDecode& d : plan_.decodes) {
    Sequence& s = state_.seq(d.seq);
    std::int32_t n = acceptance_.draft_tokens() > 0 ? acceptance_.sample(d.positions, *spec_rng_) : 1;
    if (n > s.remaining_output()) n = s.remaining_output();
    s.computed += n;
    emit(d.seq, n);
  }
  state_.compact_running();
  busy_ = false;
}

void Replica::emit(std::uint32_t slot, std::int32_t tokens) {
  Sequence& s = state_.seq(slot);
  const Time now = sim_.now();
  if (s.generated == 0) {
    s.first_token = now;
  } else {
    const Time gap = now - s.last_token;
    for (ServingObserver* o : observers_) o->on_token_gap(gap);
  }
  s.generated += tokens;
  s.last_token = now;
  totals_.emitted_tokens += tokens;
  if (s.generated >= s.request.output_tokens) {
    const RequestRecord rec = make_record(s, RequestStatus::finished);
    state_.finish(slot);
    for (ServingObserver* o : observers_) o->on_request_done(rec);
  }
}

RequestRecord Replica::make_record(const Sequence& s, RequestStatus status) const {
  RequestRecord r;
  r.id = s.request.id;
  r.session = s.request.session;
  r.replica = index_;
  r.status = status;
  r.arrival = s.request.arrival;
  r.first_scheduled = s.first_scheduled;
  r.first_token = s.first_token;
  r.finish = status == RequestStatus::finished ? sim_.now() : Time::max();
  r.prompt_tokens = s.request.prompt_tokens;
  r.output_tokens = s.request.output_tokens;
  r.generated_tokens = s.generated;
  r.cached_prompt_tokens = s.cached_prompt_tokens;
  r.preemptions = s.preemptions;
  return r;
}

void Replica::collect_unfinished(std::vector<RequestRecord>& out) const {
  for (const std::uint32_t slot : state_.running()) {
    const Sequence& s = state_.seq(slot);
    if (s.state == SeqState::running) out.push_back(make_record(s, RequestStatus::unfinished));
  }
  for (const std::uint32_t slot : state_.waiting()) out.push_back(make_record(state_.seq(slot), RequestStatus::unfinished));
}

}  // namespace engramsim::sim
