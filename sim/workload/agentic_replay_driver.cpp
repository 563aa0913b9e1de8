#include "sim/workload/agentic_replay_driver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "sim/serving/event_priorities.hpp"

namespace engramsim::sim {
namespace {

constexpr std::uint64_t kGraceTag = UINT64_MAX;

std::size_t main_calls(const AgenticSession& s) {
  std::size_t n = 0;
  for (const auto& e : s.entries) n += std::holds_alternative<AgenticCall>(e) ? 1 : 0;
  return n;
}

// Entry index of the k-th main-agent call.
std::size_t entry_of_main(const AgenticSession& s, std::size_t k) {
  for (std::size_t i = 0; i < s.entries.size(); ++i) {
    if (!std::holds_alternative<AgenticCall>(s.entries[i])) continue;
    if (k == 0) return i;
    --k;
  }
  throw std::logic_error("AgenticReplayDriver: main call out of range");
}

Time recorded_end(const AgenticCall& c) { return c.start + c.api_time; }

}  // namespace

AgenticReplayDriver::AgenticReplayDriver(Simulation& sim, AgenticSourceFactory source, RequestSink& sink,
                                         const AgenticReplayParams& params)
    : sim_(sim), factory_(std::move(source)), sink_(sink), params_(params), rng_(sim.rng("agentic/start")) {
  if (params.lanes <= 0) throw ConfigError({}, "workload.concurrency", "must be positive");
  if (params.duration <= Time::zero()) throw ConfigError({}, "workload.duration", "must be > 0");
  if (params.warmup_requests < 0) throw ConfigError({}, "workload.warmup_requests", "must be >= 0");
  if (!(params.start_ratio_min >= 0.0 && params.start_ratio_min <= params.start_ratio_max &&
        params.start_ratio_max <= 1.0))
    throw ConfigError({}, "workload.start_ratio", "needs 0 <= min <= max <= 1");
  if (!factory_) throw ConfigError({}, "workload", "no session source");
  lanes_.resize(static_cast<std::size_t>(params.lanes));
}

// A zero grace means no warm-up at all: the window opens at once and the primers are measured.
void AgenticReplayDriver::start() {
  if (params_.grace == Time::zero())
    open_window();
  else
    sim_.schedule_at(params_.grace, event_priority::arrival, *this, kGraceTag);
  for (std::uint32_t i = 0; i < lanes_.size(); ++i) start_tree(i, true);
  if (!window_open_ && lanes_warm_ == params_.lanes && warmup_outstanding_ == 0) open_window();
}

bool AgenticReplayDriver::next_tree(AgenticSession& out) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!source_) {
      source_ = factory_();
      if (!source_) throw ConfigError({}, "workload", "the session source factory returned nothing");
      ++stats_.corpus_passes;
    }
    if (source_->next(out)) return true;
    source_.reset();
  }
  throw ConfigError({}, "workload", "the session source holds no sessions");
}

// A fresh use of the next tree. A recycled lane (or any use after the corpus's first pass) salts
// the tree's hash ids with a value unique to this use: the cache-bust marker on the first-turn
// prefix, which, hashes being chained, changes every block after it too. The lanes' first trees
// on the first pass keep the corpus's ids, so prefixes the corpus shares across sessions (client
// system prompts) can hit between them, as they do in the benchmark before any marker is added.
void AgenticReplayDriver::start_tree(std::uint32_t lane, bool sampled_start) {
  Lane& l = lanes_[lane];
  next_tree(l.tree);
  ++tree_uses_;
  ++stats_.trees_started;
  const bool bust = !sampled_start || stats_.corpus_passes > 1;
  l.salt = bust ? mix64(sim_.seed() ^ mix64(tree_uses_)) : 0;
  l.session = tree_uses_;
  l.cursor = 0;
  l.groups.clear();
  l.open_groups = 0;
  l.seen.clear();
  const std::size_t m = main_calls(l.tree);
  if (m == 0) throw ConfigError({}, "workload", "session " + l.tree.id + " has no main-agent call");
  if (sampled_start && m >= 2) {
    const double r = rng_.uniform(params_.start_ratio_min, params_.start_ratio_max);
    const auto k = std::clamp<std::size_t>(static_cast<std::size_t>(std::floor(r * static_cast<double>(m))), 1, m - 1);
    const std::size_t prime = entry_of_main(l.tree, k - 1);
    l.main_entry = prime;
    l.cursor = entry_of_main(l.tree, k);
    set_warmup_quota(l, params_.warmup_requests + 1);
    send_after(lane, kMain, std::get<AgenticCall>(l.tree.entries[prime]), Time::zero());
    return;
  }
  if (sampled_start) set_warmup_quota(l, params_.warmup_requests);
  // From entry 0, at once: the recorded start of the first entry is the reference.
  const AgenticEntry& first = l.tree.entries.front();
  const Time t0 = std::holds_alternative<AgenticCall>(first) ? std::get<AgenticCall>(first).start
                                                             : std::get<AgenticSubagent>(first).calls.front().start;
  launch_next(lane, t0);
}

