#include "sim/serving/replica/replica.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/error.hpp"
#include "sim/serving/event_priorities.hpp"
#include "sim/serving/replica/step_cost.hpp"

namespace engramsim::sim {
namespace {
constexpr std::uint64_t kStepDone = 0;
constexpr std::uint64_t kWake = 1;
constexpr std::uint64_t kFrontendDone = 2;
}  // namespace

Replica::Replica(Simulation& sim, std::uint32_t index, const ReplicaParams& params,
                 std::unique_ptr<Scheduler> scheduler, const std::vector<ServingObserver*>& observers)
    : sim_(sim),
      index_(index),
      name_(params.name.empty() ? "replica" + std::to_string(index) : params.name),
      model_(params.step_model),
      gpus_(params.gpus),
      max_model_len_(params.max_model_len),
      scheduler_(std::move(scheduler)),
      observers_(observers),
      state_(params.kv, params.spec.num_speculative_tokens),
      acceptance_(params.spec),
      spec_rng_(&sim.rng("spec_decode/" + std::to_string(index))),
      padding_(params.decode_padding),
      offload_link_(params.offload_link),
      frontend_params_(params.frontend),
      kv_source_(params.kv_source),
      hold_finished_kv_(params.hold_finished_kv),
      frontend_free_(static_cast<std::size_t>(std::max(0, params.frontend.workers))) {
  if (model_ == nullptr) throw ConfigError({}, "replicas[" + std::to_string(index) + "].step_model", "missing");
  if (gpus_ <= 0) throw ConfigError({}, "replicas[" + std::to_string(index) + "].gpus", "must be positive");
  executor_ = make_step_executor(*model_, params.engram_in_run, index);
}

ReplicaTotals Replica::totals() const {
  ReplicaTotals t = totals_;
  t.preemptions = state_.preemptions();
  t.kv_evictions = static_cast<std::int64_t>(state_.kv().evictions());
  if (const KvOffloadPool* pool = state_.kv().offload()) {
    const KvOffloadCounters c = state_.offload_counters();
    t.offload_written_blocks = static_cast<std::int64_t>(c.written_blocks);
    t.offload_loaded_blocks = static_cast<std::int64_t>(c.loaded_blocks);
    t.offload_evictions = static_cast<std::int64_t>(pool->evictions());
    const double block = offload_link_.block_bytes_per_gpu.value() * gpus_;
    t.offload_written_bytes = Bytes(block * static_cast<double>(c.written_blocks));
    t.offload_loaded_bytes = Bytes(block * static_cast<double>(c.loaded_blocks));
  }
  return t;
}

ReplicaLoad Replica::load() const {
  ReplicaLoad l;
  l.outstanding = static_cast<std::int64_t>(state_.live_sequences());
  l.waiting = static_cast<std::int64_t>(state_.waiting().size() + frontend_.size());
  l.outstanding += static_cast<std::int64_t>(frontend_.size());
  l.kv_usage = state_.kv().usage();
  return l;
}

bool Replica::accepts(const Request& request) const {
  const bool too_long =
      max_model_len_ > 0 && std::int64_t{request.prompt_tokens} + request.output_tokens > max_model_len_;
  return !too_long && state_.fits_ever(request);
}

void Replica::submit(Request&& request) {
  if (!accepts(request)) {
    Sequence s;
    s.request = std::move(request);
    const RequestRecord rec = make_record(s, RequestStatus::rejected);
    for (ServingObserver* o : observers_) o->on_request_done(rec);
    return;
  }
  if (frontend_params_.active()) {
    Time& worker = *std::min_element(frontend_free_.begin(), frontend_free_.end());
    worker = std::max(sim_.now(), worker) + frontend_params_.per_prompt_token * std::int64_t{request.prompt_tokens};
    frontend_.emplace(std::make_pair(worker, frontend_entries_++), std::move(request));
    sim_.schedule_at(worker, event_priority::arrival, *this, kFrontendDone);
    return;
  }
  enqueue(std::move(request));
}

void Replica::enqueue(Request&& request) {
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
  } else if (tag == kFrontendDone) {
    // Events fire by time, then in the order they were scheduled: the map's first entry is the
    // request whose worker just finished.
    auto first = frontend_.begin();
    Request r = std::move(first->second);
    frontend_.erase(first);
    enqueue(std::move(r));
  } else {
    wake_pending_ = false;
    if (!busy_) start_step();
  }
}

void Replica::start_step() {
  plan_.clear();
  state_.begin_step();
  const std::int64_t preempted_before = state_.preemptions();
  const KvOffloadCounters offload_before = state_.offload_counters();
  scheduler_->schedule(state_, plan_);
  price_offload(offload_before);
  request_remote_kv();
  if (plan_.empty()) {
    busy_ = false;
    // Every policy can always place something while requests are on the replica (each request
    // fits the pool alone) unless some wait for their KV to arrive or finished requests hold
    // blocks another part of the deployment will free; idling otherwise would silently strand
    // them, so it is a bug.
    if (state_.live_sequences() > 0 && state_.receiving().empty() && state_.held().empty()) {
      throw std::logic_error("replica " + name_ + ": scheduler '" + scheduler_->name() +
                             "' planned nothing while requests wait");
    }
    return;
  }
  const Time now = sim_.now();
  fill_batch(now);
  busy_ = true;
  const StepStart step{now, BatchShape{prefill_buf_, decode_buf_}, &plan_, &state_,
                       state_.preemptions() - preempted_before};
  executor_->begin(step, *this);
}

