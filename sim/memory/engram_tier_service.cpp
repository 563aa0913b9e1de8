#include "sim/memory/engram_tier_service.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace engramsim {
namespace {

// Cache keys: the Engram layer in the top bits, the row (or page) below; rows stay far below 2^48.
std::uint64_t key_of(std::size_t layer, std::uint64_t id) { return (static_cast<std::uint64_t>(layer) << 48) | id; }

// GPUs of a node in placement order: ordinal order, or round-robin over the switch groups.
std::vector<int> gpu_order(const fabric::NodeFabricParams& node, bool spread) {
  std::vector<int> order;
  if (!spread || node.gpu_groups.empty()) {
    for (int g = 0; g < node.gpu_count; ++g) order.push_back(g);
    return order;
  }
  std::size_t depth = 0;
  for (const auto& group : node.gpu_groups) depth = std::max(depth, group.size());
  for (std::size_t i = 0; i < depth; ++i)
    for (const auto& group : node.gpu_groups)
      if (i < group.size()) order.push_back(group[i]);
  return order;
}

}  // namespace

const char* to_string(HotRowPolicy policy) { return kHotRowPolicyNames.name(policy); }

std::optional<HotRowPolicy> hot_row_policy_from(std::string_view name) { return kHotRowPolicyNames.parse(name); }

EngramTierService::EngramTierService(const EngramTierParams& params) : p_(params) {
  check_params();
  if (p_.node.gpu_count < 1) throw std::invalid_argument("engram tier: the node has no GPUs");
  fabric::FabricRegistry registry;
  fabric::register_builtin_fabrics(registry);
  const int gpus = p_.replicas * p_.tp;
  const int per_node = p_.node.gpu_count;
  const int node_count = (gpus + per_node - 1) / per_node;
  for (int n = 0; n < node_count; ++n) {
    fabric::NodeFabric nf = fabric::build_node_fabric(p_.node);
    Node node;
    node.own = registry.create(p_.backend, std::move(nf.topology), p_.fabric_options);
    node.routes = std::move(nf);
    nodes_.push_back(std::move(node));
  }
  const std::vector<int> order = gpu_order(p_.node, p_.spread);
  placement_.resize(static_cast<std::size_t>(p_.replicas));
  for (int r = 0; r < p_.replicas; ++r)
    for (int k = 0; k < p_.tp; ++k) {
      const int global = r * p_.tp + k;
      placement_[static_cast<std::size_t>(r)].emplace_back(global / per_node,
                                                           order[static_cast<std::size_t>(global % per_node)]);
    }
  report_.nodes = node_count;
  build_caches();
}

EngramTierService::EngramTierService(const EngramTierParams& params, EngramTierOnCluster cluster)
    : p_(params), cluster_(std::move(cluster)) {
  check_params();
  if (cluster_.fabric == nullptr || cluster_.owner == nullptr)
    throw std::invalid_argument("engram tier: a shared fabric needs the fabric and the owner of the tier's flows");
  if (cluster_.replicas.size() != static_cast<std::size_t>(p_.replicas))
    throw std::invalid_argument("engram tier: the cluster places another number of replicas");
  std::vector<bool> used(cluster_.nodes.size(), false);
  for (const auto& ranks : cluster_.replicas) {
    if (ranks.size() != static_cast<std::size_t>(p_.tp))
      throw std::invalid_argument("engram tier: a replica placed with another number of ranks than tp");
    std::vector<std::pair<int, int>> at;
    for (const fabric::GpuRef g : ranks) {
      if (g.node < 0 || static_cast<std::size_t>(g.node) >= cluster_.nodes.size() || g.gpu < 0 ||
          static_cast<std::size_t>(g.gpu) >= cluster_.nodes[static_cast<std::size_t>(g.node)].dram_to_gpu.size())
        throw std::invalid_argument("engram tier: a rank placed on a GPU the cluster lacks");
      used[static_cast<std::size_t>(g.node)] = true;
      at.emplace_back(g.node, g.gpu);
    }
    placement_.push_back(std::move(at));
  }
  for (const fabric::NodeRoutes& routes : cluster_.nodes) nodes_.push_back(Node{routes, nullptr, {}, 0});
  report_.nodes = static_cast<int>(std::count(used.begin(), used.end(), true));
  build_caches();
}