Time AgenticReplayDriver::capped_gap(Time start, Time end) const {
  if (start <= end) return Time::zero();
  return std::min(start - end, params_.tree_idle_cap);
}

// What follows the end (recorded time `end`) of a main call or of a set of subagent groups.
void AgenticReplayDriver::launch_next(std::uint32_t lane, Time end) {
  Lane& l = lanes_[lane];
  const auto& entries = l.tree.entries;
  if (l.cursor >= entries.size()) {
    if (l.busy == 0 && !l.stopped) start_tree(lane, false);
    return;
  }
  if (const auto* call = std::get_if<AgenticCall>(&entries[l.cursor])) {
    l.main_entry = l.cursor++;
    send_after(lane, kMain, *call, capped_gap(call->start, end));
    return;
  }
  l.groups.clear();
  l.barrier_end = end;
  while (l.cursor < entries.size() && std::holds_alternative<AgenticSubagent>(entries[l.cursor])) {
    const auto& g = std::get<AgenticSubagent>(entries[l.cursor]);
    l.groups.push_back(Strand{l.cursor, 1});
    ++l.open_groups;
    send_after(lane, static_cast<std::int32_t>(l.groups.size() - 1), g.calls.front(),
               capped_gap(g.calls.front().start, end));
    ++l.cursor;
  }
}

void AgenticReplayDriver::set_warmup_quota(Lane& l, std::int64_t quota) {
  l.warmup_quota = quota;
  if (quota == 0) ++lanes_warm_;
}

// During the warm-up a call goes at once while its lane has warm-up requests left, and is held
// with its delay once they are used; in the window it goes after its delay.
void AgenticReplayDriver::send_after(std::uint32_t lane, std::int32_t strand, const AgenticCall& call, Time gap) {
  Lane& l = lanes_[lane];
  if (l.stopped) return;
  ++l.busy;
  if (window_open_) {
    schedule(lane, strand, call, sim_.now() + gap, false);
    return;
  }
  if (l.warmup_claimed >= l.warmup_quota) {
    held_.push_back(Held{lane, strand, &call, gap});
    return;
  }
  ++warmup_outstanding_;
  if (++l.warmup_claimed == l.warmup_quota) ++lanes_warm_;
  schedule(lane, strand, call, sim_.now(), true);
}

void AgenticReplayDriver::schedule(std::uint32_t lane, std::int32_t strand, const AgenticCall& call, Time due,
                                   bool warmup) {
  const std::uint32_t slot = pending_.acquire();
  Pending& p = pending_[slot];
  p.lane = lane;
  p.strand = strand;
  p.call = &call;
  p.due = due;
  ++p.gen;
  p.live = true;
  p.warmup = warmup;
  sim_.schedule_at(p.due, event_priority::arrival, *this, (static_cast<std::uint64_t>(p.gen) << 32) | slot);
}

void AgenticReplayDriver::on_event(std::uint64_t tag) {
  if (tag == kGraceTag) {
    if (!window_open_) open_window();
    return;
  }
  const auto slot = static_cast<std::uint32_t>(tag & 0xffffffffULL);
  Pending& p = pending_[slot];
  if (!p.live || p.gen != static_cast<std::uint32_t>(tag >> 32)) return;  // moved by cap_system_idle
  p.live = false;
  pending_.release(slot);
  Lane& l = lanes_[p.lane];
  if (window_open_ && sim_.now() >= stats_.window_end) {
    l.stopped = true;  // the window has closed: this lane sends nothing more
    --l.busy;
    return;
  }
  submit(p);
}

void AgenticReplayDriver::submit(Pending& p) {
  Lane& l = lanes_[p.lane];
  Request r = make_request(l, *p.call);
  if (p.warmup) r.output_tokens = 1;  // aiperf's warm-up sends max_tokens = 1
  r.measured = !p.warmup && window_open_ && sim_.now() < stats_.window_end;
  stats_.measured += r.measured ? 1 : 0;
  owners_.emplace(r.id, Owner{p.lane, p.strand, p.call, p.warmup});
  ++in_system_;
  sink_.submit(std::move(r));
}

