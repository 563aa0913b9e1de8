#include "run_checker.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "models/weights.hpp"

namespace engramsim::testing {
namespace {

bool streamed_by_every_token(WeightKind k) {
  return k == WeightKind::attn_q || k == WeightKind::attn_o || k == WeightKind::dense_ffn ||
         k == WeightKind::shared_experts;
}

}  // namespace

RooflineBound roofline_bound(const scenario::BuiltScenario& built) {
  const RooflineStepModel& model = *built.step_model;
  const WeightInventory inv = build_weight_inventory(model.card());
  double bytes = 0.0;
  double elements = 0.0;
  for (const LayerWeights& lw : inv.layers()) {
    for (const WeightGroup& g : lw.groups) {
      if (!streamed_by_every_token(g.kind)) continue;
      bytes += g.bytes().value();
      elements += static_cast<double>(g.elements);
    }
  }
  const GpuSpec& gpu = model.node().gpu;
  double peak = 0.0;
  for (const auto& [precision, rate] : gpu.dense_flops) peak = std::max(peak, rate.value());
  const double tp = static_cast<double>(model.options().layout.tp);
  RooflineBound b;
  b.min_step = Time::from_seconds(bytes / tp / gpu.hbm_bandwidth.value());
  b.seconds_per_position = 2.0 * elements / (tp * peak);
  return b;
}

InvariantProbe::InvariantProbe(const sim::RunConfig& config, RooflineBound bound) : config_(config), bound_(bound) {}

void InvariantProbe::fail(const std::string& what) {
  if (violations_.size() < 20) violations_.push_back(what);
}

void InvariantProbe::on_dispatch(const sim::Event& event) {
  if (event.key.time < last_event_)
    fail("event at " + std::to_string(event.key.time.count_ns()) + " ns after one at " +
         std::to_string(last_event_.count_ns()) + " ns");
  last_event_ = event.key.time;
}

void InvariantProbe::on_run_start(const sim::Simulation& sim, const sim::Deployment& deployment) {
  sim_ = &sim;
  deployment_ = &deployment;
  last_step_end_.assign(deployment.replicas().size(), Time{});
  last_step_prefill_.assign(deployment.replicas().size(), 0);
  if (sim.now() != Time{}) fail("the run starts after t = 0");
}

void InvariantProbe::on_arrival(const sim::Request& request, std::uint32_t replica) {
  ++arrivals_;
  if (request.arrival != sim_->now()) fail("request " + std::to_string(request.id) + " arrives off its arrival time");
  if (replica >= deployment_->replicas().size()) fail("request routed to a replica that does not exist");
}

void InvariantProbe::on_step(const sim::StepRecord& step) {
  ++steps_;
  step_prefill_tokens_ += step.prefill_tokens;
  step_decode_positions_ += step.decode_positions;
  std::ostringstream where;
  where << "step " << steps_ << " of replica " << step.replica << " at " << step.start.count_ns() << " ns: ";
  if (step.start > sim_->now()) fail(where.str() + "starts in the future");
  if (step.start < last_step_end_[step.replica]) fail(where.str() + "starts before the replica's previous step ended");
  last_step_end_[step.replica] = step.start + step.cost.total;
  last_step_prefill_[step.replica] = step.prefill_tokens;
  if (step.cost.total < Time::ns(1)) fail(where.str() + "takes no time");
  const std::int32_t seqs = step.prefill_seqs + step.decode_seqs;
  if (seqs < 1 || seqs > config_.scheduler.max_num_seqs) fail(where.str() + std::to_string(seqs) + " sequences");
  if (step.kv_usage < 0.0 || step.kv_usage > 1.0) fail(where.str() + "KV usage out of [0, 1]");
  const double total_s = step.cost.total.seconds();
  const double slack = 1e-9;  // the parts round to whole nanoseconds
  if (total_s + slack < bound_.min_step.seconds() * (1 - 1e-9))
    fail(where.str() + "shorter than reading its weights from HBM (" + std::to_string(total_s) + " s < " +
         std::to_string(bound_.min_step.seconds()) + " s)");
  const double flop_s = static_cast<double>(step.prefill_tokens + step.decode_positions) * bound_.seconds_per_position;
  if (total_s + slack < flop_s * (1 - 1e-9))
    fail(where.str() + "faster than the GPUs' peak FLOPs (" + std::to_string(total_s) + " s < " +
         std::to_string(flop_s) + " s)");
  check_pool(step.replica);
}

void InvariantProbe::on_sequence_done(std::uint32_t /*replica*/, const sim::Sequence& sequence) {
  check_ledger(sequence, true);
}

void InvariantProbe::check_ledger(const sim::Sequence& s, bool finished) {
  const std::string who = "request " + std::to_string(s.request.id) + ": ";
  const std::int64_t prompt = s.request.prompt_tokens;
  ledger_prefill_ += s.prefill_tokens_total;
  ledger_decode_ += s.decode_tokens_total;
  ledger_generated_ += s.generated;
  ledger_preemptions_ += s.preemptions;
  ledger_discarded_ += s.discarded_tokens;
  if (s.preemptions == 0 && s.discarded_tokens != 0) fail(who + "discarded KV tokens without a preemption");
  if (s.computed + s.discarded_tokens !=
      s.hit_tokens_total + s.received_tokens_total + s.prefill_tokens_total + s.decode_tokens_total)
    fail(who + "KV tokens held + discarded != hits + received + prefilled + decoded");
  if (s.generated != s.prefill_samples + s.decode_tokens_total)
    fail(who + "emitted != sampled after prefill + decoded");
  if (s.generated > s.request.output_tokens) fail(who + "emitted more than its output tokens");
  if (s.preemptions == 0 && s.hit_tokens_total != s.cached_prompt_tokens)
    fail(who + "prefix hits after a single admission");
  if (s.preemptions == 0 && s.prefill_tokens_total > prompt - s.cached_prompt_tokens - s.received_tokens_total)
    fail(who + "prefilled more than its uncached prompt without a preemption");
  if (s.state == sim::SeqState::running && !s.prefilling() && s.generated > 0 &&
      s.computed != prompt + s.generated - 1 && !finished)
    fail(who + "decoding with computed != prompt + generated - 1");
  if (!finished) return;
  if (s.generated != s.request.output_tokens) fail(who + "finished without all its output tokens");
  if (s.computed != prompt + s.request.output_tokens - 1) fail(who + "finished with computed != prompt + output - 1");
  // Prompt tokens in = cached + computed; a preempted request computes its prompt again (recompute).
  if (s.preemptions == 0 && s.cached_prompt_tokens + s.received_tokens_total + s.prefill_tokens_total != prompt)
    fail(who + "prompt != cached + received + prefilled");
  if (s.hit_tokens_total + s.received_tokens_total + s.prefill_tokens_total < prompt)
    fail(who + "less than its prompt prefilled");
  if (s.blocks() != 0) fail(who + "finished holding KV blocks");
}

void InvariantProbe::check_pool(std::uint32_t replica) {
  const sim::ReplicaState& st = deployment_->replicas()[replica]->state();
  const sim::KvBlockManager& kv = st.kv();
  const std::string where = "replica " + std::to_string(replica) + " KV pool: ";
  const std::int64_t parts[] = {kv.free_uncached_blocks(), kv.private_blocks(), kv.cached_in_use_blocks(),
                                kv.cached_free_blocks()};
  for (const std::int64_t p : parts)
    if (p < 0 || p > kv.num_blocks()) fail(where + "a block count out of [0, capacity]");
  if (parts[0] + parts[1] + parts[2] + parts[3] != kv.num_blocks())
    fail(where + "states do not add up to the capacity");
  std::int64_t held_private = 0;
  std::map<std::uint32_t, std::int32_t> refs;
  const auto hold = [&](const sim::Sequence& s) {
    held_private += s.private_blocks;
    for (const std::uint32_t e : s.cache_refs) ++refs[e];
    if (s.blocks() < kv.blocks_for_tokens(s.computed)) fail(where + "a sequence holds fewer blocks than its KV");
  };
  for (const std::uint32_t slot : st.running()) {
    const sim::Sequence& s = st.seq(slot);
    if (s.state != sim::SeqState::running) {
      if (s.blocks() != 0) fail(where + "a sequence that left holds blocks");
      continue;
    }
    hold(s);
  }
  // Prefilled elsewhere: blocks reserved for the KV on its way, then kept while it waits for admission.
  for (const std::uint32_t slot : st.receiving()) {
    const sim::Sequence& s = st.seq(slot);
    if (s.state != sim::SeqState::receiving) fail(where + "a receiving sequence in another state");
    if (s.blocks() < kv.blocks_for_tokens(s.prefill_target)) fail(where + "a receiving sequence short of its prompt");
    hold(s);
  }
  for (const std::uint32_t slot : st.waiting()) {
    const sim::Sequence& s = st.seq(slot);
    if (s.remote_kv == sim::RemoteKv::arrived)
      hold(s);
    else if (s.blocks() != 0)
      fail(where + "a waiting sequence holds blocks");
  }
  if (held_private != kv.private_blocks()) fail(where + "private blocks != those the sequences hold");
  if (static_cast<std::int64_t>(refs.size()) != kv.cached_in_use_blocks())
    fail(where + "cached in-use blocks != those referenced");
  for (const auto& [e, n] : refs)
    if (kv.refcount(e) != n) fail(where + "a cached block's refcount != its references");
}

void InvariantProbe::on_run_end(const sim::Simulation& sim, const sim::Deployment& deployment,
                                const sim::RunStats& stats) {
  ended_ = true;
  drained_ = stats.end == sim::RunEnd::drained;
  end_clock_ = sim.now();
  for (std::uint32_t r = 0; r < deployment.replicas().size(); ++r) {
    const sim::Replica& rep = *deployment.replicas()[r];
    if (last_step_end_[r] > end_clock_) in_flight_prefill_ += last_step_prefill_[r];
    check_pool(r);
    const sim::ReplicaState& st = rep.state();
    for (const std::uint32_t slot : st.running())
      if (st.seq(slot).state == sim::SeqState::running) check_ledger(st.seq(slot), false);
    for (const std::uint32_t slot : st.waiting()) check_ledger(st.seq(slot), false);
    const sim::ReplicaTotals t = rep.totals();
    emitted_at_end_ += t.emitted_tokens;
    prefill_at_end_ += t.prefill_tokens;
    decode_positions_at_end_ += t.decode_positions;
    preemptions_ += static_cast<std::uint64_t>(t.preemptions);
    if (drained_ && (st.live_sequences() != 0 || st.kv().used_blocks() != 0))
      fail("replica " + std::to_string(r) + ": drained with requests or KV blocks still held");
  }
}

}  // namespace engramsim::testing