void EngramTierService::check_params() const {
  if (p_.tier == EngramTier::hbm) throw std::invalid_argument("engram tier: the hbm tier has nothing to fetch in-run");
  if (p_.tp < 1 || p_.replicas < 1) throw std::invalid_argument("engram tier: tp and replicas must be >= 1");
  if (!(p_.row_bytes.value() > 0.0) || !(p_.page.value() > 0.0))
    throw std::invalid_argument("engram tier: row and page sizes must be > 0");
  if (!(p_.uva_efficiency > 0.0 && p_.uva_efficiency <= 1.0))
    throw std::invalid_argument("engram tier: uva_efficiency must be in (0, 1]");
  if (p_.sample_rows_per_step < 1) throw std::invalid_argument("engram tier: sample_rows_per_step must be >= 1");
  if (p_.tier == EngramTier::ssd && p_.node.drive_count < 1)
    throw std::invalid_argument("engram tier: the ssd tier needs NVMe drives in the node");
  if (p_.hbm_policy == HotRowPolicy::static_top && p_.access.model != AccessModel::zipf)
    throw ConfigError({}, "deployment.engram.hbm_cache.policy",
                      "a static hot-row set needs row popularity ranks: access model zipf");
}

// The row caches, sampling and per-replica state, once the placement is known.
void EngramTierService::build_caches() {
  const bool hbm_static = p_.hbm_policy == HotRowPolicy::static_top;

  const double hbm_rows = std::floor(p_.hbm_cache.value() / p_.tp / p_.row_bytes.value());
  const double dram_pages =
      p_.tier == EngramTier::ssd ? std::floor(p_.dram_cache.value() / p_.tp / p_.page.value()) : 0.0;
  sampled_ = p_.always_sample || hbm_rows >= 1.0 || dram_pages >= 1.0 || p_.access.model != AccessModel::zipf;
  // Built in any case: it validates the model name and the table shape.
  access_ = make_engram_access(p_.access, p_.shape);

  if (p_.tier == EngramTier::ssd && p_.node.drive.latency > Time::zero())
    ssd_bound_ = p_.ssd_queue_depth * p_.page.value() / p_.node.drive.latency.seconds();

  replicas_.resize(static_cast<std::size_t>(p_.replicas));
  for (int r = 0; r < p_.replicas; ++r) {
    ReplicaEngramWork& s = replicas_[static_cast<std::size_t>(r)];
    const auto limit = static_cast<double>(std::max<std::uint64_t>(1, p_.max_cache_entries));
    if (hbm_rows >= 1.0 && hbm_static) {
      s.hbm_static_rank = static_cast<std::int64_t>(hbm_rows) / p_.shape.subtables_per_rank;
    } else if (hbm_rows >= 1.0) {
      double entries = hbm_rows;
      // The text model's keys are bounded by its rows; zipf caches beyond the limit are sampled.
      if (hbm_rows > limit && p_.access.model == AccessModel::zipf) {
        s.hbm_rate = limit / hbm_rows;
        entries = limit;
      }
      const RowCachePolicy learn = p_.hbm_policy == HotRowPolicy::lru ? RowCachePolicy::lru : RowCachePolicy::lfu;
      s.hbm = make_row_cache(learn, static_cast<std::uint64_t>(std::max(1.0, std::floor(entries))));
    }
    if (dram_pages >= 1.0) {
      if (p_.access.model == AccessModel::zipf) s.dram_rate = std::min(1.0, limit / dram_pages);
      s.dram = make_row_cache(p_.dram_policy,
                              static_cast<std::uint64_t>(std::max(1.0, std::floor(dram_pages * s.dram_rate))));
    }
    s.rng = RngStream(p_.seed, "engram_tier/" + std::to_string(r));
    s.ranks.resize(static_cast<std::size_t>(p_.tp));
  }
  report_.backend = cluster_.fabric != nullptr ? std::string(cluster_.fabric->fabric().backend()) : p_.backend;
}

const fabric::FabricTopology& EngramTierService::topology(int node) const { return fabric(node).topology(); }

const fabric::Fabric& EngramTierService::fabric(int node) const {
  if (cluster_.fabric != nullptr) return cluster_.fabric->fabric();
  return *nodes_.at(static_cast<std::size_t>(node)).own;
}

