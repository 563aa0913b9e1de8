#include "sim/fabric/native_fabric.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace engramsim::fabric {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// Flows whose remaining bytes would take less than this at their current rate complete together
// with the flow that triggered the event: in exact arithmetic they finish at the same instant.
constexpr double kSimultaneousS = 1e-12;
// Progress counters are rebased past this many bytes so that small flows keep their precision
// (a double has ~1e-4 byte resolution at 2^40).
constexpr double kRebaseBytes = 1099511627776.0;
// Solves remembered. The look-ahead and the advance that follows it revisit the same few states.
constexpr std::size_t kMemoSize = 32;

bool heap_after(const auto& a, const auto& b) { return a.done_at != b.done_at ? a.done_at > b.done_at : a.id > b.id; }

std::vector<double> capacities_of(const FabricTopology& topology) {
  std::vector<double> caps;
  caps.reserve(topology.resource_count());
  for (const Resource& r : topology.resources()) caps.push_back(r.capacity.value());
  return caps;
}

}  // namespace

NativeFabric::NativeFabric(FabricTopology topology)
    : topology_(std::move(topology)), solver_(capacities_of(topology_)) {}

std::uint32_t NativeFabric::class_for(RouteId route, double bound) {
  const auto [it, inserted] = class_index_.try_emplace({route, bound}, static_cast<std::uint32_t>(classes_.size()));
  if (inserted) classes_.push_back(FlowClass{route, bound, 0.0, 0.0, {}});
  return it->second;
}

FlowId NativeFabric::start_flow(const FlowSpec& spec) {
  validate_flow_spec(topology_, now_, spec);
  const std::uint32_t cls = class_for(spec.route, spec.rate_bound ? spec.rate_bound->value() : kInf);
  const FlowId id = next_id_++;
  PendingGroup& group = pending_[{spec.start + topology_.route(spec.route).latency, cls}];
  const double size = spec.size.value();
  group.min_size = group.flows.empty() ? size : std::min(group.min_size, size);
  group.flows.push_back(PendingFlow{id, spec.start, size});
  ++pending_flows_;
  next_valid_ = false;
  return id;
}

void NativeFabric::solve_for(const std::vector<std::uint32_t>& classes, const std::vector<double>& counts) {
  key_.clear();
  std::uint64_t hash = 1469598103934665603ull;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    key_.emplace_back(classes[i], static_cast<std::uint32_t>(counts[i]));
    hash = (hash ^ ((static_cast<std::uint64_t>(classes[i]) << 32) | key_.back().second)) * 1099511628211ull;
  }
  for (const MemoEntry& e : memo_)
    if (e.hash == hash && e.key == key_) {
      solved_ = e.rates;
      ++stats_.memo_hits;
      return;
    }

  demands_.clear();
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const FlowClass& k = classes_[classes[i]];
    demands_.push_back(FlowClassDemand{topology_.route(k.route).hops, counts[i], k.bound});
  }
  solved_.resize(classes.size());
  solver_.solve(demands_, solved_);
  ++stats_.solves;

  if (memo_.size() < kMemoSize) memo_.emplace_back();
  MemoEntry& slot = memo_[memo_next_];
  memo_next_ = (memo_next_ + 1) % kMemoSize;
  slot.hash = hash;
  slot.key = key_;
  slot.rates = solved_;
}

void NativeFabric::ensure_rates() {
  if (!rates_dirty_) return;
  counts_.clear();
  for (const std::uint32_t c : active_) counts_.push_back(static_cast<double>(classes_[c].heap.size()));
  solve_for(active_, counts_);
  for (std::size_t i = 0; i < active_.size(); ++i) classes_[active_[i]].rate = solved_[i];
  rates_dirty_ = false;
}

std::uint32_t NativeFabric::earliest_completion(double& when) const {
  when = kInf;
  std::uint32_t best = kNone;
  for (const std::uint32_t c : active_) {
    const FlowClass& k = classes_[c];
    const double t = clock_s_ + (k.heap.front().done_at - k.progress) / k.rate;
    if (t < when) {
      when = t;
      best = c;
    }
  }
  return best;
}

void NativeFabric::progress_to(double t) {
  if (!(t > clock_s_)) return;
  const double dt = t - clock_s_;
  for (const std::uint32_t c : active_) classes_[c].progress += classes_[c].rate * dt;
  clock_s_ = t;
}

void NativeFabric::activate_group(std::uint32_t cls, const PendingGroup& group) {
  FlowClass& k = classes_[cls];
  if (k.heap.empty()) {
    k.progress = 0.0;
    active_.push_back(cls);  // advance_to re-sorts once per activation batch
  } else if (k.progress > kRebaseBytes) {
    for (Member& m : k.heap) m.done_at -= k.progress;  // a uniform shift keeps the heap valid
    k.progress = 0.0;
  }
  for (const PendingFlow& p : group.flows) {
    k.heap.push_back(Member{k.progress + p.size, p.id, p.start});
    std::push_heap(k.heap.begin(), k.heap.end(), [](const Member& a, const Member& b) { return heap_after(a, b); });
  }
  active_flows_ += group.flows.size();
  pending_flows_ -= group.flows.size();
  rates_dirty_ = true;
}

