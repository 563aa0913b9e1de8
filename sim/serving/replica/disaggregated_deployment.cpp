#include "sim/serving/replica/disaggregated_deployment.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/error.hpp"
#include "sim/serving/event_priorities.hpp"

namespace engramsim::sim {
namespace {

constexpr std::uint64_t kInstant = UINT64_MAX;
constexpr std::uint64_t kSubmit = UINT64_MAX - 1;
constexpr std::uint64_t kLanded = UINT64_MAX - 2;

// Packs replicas of `gpus` GPUs each onto nodes of `node_gpus` GPUs from `cursor` on (a flat GPU
// index); a replica that does not fit the rest of a node starts on the next one.
std::vector<std::vector<fabric::GpuRef>> pack(const std::vector<int>& gpus, int node_gpus, int first_node,
                                              int& cursor) {
  if (node_gpus <= 0) throw std::invalid_argument("disaggregation: a node kind without GPUs");
  std::vector<std::vector<fabric::GpuRef>> out;
  for (const int g : gpus) {
    if (g <= 0) throw std::invalid_argument("disaggregation: a replica without GPUs");
    const int used = cursor % node_gpus;
    if (used != 0 && used + g > node_gpus) cursor += node_gpus - used;
    std::vector<fabric::GpuRef> ranks;
    for (int k = 0; k < g; ++k, ++cursor) ranks.push_back({first_node + cursor / node_gpus, cursor % node_gpus});
    out.push_back(std::move(ranks));
  }
  return out;
}

int nodes_used(int cursor, int node_gpus) { return (cursor + node_gpus - 1) / node_gpus; }

void add_nodes(ClusterPlacement& c, const PoolPlacement& pool, int count, int& domain_base) {
  const int per_domain = pool.domain_gpus > pool.node.gpu_count ? pool.domain_gpus / pool.node.gpu_count : 1;
  for (int n = 0; n < count; ++n) {
    c.nodes.push_back(pool.node);
    c.domains.push_back(domain_base + n / per_domain);
  }
  domain_base += (count + per_domain - 1) / per_domain;
}

}  // namespace

ClusterPlacement place_pools(const PoolPlacement& prefill, const std::vector<int>& prefill_gpus,
                             const PoolPlacement& decode, const std::vector<int>& decode_gpus) {
  ClusterPlacement c;
  int domain_base = 0;
  int cursor = 0;
  c.prefill = pack(prefill_gpus, prefill.node.gpu_count, 0, cursor);
  if (prefill.node_name == decode.node_name) {
    c.decode = pack(decode_gpus, prefill.node.gpu_count, 0, cursor);
    add_nodes(c, prefill, nodes_used(cursor, prefill.node.gpu_count), domain_base);
    return c;
  }
  const int prefill_nodes = nodes_used(cursor, prefill.node.gpu_count);
  add_nodes(c, prefill, prefill_nodes, domain_base);
  cursor = 0;
  c.decode = pack(decode_gpus, decode.node.gpu_count, prefill_nodes, cursor);
  add_nodes(c, decode, nodes_used(cursor, decode.node.gpu_count), domain_base);
  return c;
}

namespace {

std::vector<int> replica_gpus(const std::vector<ReplicaParams>& replicas) {
  std::vector<int> out;
  for (const auto& r : replicas) out.push_back(r.gpus);
  return out;
}

}  // namespace

DisaggregatedCluster build_disaggregated_cluster(const DisaggregationParams& params,
                                                 const std::vector<int>& decode_gpus) {
  DisaggregatedCluster c;
  c.placement =
      place_pools(params.transfer.prefill, replica_gpus(params.prefill_replicas), params.transfer.decode, decode_gpus);
  c.fabric = fabric::build_cluster_fabric(c.placement.nodes, c.placement.domains);
  return c;
}

DisaggregatedPrefill::DisaggregatedPrefill(Simulation& sim, const DisaggregationParams& params,
                                           const SchedulerRegistry& schedulers, std::unique_ptr<Router> router,
                                           const DisaggregatedCluster& cluster, fabric::SharedFabric& fabric)
    : sim_(sim),
      transfer_(params.transfer),
      local_threshold_(params.local_prefill_threshold),
      router_(std::move(router)),
      placement_(cluster.placement),
      cluster_(cluster.fabric),
      fabric_(fabric) {
  if (params.prefill_replicas.empty())
    throw ConfigError({}, "deployment.prefill", "a disaggregated deployment needs at least one prefill replica");
  if (!router_) throw ConfigError({}, "deployment.prefill.router", "missing");
  observers_.push_back(this);
  for (std::size_t i = 0; i < params.prefill_replicas.size(); ++i) {
    ReplicaParams p = params.prefill_replicas[i];
    if (p.name.empty()) p.name = "prefill" + std::to_string(i);
    p.hold_finished_kv = true;  // until the decode side has the KV
    replicas_.push_back(std::make_unique<Replica>(sim, static_cast<std::uint32_t>(i), p,
                                                  schedulers.create(params.prefill_scheduler), observers_));
  }
  loads_.resize(replicas_.size());
  totals_.prefill_replicas = static_cast<std::int32_t>(replicas_.size());
  for (const auto& r : replicas_) totals_.prefill_gpus += r->gpus();
  for (const auto& ranks : placement_.decode) totals_.decode_gpus += static_cast<std::int32_t>(ranks.size());
}

void DisaggregatedPrefill::connect(Deliver deliver, Reject reject) {
  deliver_ = std::move(deliver);
  reject_ = std::move(reject);
}

bool DisaggregatedPrefill::prefill_locally(const Replica& decode, const Request& request) {
  if (local_threshold_ <= 0) return false;
  const std::int64_t uncached = request.prompt_tokens - decode.state().gpu_prefix_hit_tokens(request);
  if (uncached > local_threshold_) return false;
  ++totals_.local_prefills;
  return true;
}

void DisaggregatedPrefill::prefill(const Request& request, std::size_t target) {
  for (std::size_t i = 0; i < replicas_.size(); ++i) loads_[i] = replicas_[i]->load();
  const std::size_t p = router_->route(request, loads_);
  pending_[request.id] = Pending{request, target, p};
  Request one = request;
  one.output_tokens = 1;  // the prefill runs the prompt and samples one token
  if (transfer_.send == KvSend::after_prefill || !replicas_[p]->accepts(one)) {
    ++totals_.remote_prefills;
    replicas_[p]->submit(std::move(one));  // a refusal comes back through on_request_done
    return;
  }
  // per_chunk: the decode side reserves first; the prefill starts after that (reserved_before_prefill).
  pending_[request.id].delivered = sim_.now();
  Request r = request;
  r.prefilled_elsewhere = true;
  if (!deliver_(target, std::move(r))) pending_.erase(request.id);  // refused there: never prefilled
}

void DisaggregatedPrefill::on_request_done(const RequestRecord& record) {
  auto it = pending_.find(record.id);
  if (it == pending_.end()) throw std::logic_error("disaggregation: a prefill finished that was never sent");
  router_->on_finished(record.session, record.replica);
  totals_.prefill_prompt_tokens += record.prompt_tokens;
  totals_.prefill_cached_tokens += record.cached_prompt_tokens;
  if (record.status != RequestStatus::finished) {
    if (it->second.transfer != kNoTransfer) throw std::logic_error("disaggregation: a reserved prefill was refused");
    RequestRecord r = record;
    r.output_tokens = it->second.request.output_tokens;
    r.replica = static_cast<std::uint32_t>(it->second.target);
    r.first_token = r.finish = Time::max();
    r.generated_tokens = 0;
    pending_.erase(it);
    reject_(r);
    return;
  }
  if (it->second.transfer != kNoTransfer) {
    prefill_done_after_reservation(record, it->second);
    pending_.erase(it);
    return;
  }
  if (record.measured) {
    ++totals_.measured_remote;
    totals_.measured_prefill_queue += record.first_scheduled - record.arrival;
    totals_.measured_prefill += record.first_token - record.first_scheduled;
  }
  it->second.delivered = sim_.now();
  Request r = it->second.request;
  r.prefilled_elsewhere = true;
  if (deliver_(it->second.target, std::move(r))) return;
  replicas_[it->second.prefill_replica]->release_kv(record.id);  // refused there: nothing to read
  pending_.erase(it);
}

void DisaggregatedPrefill::prefill_done_after_reservation(const RequestRecord& record, Pending& p) {
  if (record.measured) {
    ++totals_.measured_remote;
    totals_.measured_prefill_queue += record.first_scheduled - p.submitted;
    totals_.measured_prefill += record.first_token - record.first_scheduled;
  }
  const std::int64_t left = std::int64_t{p.request.prompt_tokens} - std::max(p.sent, p.send_from);
  if (left > 0) start_flows(p, transfers_.at(p.transfer).replica->index(), left, p.transfer, sim_.now());
  Transfer& t = transfers_.at(p.transfer);
  t.prefilling = false;
  t.start = sim_.now();  // what outlasts the prefill
  finish_when_landed(p.transfer);
}

void DisaggregatedPrefill::on_prompt_progress(std::uint32_t replica, const Sequence& sequence) {
  auto it = pending_.find(sequence.request.id);
  if (it == pending_.end() || it->second.transfer == kNoTransfer) return;
  Pending& p = it->second;
  if (p.prefill_replica != replica) throw std::logic_error("disaggregation: progress from another prefill replica");
  const std::int64_t from = std::max(p.sent, p.send_from);
  const std::int64_t upto = std::min<std::int64_t>(sequence.computed, p.request.prompt_tokens);
  if (upto <= from) return;
  start_flows(p, transfers_.at(p.transfer).replica->index(), upto - from, p.transfer, sim_.now());
  p.sent = upto;
}

void DisaggregatedPrefill::on_kv_reserved(Replica& replica, std::uint32_t slot, const Request& request,
                                          std::int64_t tokens) {
  auto it = pending_.find(request.id);
  if (it == pending_.end()) throw std::logic_error("disaggregation: KV reserved for a request never prefilled");
  if (request.measured) totals_.measured_decode_queue += sim_.now() - it->second.delivered;
  if (transfer_.send == KvSend::per_chunk) {
    reserved_before_prefill(replica, slot, it->second, tokens);
    return;
  }
  reserved_after_prefill(replica, slot, it->second, tokens);
  pending_.erase(it);
}

void DisaggregatedPrefill::reserved_after_prefill(Replica& replica, std::uint32_t slot, Pending& p,
                                                  std::int64_t tokens) {
  const std::uint64_t id = next_transfer_++;
  transfers_[id] =
      Transfer{&replica, slot, 0, sim_.now(), p.request.measured, false, false, p.prefill_replica, p.request.id};
  if (tokens > 0) start_flows(p, replica.index(), tokens, id, sim_.now() + transfer_.setup);
  finish_when_landed(id);
}

void DisaggregatedPrefill::reserved_before_prefill(Replica& replica, std::uint32_t slot, Pending& p,
                                                   std::int64_t tokens) {
  const std::uint64_t id = next_transfer_++;
  transfers_[id] =
      Transfer{&replica, slot, 0, sim_.now(), p.request.measured, true, false, p.prefill_replica, p.request.id};
  p.transfer = id;
  p.send_from = std::int64_t{p.request.prompt_tokens} - tokens;
  p.sent = p.send_from;
  // The bootstrap handshake, then the prefill replica takes the prompt (at an event: never from
  // inside the decode replica's step).
  submissions_.emplace(sim_.now() + transfer_.setup, p.request.id);
  sim_.schedule_at(sim_.now() + transfer_.setup, event_priority::fabric, *this, kSubmit);
}

void DisaggregatedPrefill::submit_due() {
  while (!submissions_.empty() && submissions_.begin()->first <= sim_.now()) {
    Pending& p = pending_.at(submissions_.begin()->second);
    submissions_.erase(submissions_.begin());
    p.submitted = sim_.now();
    Request one = p.request;
    one.output_tokens = 1;
    ++totals_.remote_prefills;
    replicas_[p.prefill_replica]->submit(std::move(one));
  }
}

void DisaggregatedPrefill::finish_when_landed(std::uint64_t id) {
  const Transfer& t = transfers_.at(id);
  if (t.flows_left > 0 || t.prefilling) return;
  instant_.push_back(id);
  sim_.schedule_at(sim_.now(), event_priority::fabric, *this, kInstant);
}

void DisaggregatedPrefill::start_flows(const Pending& p, std::size_t decode_replica, std::int64_t tokens,
                                       std::uint64_t transfer, Time start) {
  const auto& src = placement_.prefill.at(p.prefill_replica);
  const auto& dst = placement_.decode.at(decode_replica);
  const int src_ranks = std::min<int>(transfer_.prefill.kv_ranks, static_cast<int>(src.size()));
  const int dst_ranks = std::min<int>(transfer_.decode.kv_ranks, static_cast<int>(dst.size()));
  // Under data-parallel attention (one KV rank) the request lives on one rank of each replica.
  const auto src_base = static_cast<int>(src_ranks == 1 ? p.request.id % src.size() : 0);
  const auto dst_base = static_cast<int>(dst_ranks == 1 ? p.request.id % dst.size() : 0);
  // KV split by heads on either side is resharded by head overlap (one rank holding all of it is
  // both layouts at once).
  const bool sharded = transfer_.prefill.layout == KvLayout::sharded || transfer_.decode.layout == KvLayout::sharded;
  const KvLayout layout = sharded ? KvLayout::sharded : KvLayout::replicated;
  Transfer& t = transfers_[transfer];
  for (const KvRankFlow& f : kv_transfer_flows(tokens, transfer_.bytes_per_token, layout, src_ranks, dst_ranks)) {
    const fabric::GpuRef a = src[static_cast<std::size_t>(src_base + f.prefill_rank)];
    const fabric::GpuRef b = dst[static_cast<std::size_t>(dst_base + f.decode_rank)];
    const fabric::RouteId route = cluster_.gpu_route(a, b);
    if (route == fabric::kNoRoute) throw std::logic_error("disaggregation: a KV transfer between one GPU and itself");
    const fabric::FlowId flow = fabric_.start_flow({route, f.bytes, start, std::nullopt}, *this);
    flow_transfer_[flow] = transfer;
    ++t.flows_left;
    totals_.transferred += f.bytes;
  }
  if (t.flows_left > 0 && !t.counted) {
    t.counted = true;
    ++totals_.transfers;
  }
}

void DisaggregatedPrefill::on_flow_done(const fabric::FlowCompletion& c) {
  if (landed_.empty()) sim_.schedule_at(sim_.now(), event_priority::fabric, *this, kLanded);
  landed_.push_back(c.id);
}

void DisaggregatedPrefill::land_flows() {
  std::vector<fabric::FlowId> landed;
  landed.swap(landed_);
  for (const fabric::FlowId flow : landed) {
    auto f = flow_transfer_.find(flow);
    const std::uint64_t id = f->second;
    flow_transfer_.erase(f);
    Transfer& t = transfers_.at(id);
    if (--t.flows_left == 0 && !t.prefilling) finish_transfer(id);
  }
}

void DisaggregatedPrefill::on_event(std::uint64_t tag) {
  if (tag == kSubmit) {
    submit_due();
    return;
  }
  if (tag == kInstant) {
    std::vector<std::uint64_t> done;
    done.swap(instant_);
    for (const std::uint64_t id : done) finish_transfer(id);
    return;
  }
  if (tag == kLanded) land_flows();
}

void DisaggregatedPrefill::finish_transfer(std::uint64_t id) {
  auto it = transfers_.find(id);
  const Transfer t = it->second;
  transfers_.erase(it);
  totals_.transfer_time += sim_.now() - t.start;
  if (t.measured) totals_.measured_transfer += sim_.now() - t.start;
  replicas_[t.prefill_replica]->release_kv(t.request);
  t.replica->receive_kv(t.slot);
}

DisaggregationTotals DisaggregatedPrefill::totals() const {
  DisaggregationTotals t = totals_;
  for (const auto& r : replicas_) t.prefill_busy += r->totals().busy;
  return t;
}

void DisaggregatedPrefill::collect_unfinished(std::vector<RequestRecord>& out) const {
  // per_chunk: every request the prefill pool holds also sits on its decode replica, which reports it.
  if (transfer_.send == KvSend::per_chunk) return;
  std::vector<RequestRecord> mine;
  for (const auto& r : replicas_) r->collect_unfinished(mine);
  for (RequestRecord& rec : mine) {
    const Pending& p = pending_.at(rec.id);
    rec.output_tokens = p.request.output_tokens;
    rec.replica = static_cast<std::uint32_t>(p.target);
    rec.first_token = Time::max();
    rec.generated_tokens = 0;
    out.push_back(rec);
  }
}

}  // namespace engramsim::sim