bool EngramTierService::cache_access(RowCache& cache, double rate, RunningRatio& running, std::uint64_t key,
                                     std::uint64_t step, std::uint64_t salt) const {
  if (rate >= 1.0) return cache.access(key);
  constexpr double kUnit = 1.0 / 9007199254740992.0;  // 2^-53
  if (static_cast<double>(hash64(key ^ salt) >> 11) * kUnit < rate) {
    const bool hit = cache.access(key);
    running.add(hit);
    return hit;
  }
  return static_cast<double>(hash64(key ^ hash64(step ^ ~salt)) >> 11) * kUnit < running.ratio();
}

std::pair<int, int> EngramTierService::gpu_of(std::uint32_t replica, int rank) const {
  return placement_.at(replica).at(static_cast<std::size_t>(rank));
}

// The step's row keys of one Engram layer into keys_: every position and sub-table, or a sample
// of them within the row budget (whole sub-tables in turn, then evenly strided positions with a
// random phase). Returns the positions sampled; `all` is the step's lookups of one rank.
std::int64_t EngramTierService::sample_keys(ReplicaEngramWork& r, std::size_t e, const EngramLayerStep& layer,
                                            std::span<const EngramSeqSpan> seqs, std::int64_t positions, double all) {
  const int k = p_.shape.subtables_per_rank;
  const auto budget = p_.sample_rows_per_step;
  keys_.clear();
  int first_sub = 0, subs = k;
  std::int64_t sample_positions = positions;
  if (all > static_cast<double>(budget)) {
    if (positions <= budget) {
      subs = static_cast<int>(std::max<std::int64_t>(1, budget / positions));
      first_sub = static_cast<int>((r.steps * static_cast<std::uint64_t>(subs)) % static_cast<std::uint64_t>(k));
    } else {
      subs = 1;
      first_sub = static_cast<int>(r.steps % static_cast<std::uint64_t>(k));
      sample_positions = budget;
    }
  }
  const double stride = static_cast<double>(positions) / static_cast<double>(sample_positions);
  const double phase = sample_positions < positions ? r.rng.uniform01() : 0.0;
  std::int64_t next_index = 0;  // index among the step's positions of the next sample
  std::int64_t taken = 0;
  std::int64_t base = 0;  // positions before the current span
  for (const EngramSeqSpan& s : seqs) {
    if (s.prompt && !layer.sees_prompt) continue;
    while (taken < sample_positions) {
      next_index = sample_positions < positions
                       ? std::min<std::int64_t>(
                             positions - 1, static_cast<std::int64_t>((static_cast<double>(taken) + phase) * stride))
                       : taken;
      if (next_index >= base + s.count) break;
      const std::int64_t pos = s.first + (next_index - base);
      for (int j = 0; j < subs; ++j) {
        const int sub = (first_sub + j) % k;
        const std::int64_t row = access_->row(static_cast<int>(e), sub, s.request, pos, r.rng);
        keys_.push_back(key_of(e, static_cast<std::uint64_t>(row)));
      }
      ++taken;
    }
    base += s.count;
  }
  return sample_positions;
}

// The sampled keys' distinct rows through the HBM hot-row cache: lookups it serves (`hits`) and rows
// it misses (`missing`); with drives, the NVMe pages of the missed rows into pages_.
void EngramTierService::classify_rows(ReplicaEngramWork& r, std::size_t e, std::size_t drives, double& hits,
                                      double& missing) {
  std::sort(keys_.begin(), keys_.end());
  distinct_.clear();
  for (const std::uint64_t key : keys_) {
    if (!distinct_.empty() && distinct_.back().first == key)
      ++distinct_.back().second;
    else
      distinct_.emplace_back(key, 1u);
  }
  hits = missing = 0.0;
  pages_.clear();
  const auto row_bytes = static_cast<std::uint64_t>(p_.row_bytes.value());
  const auto page = static_cast<std::uint64_t>(p_.page.value());
  for (const auto& [key, count] : distinct_) {
    const auto row = static_cast<std::int64_t>(key & ((1ull << 48) - 1));
    bool hit = false;
    if (r.hbm) {
      hit = cache_access(*r.hbm, r.hbm_rate, r.hbm_hits, key, r.steps, 0x68626dull ^ p_.seed);
    } else if (r.hbm_static_rank > 0) {
      hit = access_->popularity_rank(static_cast<int>(e), row) <= r.hbm_static_rank;
    }
    if (hit) {
      hits += count;
      continue;
    }
    missing += 1.0;
    if (drives == 0) continue;
    const std::uint64_t offset = (key & ((1ull << 48) - 1)) * row_bytes;
    const std::uint64_t first_page = offset / page, last_page = (offset + row_bytes - 1) / page;
    for (std::uint64_t pg = first_page; pg <= last_page; ++pg) pages_.push_back(key_of(e, pg));
  }
}