void NativeFabric::complete_due(std::uint32_t trigger, Time finish, std::vector<FlowCompletion>& out) {
  const auto after = [](const Member& a, const Member& b) { return heap_after(a, b); };
  for (std::size_t i = 0; i < active_.size();) {
    FlowClass& k = classes_[active_[i]];
    bool force = active_[i] == trigger;  // guarantees progress whatever the rounding
    while (!k.heap.empty() && (force || k.heap.front().done_at - k.progress <= k.rate * kSimultaneousS)) {
      force = false;
      std::pop_heap(k.heap.begin(), k.heap.end(), after);
      out.push_back(FlowCompletion{k.heap.back().id, k.heap.back().start, finish});
      k.heap.pop_back();
      --active_flows_;
    }
    if (k.heap.empty()) {
      k.progress = 0.0;
      k.rate = 0.0;
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  rates_dirty_ = true;
}

std::vector<FlowCompletion> NativeFabric::advance_to(Time t) {
  if (t < now_) throw std::invalid_argument("fabric: advance_to(" + to_string(t) + ") before now " + to_string(now_));
  std::vector<FlowCompletion> out;
  for (;;) {
    ensure_rates();
    double tc = kInf;
    const std::uint32_t cc = earliest_completion(tc);
    if (!pending_.empty() && pending_.begin()->first.first.seconds() <= tc) {
      const Time ta = pending_.begin()->first.first;
      if (ta > t) break;
      progress_to(ta.seconds());
      while (!pending_.empty() && pending_.begin()->first.first == ta) {
        activate_group(pending_.begin()->first.second, pending_.begin()->second);
        pending_.erase(pending_.begin());
      }
      std::sort(active_.begin(), active_.end());
      ++stats_.events;
      continue;
    }
    if (cc == kNone) break;
    const Time finish = ceil_to_ns(tc);
    if (finish > t) break;
    progress_to(tc);
    complete_due(cc, finish, out);
    ++stats_.events;
  }
  progress_to(t.seconds());
  now_ = t;
  next_valid_ = false;
  sort_completions(out);
  return out;
}

Time NativeFabric::next_completion_time() {
  if (next_valid_) return next_cached_;
  ++stats_.lookaheads;
  ensure_rates();
  // Look-ahead state, dense over all classes: flow count, progress, rate and smallest done_at,
  // plus the list of classes with flows. It mirrors advance_to's arithmetic step for step so that
  // the time it predicts is the time advance_to will find.
  const std::size_t n = classes_.size();
  la_counts_.assign(n, 0.0);
  la_progress_.assign(n, 0.0);
  la_rate_.assign(n, 0.0);
  la_first_done_.assign(n, kInf);
  la_classes_ = active_;
  for (const std::uint32_t c : active_) {
    const FlowClass& k = classes_[c];
    la_counts_[c] = static_cast<double>(k.heap.size());
    la_progress_[c] = k.progress;
    la_rate_[c] = k.rate;
    la_first_done_[c] = k.heap.front().done_at;
  }
  double clock = clock_s_;
  auto it = pending_.begin();
  Time result = Time::max();
  for (;;) {
    double tc = kInf;
    for (const std::uint32_t c : la_classes_)
      tc = std::min(tc, clock + (la_first_done_[c] - la_progress_[c]) / la_rate_[c]);
    if (it == pending_.end() || it->first.first.seconds() > tc) {
      if (tc < kInf) result = ceil_to_ns(tc);
      break;
    }
    const Time ta = it->first.first;
    if (ta.seconds() > clock) {
      const double dt = ta.seconds() - clock;
      for (const std::uint32_t c : la_classes_) la_progress_[c] += la_rate_[c] * dt;
      clock = ta.seconds();
    }
    for (; it != pending_.end() && it->first.first == ta; ++it) {
      const std::uint32_t c = it->first.second;
      if (la_counts_[c] == 0.0) la_classes_.push_back(c);  // progress is 0 and first_done inf already
      la_counts_[c] += static_cast<double>(it->second.flows.size());
      la_first_done_[c] = std::min(la_first_done_[c], la_progress_[c] + it->second.min_size);
    }
    std::sort(la_classes_.begin(), la_classes_.end());
    counts_.clear();
    for (const std::uint32_t c : la_classes_) counts_.push_back(la_counts_[c]);
    solve_for(la_classes_, counts_);
    for (std::size_t i = 0; i < la_classes_.size(); ++i) la_rate_[la_classes_[i]] = solved_[i];
  }
  next_cached_ = result;
  next_valid_ = true;
  return result;
}

double NativeFabric::current_rate(FlowId id) {
  ensure_rates();
  for (const std::uint32_t c : active_)
    for (const Member& m : classes_[c].heap)
      if (m.id == id) return classes_[c].rate;
  return 0.0;
}

}  // namespace engramsim::fabric