// The salted hash ids, and the prefix an unbounded cache would hold: hashes are chained, so the
// hashes this tree use has already sent form a prefix of every later prompt's list that shares
// them; a binary search finds its end.
Request AgenticReplayDriver::make_request(Lane& l, const AgenticCall& call) {
  Request r;
  r.id = stats_.submitted++;
  r.arrival = sim_.now();
  r.prompt_tokens = call.input_tokens;
  r.output_tokens = call.output_tokens;
  r.session = l.session;
  r.hash_block_tokens = call.hash_ids.empty() ? 0 : l.tree.block_tokens;
  r.prefix_hashes.reserve(call.hash_ids.size());
  for (const std::uint64_t h : call.hash_ids) r.prefix_hashes.push_back(l.salt == 0 ? h : mix64(h ^ l.salt));
  std::size_t lo = 0, hi = r.prefix_hashes.size();  // first unseen index lies in [lo, hi]
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (l.seen.count(r.prefix_hashes[mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  for (std::size_t i = lo; i < r.prefix_hashes.size(); ++i) l.seen.insert(r.prefix_hashes[i]);
  const std::int64_t reusable = static_cast<std::int64_t>(lo) * r.hash_block_tokens;
  r.reusable_prompt_tokens = static_cast<std::int32_t>(std::min<std::int64_t>(reusable, r.prompt_tokens));
  return r;
}

void AgenticReplayDriver::on_request_done(const RequestRecord& record) {
  const auto it = owners_.find(record.id);
  if (it == owners_.end()) return;
  const Owner o = it->second;
  owners_.erase(it);
  --in_system_;
  --lanes_[o.lane].busy;
  if (o.warmup) --warmup_outstanding_;
  call_done(o);
  if (!window_open_ && lanes_warm_ == params_.lanes && warmup_outstanding_ == 0) open_window();
  if (in_system_ == 0) cap_system_idle();
}

void AgenticReplayDriver::call_done(const Owner& o) {
  Lane& l = lanes_[o.lane];
  if (o.strand == kMain) {
    launch_next(o.lane, recorded_end(*o.call));
    return;
  }
  Strand& s = l.groups[static_cast<std::size_t>(o.strand)];
  const auto& g = std::get<AgenticSubagent>(l.tree.entries[s.entry]);
  if (s.next_call < g.calls.size()) {
    const AgenticCall& next = g.calls[s.next_call++];
    send_after(o.lane, o.strand, next, capped_gap(next.start, recorded_end(*o.call)));
    return;
  }
  l.barrier_end = std::max(l.barrier_end, recorded_end(*o.call));
  if (--l.open_groups == 0) launch_next(o.lane, l.barrier_end);
}

// The held calls keep their delays less the shortest of them, so the first goes at once and the
// lanes keep their relative timing (aiperf subtracts one phase-wide minimum at the profiling start).
void AgenticReplayDriver::open_window() {
  window_open_ = true;
  stats_.window_start = sim_.now();
  stats_.window_end = sim_.now() + params_.duration;
  Time shortest = Time::max();
  for (const Held& h : held_) shortest = std::min(shortest, h.gap);
  for (const Held& h : held_) schedule(h.lane, h.strand, *h.call, sim_.now() + (h.gap - shortest), false);
  held_.clear();
}

// Nothing is in the system: if the earliest pending send is more than system_idle_cap away, every
// pending send moves earlier by the excess (relative timing between lanes is kept).
void AgenticReplayDriver::cap_system_idle() {
  Time earliest = Time::max();
  for (const Pending& p : pending_)
    if (p.live) earliest = std::min(earliest, p.due);
  if (earliest == Time::max() || earliest - sim_.now() <= params_.system_idle_cap) return;
  const Time skip = earliest - sim_.now() - params_.system_idle_cap;
  stats_.idle_skipped += skip;
  for (std::uint32_t slot = 0; slot < pending_.size(); ++slot) {
    Pending& p = pending_[slot];
    if (!p.live) continue;
    p.due -= skip;
    ++p.gen;
    sim_.schedule_at(p.due, event_priority::arrival, *this, (static_cast<std::uint64_t>(p.gen) << 32) | slot);
  }
}

}  // namespace engramsim::sim