// The missed rows' pages through the DRAM page cache; the misses are NVMe reads, spread over the
// drives (by page when unscaled, evenly otherwise).
void EngramTierService::read_pages(ReplicaEngramWork& r, LayerWork& w, std::size_t drives, double scale, double dedup,
                                   LayerCounts& n) {
  std::sort(pages_.begin(), pages_.end());
  pages_.erase(std::unique(pages_.begin(), pages_.end()), pages_.end());
  double page_hits = 0.0, page_misses = 0.0;
  for (const std::uint64_t pg : pages_) {
    if (r.dram && cache_access(*r.dram, r.dram_rate, r.dram_hits, pg, r.steps, 0x6472616dull ^ p_.seed)) {
      page_hits += 1.0;
      continue;
    }
    page_misses += 1.0;
    if (scale == 1.0) w.drive_pages[hash64(pg) % drives] += 1.0;
  }
  n.cache_lookups = static_cast<double>(pages_.size()) * scale * dedup;
  n.cache_hits = page_hits * scale * dedup;
  n.pages = page_misses * scale * dedup;
  if (scale != 1.0)
    for (double& d : w.drive_pages) d = n.pages / static_cast<double>(drives);
}

// One layer's rows from the sampled keys (see the header, "Sampling").
void EngramTierService::sampled_counts(ReplicaEngramWork& r, std::size_t e, const EngramLayerStep& layer,
                                       std::span<const EngramSeqSpan> seqs, std::int64_t positions, LayerWork& w,
                                       LayerCounts& n) {
  const std::size_t drives = w.drive_pages.size();
  const double all = static_cast<double>(positions) * p_.shape.subtables_per_rank;
  n.lookups = all;
  const std::int64_t sample_positions = sample_keys(r, e, layer, seqs, positions, all);
  const double sampled = static_cast<double>(keys_.size());
  const double scale = sampled > 0.0 ? all / sampled : 0.0;
  double hits = 0.0, missing = 0.0;
  classify_rows(r, e, drives, hits, missing);
  n.hbm_hits = hits * scale;
  // Sampled positions (case 3) overstate distinct rows when scaled linearly. Under the zipf model
  // the step model knows the expected distinct count of all positions: scale the sample's
  // distinct rows (and what follows from them) to it, keeping the sample's miss fraction.
  double dedup = 1.0;
  if (sample_positions < positions && p_.access.model == AccessModel::zipf && layer.distinct_rows > 0.0 &&
      !distinct_.empty())
    dedup = std::min(1.0, layer.distinct_rows / (static_cast<double>(distinct_.size()) * scale));
  n.host_rows = missing * scale * dedup;
  if (drives > 0) read_pages(r, w, drives, scale, dedup, n);
}

// What the layer moves (payload and wire bytes, the HBM cache's gather) and the step's counters.
void EngramTierService::account_layer(ReplicaEngramWork& r, LayerWork& w, const LayerCounts& n) {
  const double payload = n.host_rows * p_.row_bytes.value();
  w.host_rows = n.host_rows;
  if (payload > 0.0) {
    const bool staged = p_.tier == EngramTier::ssd || p_.dram_path == DramPath::staged;
    w.wire_bytes = staged ? payload / p_.copy_efficiency.at(payload) : payload / p_.uva_efficiency;
  }
  if (n.hbm_hits > 0.0 && p_.hbm_gather_rate.value() > 0.0)
    w.hbm_gather =
        p_.gather_overhead + Time::from_seconds(n.hbm_hits * p_.row_bytes.value() / p_.hbm_gather_rate.value());
  const double tp = p_.tp;
  r.stats.lookups += n.lookups * tp;
  r.stats.hbm_hit_lookups += n.hbm_hits * tp;
  r.stats.host_rows += n.host_rows * tp;
  r.stats.host_bytes += payload * tp;
  r.stats.wire_bytes += w.wire_bytes * tp;
  r.stats.ssd_pages += n.pages * tp;
  r.stats.cache_lookups += n.cache_lookups * tp;
  r.stats.cache_hits += n.cache_hits * tp;
}