namespace engramsim::testing {

void InvariantProbe::check_result(const sim::RunResult& result, bool generated, std::uint64_t num_requests,
                                  bool has_horizon) {
  if (!ended_) return fail("the run never ended");
  const auto n = static_cast<std::uint64_t>(result.requests.size());
  if (n != arrivals_) fail(std::to_string(n) + " request records for " + std::to_string(arrivals_) + " arrivals");
  if (generated && !has_horizon && arrivals_ != num_requests)
    fail(std::to_string(arrivals_) + " arrivals of a workload of " + std::to_string(num_requests));
  if (num_requests > 0 && arrivals_ > num_requests) fail("more arrivals than the workload's request count");
  if (!has_horizon && !drained_) fail("a run without a horizon did not drain");
  std::int64_t finished = 0, rejected = 0, unfinished = 0, generated_tokens = 0, finished_output = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const sim::RequestRecord& r = result.requests[i];
    const std::string who = "record " + std::to_string(i) + ": ";
    if (r.id != i) fail(who + "ids are not 0..n-1 in order");
    generated_tokens += r.generated_tokens;
    if (r.arrival > end_clock_) fail(who + "arrives after the end of the run");
    switch (r.status) {
      case sim::RequestStatus::finished:
        ++finished;
        finished_output += r.output_tokens;
        if (r.generated_tokens != r.output_tokens) fail(who + "finished short of its output");
        if (!(r.arrival <= r.first_scheduled && r.first_scheduled <= r.first_token && r.first_token <= r.finish &&
              r.finish <= end_clock_))
          fail(who + "lifecycle times out of order");
        break;
      case sim::RequestStatus::rejected:
        ++rejected;
        if (r.generated_tokens != 0 || r.first_scheduled != Time::max()) fail(who + "rejected yet served");
        break;
      case sim::RequestStatus::unfinished:
        ++unfinished;
        if (r.generated_tokens >= r.output_tokens) fail(who + "unfinished with all its output");
        break;
    }
  }
  if (!has_horizon && unfinished != 0) fail("requests unfinished in a drained run");
  // Preemption and recompute: the replicas' count = the sequences' = the records' = the summary's.
  std::int64_t record_preemptions = 0, record_recomputed = 0, finished_recomputed = 0;
  for (const sim::RequestRecord& r : result.requests) {
    record_preemptions += r.preemptions;
    record_recomputed += r.recomputed_tokens;
    if (r.status == sim::RequestStatus::finished) finished_recomputed += r.recomputed_tokens;
    if (r.status == sim::RequestStatus::rejected && (r.preemptions != 0 || r.recomputed_tokens != 0))
      fail("record " + std::to_string(r.id) + ": rejected yet preempted");
  }
  if (static_cast<std::int64_t>(preemptions_) != ledger_preemptions_ || ledger_preemptions_ != record_preemptions ||
      result.summary.preemptions != record_preemptions)
    fail("preemptions: replicas " + std::to_string(preemptions_) + ", sequences " +
         std::to_string(ledger_preemptions_) + ", records " + std::to_string(record_preemptions) + ", summary " +
         std::to_string(result.summary.preemptions));
  if (record_recomputed != ledger_discarded_) fail("recomputed tokens of the records != those the sequences discarded");
  if (!result.summary.windowed && result.summary.recomputed_tokens != finished_recomputed)
    fail("the summary's recomputed tokens != the finished requests'");
  const sim::Summary& s = result.summary;
  if (s.completed != finished || s.rejected != rejected || s.unfinished != unfinished)
    fail("the summary's counts differ from the records'");
  if (s.total_output_tokens != finished_output) fail("the summary's output tokens != the finished requests' output");
  if (generated_tokens != emitted_at_end_ || generated_tokens != ledger_generated_)
    fail("tokens emitted (" + std::to_string(emitted_at_end_) + ") != generated over requests (" +
         std::to_string(generated_tokens) + ", ledger " + std::to_string(ledger_generated_) + ")");
  // A step still running when a horizon stops the run was counted when it started, not applied.
  if (ledger_prefill_ + in_flight_prefill_ != prefill_at_end_ || prefill_at_end_ != step_prefill_tokens_)
    fail("prefill tokens of the steps != those of the requests' ledgers");
  if (step_decode_positions_ != decode_positions_at_end_ || ledger_decode_ > decode_positions_at_end_)
    fail("decode tokens accepted exceed the positions stepped");
  // Throughput roofline: at most max_num_seqs sequences per step, each emitting at most 1 + draft
  // tokens, and no step shorter than min_step.
  const double draft = config_.replicas.empty() ? 0.0 : config_.replicas[0].spec.num_speculative_tokens;
  const double bound = static_cast<double>(config_.replicas.size()) * config_.scheduler.max_num_seqs * (1.0 + draft) /
                       bound_.min_step.seconds();
  if (s.duration_s > 0 && bound_.min_step > Time{} && s.output_throughput > bound * (1 + 1e-9))
    fail("output throughput " + std::to_string(s.output_throughput) + " tok/s above the roofline bound " +
         std::to_string(bound));
}

}  // namespace engramsim::testing