void Replica::request_remote_kv() {
  for (const ReplicaState::Reserved& r : state_.take_reserved()) {
    if (kv_source_ == nullptr)
      throw std::logic_error("replica " + name_ + ": a request prefilled elsewhere but no KV source");
    kv_source_->on_kv_reserved(*this, r.slot, state_.seq(r.slot).request, r.tokens);
  }
}

void Replica::receive_kv(std::uint32_t slot) {
  state_.receive(slot);
  if (!busy_ && !wake_pending_) {
    wake_pending_ = true;
    sim_.schedule_at(sim_.now(), event_priority::replica_wake, *this, kWake);
  }
}

void Replica::release_kv(std::uint64_t request_id) {
  const auto it = held_slots_.find(request_id);
  if (it == held_slots_.end()) throw std::logic_error("replica " + name_ + ": releasing KV it does not hold");
  const std::uint32_t slot = it->second;
  held_slots_.erase(it);
  state_.release_held(slot);
  for (ServingObserver* o : observers_) o->on_sequence_done(index_, state_.seq(slot));
  if (!busy_ && !wake_pending_) {  // freed blocks may admit a waiting request
    wake_pending_ = true;
    sim_.schedule_at(sim_.now(), event_priority::replica_wake, *this, kWake);
  }
}

void Replica::fill_batch(Time now) {
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
  // A decode-only step replays a CUDA graph: dummy one-token sequences fill it to the captured size.
  // They come after the real ones, so indices into decode_buf_ still follow plan_.decodes.
  if (padding_.enabled() && prefill_buf_.empty() && !decode_buf_.empty()) {
    const auto n = static_cast<std::int32_t>(decode_buf_.size());
    std::int32_t positions = 1;
    for (const DecodeSeq& d : decode_buf_) positions = std::max(positions, d.positions);
    const std::int32_t rows = padded_decode_rows(padding_, n);
    for (std::int32_t i = n; i < rows; ++i) decode_buf_.push_back(DecodeSeq{1, positions});
    totals_.padding_rows += static_cast<std::int64_t>(rows - n) * positions;
  }
}

void Replica::price_offload(const KvOffloadCounters& before) {
  step_load_ = step_write_ = Time::zero();
  if (state_.kv().offload() == nullptr) return;
  const KvOffloadCounters now = state_.offload_counters();
  const KvOffloadLink& l = offload_link_;
  const auto copy = [&](std::uint64_t blocks, std::uint64_t transfers) {
    if (blocks == 0) return Time::zero();
    return l.latency * static_cast<std::int64_t>(transfers) +
           l.block_bytes_per_gpu * static_cast<double>(blocks) / l.bandwidth;
  };
  step_load_ = copy(now.loaded_blocks - before.loaded_blocks, now.load_transfers - before.load_transfers);
  step_write_ = copy(now.written_blocks - before.written_blocks, 1);
}

void Replica::on_step_priced(const StepCost& model, Time now, const EngramStepOutcome* in_run) {
  const AssembledStepCost step = assemble_step_cost({model, in_run, step_load_, step_write_, now, sim_.now()});
  const StepCost& cost = step.cost;
  totals_.offload_load_time += step_load_;
  totals_.offload_write_time += step_write_;
  totals_.offload_write_exposed += step.offload_write_exposed;

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
  if (in_run != nullptr) {
    rec.engram_in_run = true;
    rec.engram = in_run->stats;
  }
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
    s.prefill_tokens_total += p.tokens;
    for (ServingObserver* o : observers_) o->on_prompt_progress(index_, s);
    if (!s.prefilling()) {
      ++s.prefill_samples;
      emit(p.seq, 1);
    }
  }
  for (const PlannedDecode& d : plan_.decodes) {
    Sequence& s = state_.seq(d.seq);
    std::int32_t n = acceptance_.draft_tokens() > 0 ? acceptance_.sample(d.positions, *spec_rng_) : 1;
    if (n > s.remaining_output()) n = s.remaining_output();
    s.computed += n;
    s.decode_tokens_total += n;
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
    if (hold_finished_kv_) {
      state_.finish_holding(slot);
      held_slots_[s.request.id] = slot;
    } else {
      state_.finish(slot);
      for (ServingObserver* o : observers_) o->on_sequence_done(index_, s);
    }
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
  r.offloaded_prompt_tokens = s.offloaded_prompt_tokens;
  r.preemptions = s.preemptions;
  r.recomputed_tokens = s.discarded_tokens;
  r.reusable_prompt_tokens = s.request.reusable_prompt_tokens;
  r.measured = s.request.measured;
  return r;
}

void Replica::collect_unfinished(std::vector<RequestRecord>& out) const {
  for (const std::uint32_t slot : state_.running()) {
    const Sequence& s = state_.seq(slot);
    if (s.state == SeqState::running) out.push_back(make_record(s, RequestStatus::unfinished));
  }
  for (const std::uint32_t slot : state_.waiting())
    out.push_back(make_record(state_.seq(slot), RequestStatus::unfinished));
  for (const std::uint32_t slot : state_.receiving())
    out.push_back(make_record(state_.seq(slot), RequestStatus::unfinished));
  for (const auto& [key, r] : frontend_) {
    Sequence s;
    s.request = r;
    out.push_back(make_record(s, RequestStatus::unfinished));
  }
}

}  // namespace engramsim::sim