void EngramTierService::plan_layer(ReplicaEngramWork& r, std::size_t e, const EngramLayerStep& layer,
                                   std::span<const EngramSeqSpan> seqs) {
  LayerWork& w = r.layers[e];
  w.window = layer.window;
  w.issue = Time::max();
  w.done = Time::zero();
  w.host_rows = 0.0;
  w.wire_bytes = 0.0;
  w.hbm_gather = Time::zero();
  const std::size_t drives = static_cast<std::size_t>(p_.tier == EngramTier::ssd ? p_.node.drive_count : 0);
  w.drive_pages.assign(drives, 0.0);
  std::int64_t positions = 0;
  for (const EngramSeqSpan& s : seqs)
    if (!s.prompt || layer.sees_prompt) positions += s.count;
  LayerCounts n;
  n.lookups = layer.lookups;
  if (!sampled_ || positions == 0) {
    // The step model's analytic rows.
    n.host_rows = layer.host_rows;
    n.pages = layer.ssd_pages;
    for (double& d : w.drive_pages) d = n.pages / static_cast<double>(drives);
  } else {
    sampled_counts(r, e, layer, seqs, positions, w, n);
  }
  account_layer(r, w, n);
}

bool EngramTierService::start_step(const EngramStepInput& in, EngramStepOutcome& immediate) {
  if (in.replica >= replicas_.size()) throw std::invalid_argument("engram tier: replica out of range");
  ReplicaEngramWork& r = replicas_[in.replica];
  if (r.active) throw std::logic_error("engram tier: a replica started a step while its previous fetch runs");
  if (in.start < clock_) throw std::invalid_argument("engram tier: time went backwards");
  clock_ = in.start;
  for (const auto& [node, gpu] : placement_[in.replica]) {
    (void)gpu;
    sync_node(node, in.start);
  }
  r.stats = EngramStepStats{};
  r.start = in.start;
  r.layers.resize(in.layers.size());
  for (std::size_t e = 0; e < in.layers.size(); ++e) plan_layer(r, e, in.layers[e], in.seqs);
  r.steps += 1;

  if (p_.swap_preempted_kv && p_.kv_bytes_per_token.value() > 0.0) {
    for (int k = 0; k < p_.tp; ++k) {
      const auto [node, gpu] = placement_[in.replica][static_cast<std::size_t>(k)];
      const fabric::NodeRoutes& nf = nodes_[static_cast<std::size_t>(node)].routes;
      const double out = in.kv_swap_out_tokens * p_.kv_bytes_per_token.value();
      const double back = in.kv_swap_in_tokens * p_.kv_bytes_per_token.value();
      if (out > 0.0)
        start_flow(node, nf.gpu_to_dram[static_cast<std::size_t>(gpu)], out, in.start, 0.0, FlowKind::kv_out,
                   in.replica, k);
      if (back > 0.0)
        start_flow(node, nf.dram_to_gpu[static_cast<std::size_t>(gpu)], back, in.start, 0.0, FlowKind::kv_in,
                   in.replica, k);
      r.stats.kv_swap_bytes += out + back;
    }
  }

  bool transfers = false;
  for (const LayerWork& w : r.layers) {
    double pages = 0.0;
    for (const double d : w.drive_pages) pages += d;
    if (w.wire_bytes > 0.0 || pages > 0.0) transfers = true;
  }
  if (!transfers) {
    // Only on-GPU gathers (or nothing): each starts at forward entry.
    for (LayerWork& w : r.layers) {
      w.issue = in.start;
      w.done = w.hbm_gather > Time::zero() ? in.start + w.hbm_gather : Time::zero();
    }
    finish_step(in.replica, in.start);
    immediate = ready_.back();
    ready_.pop_back();
    return false;
  }
  r.active = true;
  r.ranks_left = p_.tp;
  for (int k = 0; k < p_.tp; ++k) {
    r.ranks[static_cast<std::size_t>(k)] = RankStream{};
    issue(in.replica, k, in.start);
  }
  return true;
}

fabric::FlowId EngramTierService::start_flow(int node, fabric::RouteId route, double bytes, Time t, double bound,
                                             FlowKind kind, std::uint32_t replica, int rank) {
  Node& n = nodes_[static_cast<std::size_t>(node)];
  fabric::FlowSpec spec{route, Bytes(bytes), t, std::nullopt};
  if (bound > 0.0) spec.rate_bound = Bandwidth(bound);
  const FlowTag tag{replica, static_cast<std::uint16_t>(rank), kind, node, route, bytes};
  fabric::FlowId id = 0;
  if (n.own) {
    id = n.own->start_flow(spec);
    if (id != n.base + n.tags.size()) throw std::logic_error("engram tier: fabric flow ids out of sequence");
    n.tags.push_back(OwnedTag{tag, false});
  } else {
    id = cluster_.fabric->start_flow(spec, *cluster_.owner);
    shared_tags_.emplace(id, tag);
  }
  ++report_.flows;
  return id;
}

void EngramTierService::issue(std::uint32_t replica, int rank, Time t) {
  ReplicaEngramWork& r = replicas_[replica];
  RankStream& s = r.ranks[static_cast<std::size_t>(rank)];
  const auto [node, gpu] = placement_[replica][static_cast<std::size_t>(rank)];
  const fabric::NodeRoutes& nf = nodes_[static_cast<std::size_t>(node)].routes;
  const double staged_bound = p_.cpu_gather_rate.value();
  while (s.layer < static_cast<int>(r.layers.size())) {
    LayerWork& w = r.layers[static_cast<std::size_t>(s.layer)];
    s.issue = t;
    s.copying = false;
    w.issue = std::min(w.issue, t);
    const bool ssd = p_.tier == EngramTier::ssd;
    if (ssd) {
      for (std::size_t d = 0; d < w.drive_pages.size(); ++d) {
        if (w.drive_pages[d] <= 0.0) continue;
        start_flow(node, nf.drive_to_dram[d], w.drive_pages[d] * p_.page.value(), t, ssd_bound_, FlowKind::ssd, replica,
                   rank);
        ++s.outstanding;
      }
      if (s.outstanding > 0) return;
    }
    if (w.wire_bytes > 0.0) {
      const bool staged = ssd || p_.dram_path == DramPath::staged;
      start_flow(node, nf.dram_to_gpu[static_cast<std::size_t>(gpu)], w.wire_bytes, t, staged ? staged_bound : 0.0,
                 ssd ? FlowKind::copy : FlowKind::engram, replica, rank);
      s.copying = true;
      s.outstanding = 1;
      return;
    }
    // Nothing crosses a link for this layer on this rank: only the on-GPU gather, if any.
    if (w.hbm_gather > Time::zero()) w.done = std::max(w.done, t + w.hbm_gather);
    ++s.layer;
  }
  s.finished = true;
  if (--r.ranks_left == 0) finish_step(replica, t);
}

void EngramTierService::rank_layer_done(std::uint32_t replica, int rank, Time t) {
  ReplicaEngramWork& r = replicas_[replica];
  RankStream& s = r.ranks[static_cast<std::size_t>(rank)];
  LayerWork& w = r.layers[static_cast<std::size_t>(s.layer)];
  const auto [node, gpu] = placement_[replica][static_cast<std::size_t>(rank)];
  if (p_.tier == EngramTier::ssd && !s.copying && w.wire_bytes > 0.0) {
    // Pages are in host memory: copy the rows to the GPU.
    const fabric::NodeRoutes& nf = nodes_[static_cast<std::size_t>(node)].routes;
    start_flow(node, nf.dram_to_gpu[static_cast<std::size_t>(gpu)], w.wire_bytes, t, p_.cpu_gather_rate.value(),
               FlowKind::copy, replica, rank);
    s.copying = true;
    s.outstanding = 1;
    return;
  }
  w.done = std::max({w.done, t, s.issue + w.hbm_gather});
  double bytes = w.wire_bytes;
  for (const double d : w.drive_pages) bytes += d * p_.page.value();
  report_.gpu_fetch_seconds += (t - s.issue).seconds();
  report_.gpu_fetch_bytes += bytes;
  if (trace_ != nullptr) trace_->on_layer_fetch(node, gpu, replica, s.layer, s.issue, t, bytes);
  ++s.layer;
  issue(replica, rank, t);
}

void EngramTierService::finish_step(std::uint32_t replica, Time t) {
  ReplicaEngramWork& r = replicas_[replica];
  EngramStepOutcome o;
  o.replica = replica;
  o.ready = t;
  Time stalls, fetch;
  for (const LayerWork& w : r.layers) {
    const Time arrival = r.start + w.window + stalls;
    if (w.done > arrival) stalls += w.done - arrival;
    if (w.issue != Time::max() && w.done > w.issue) fetch += w.done - w.issue;
    o.ready = std::max(o.ready, w.done);
  }
  o.stall = stalls;
  o.fetch = fetch;
  o.stats = r.stats;
  r.active = false;
  report_.steps += 1;
  EngramStepStats& tot = report_.totals;
  tot.lookups += o.stats.lookups;
  tot.hbm_hit_lookups += o.stats.hbm_hit_lookups;
  tot.host_rows += o.stats.host_rows;
  tot.host_bytes += o.stats.host_bytes;
  tot.wire_bytes += o.stats.wire_bytes;
  tot.ssd_pages += o.stats.ssd_pages;
  tot.cache_lookups += o.stats.cache_lookups;
  tot.cache_hits += o.stats.cache_hits;
  tot.kv_swap_bytes += o.stats.kv_swap_bytes;
  ready_.push_back(o);
}

void EngramTierService::on_flow_done(const fabric::FlowCompletion& c) {
  auto it = shared_tags_.find(c.id);
  if (it == shared_tags_.end()) throw std::logic_error("engram tier: a completion for a flow it did not start");
  const FlowTag tag = it->second;
  shared_tags_.erase(it);
  on_completion(tag, c);
}

void EngramTierService::on_completion(FlowTag tag, const fabric::FlowCompletion& c) {
  const auto [tag_node, gpu] = placement_[tag.replica][tag.rank];
  (void)tag_node;
  if (trace_ != nullptr) {
    static constexpr const char* kNames[] = {"engram", "ssd", "copy", "kv_out", "kv_in"};
    trace_->on_flow(tag.node, topology(tag.node).route(tag.route).name, kNames[static_cast<int>(tag.kind)], tag.replica,
                    gpu, c.start, c.finish, tag.bytes);
  }
  if (tag.kind == FlowKind::kv_out || tag.kind == FlowKind::kv_in) return;
  RankStream& s = replicas_[tag.replica].ranks[tag.rank];
  if (--s.outstanding == 0) rank_layer_done(tag.replica, tag.rank, c.finish);
}

// Delivers a node's completions up to `t` (on a shared fabric, everyone's: its driver's event at
// this instant may not have run yet) and moves its clock there.
void EngramTierService::sync_node(int node, Time t) {
  Node& n = nodes_[static_cast<std::size_t>(node)];
  if (!n.own) {
    if (cluster_.fabric->now() < t || cluster_.fabric->next_completion_time() <= t) cluster_.fabric->advance_to(t);
    return;
  }
  deliver_until(n, t);
  if (n.own->now() < t) n.own->advance_to(t);
}

// A node's own fabric: every completion at or before `t`, one instant at a time.
void EngramTierService::deliver_until(Node& n, Time t) {
  fabric::Fabric& f = *n.own;
  for (Time next = f.next_completion_time(); next <= t; next = f.next_completion_time())
    for (const auto& c : f.advance_to(next)) {
      OwnedTag& slot = n.tags.at(static_cast<std::size_t>(c.id - n.base));
      slot.done = true;
      const FlowTag tag = slot.tag;
      while (!n.tags.empty() && n.tags.front().done) {
        n.tags.pop_front();
        ++n.base;
      }
      on_completion(tag, c);
    }
}

Time EngramTierService::next_event_time() {
  if (!ready_.empty()) return clock_;
  Time t = Time::max();
  for (Node& n : nodes_)
    if (n.own) t = std::min(t, n.own->next_completion_time());
  return t;
}

void EngramTierService::advance_to(Time t, std::vector<EngramStepOutcome>& done) {
  if (t < clock_) throw std::invalid_argument("engram tier: time went backwards");
  clock_ = t;
  for (Node& n : nodes_)
    if (n.own) deliver_until(n, t);
  done.insert(done.end(), ready_.begin(), ready_.end());
  ready_.clear();
}

EngramTierReport EngramTierService::report() const { return report_; }

}  // namespace engramsim
