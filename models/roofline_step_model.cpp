#include "models/roofline_step_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <bit>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <type_traits>

namespace engramsim {
namespace {

constexpr std::size_t kMaxTemplates = 512;

// A hash of every bit of the statistics (the memo compares them in full on a hit).
std::uint64_t hash_stats(const BatchStats& s) {
  constexpr std::uint64_t k = 0x9E3779B97F4A7C15ULL;
  std::uint64_t h[4] = {1, 2, 3, 4};
  constexpr std::size_t n = std::tuple_size_v<decltype(s.x)>;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (std::size_t l = 0; l < 4; ++l) h[l] = (h[l] ^ std::bit_cast<std::uint64_t>(s.x[i + l])) * k;
  for (; i < n; ++i) h[0] = (h[0] ^ std::bit_cast<std::uint64_t>(s.x[i])) * k;
  for (double v : {s.decode_seqs, s.decode_positions, s.prefill_chunks, s.prefill_tokens, s.prefill_first_chunk_tokens})
    h[1] = (h[1] ^ std::bit_cast<std::uint64_t>(v)) * k;
  std::uint64_t r = h[0] ^ (h[1] << 1 | h[1] >> 63) ^ (h[2] << 2 | h[2] >> 62) ^ (h[3] << 3 | h[3] >> 61);
  return r ^ (r >> 29);
}

bool same_stats(const BatchStats& a, const BatchStats& b) {
  static_assert(sizeof(BatchStats) == sizeof(double) * (std::tuple_size_v<decltype(a.x)> + 5),
                "BatchStats: compared as plain doubles");
  return std::memcmp(&a, &b, sizeof(BatchStats)) == 0;
}

// The same batch, element for element (DecodeSeq and PrefillChunk are two int32 each, no padding).
bool same_batch(const std::vector<PrefillChunk>& prefill, const std::vector<DecodeSeq>& decode, const BatchShape& b) {
  static_assert(std::has_unique_object_representations_v<DecodeSeq> &&
                std::has_unique_object_representations_v<PrefillChunk>);
  return prefill.size() == b.prefill.size() && decode.size() == b.decode.size() &&
         (prefill.empty() || std::memcmp(prefill.data(), b.prefill.data(), prefill.size() * sizeof(PrefillChunk)) == 0) &&
         (decode.empty() || std::memcmp(decode.data(), b.decode.data(), decode.size() * sizeof(DecodeSeq)) == 0);
}

std::string fmt_ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  return buf;
}

}  // namespace

namespace {
// The layout with its scale-up domain size taken from the node; a replica larger than one domain
// must be expert-parallel with data-parallel attention on a node with a scale-out NIC.
ParallelLayout layout_on(const NodeSpec& node, ParallelLayout layout) {
  layout.gpus_per_domain = node.scale_up_domain_gpus;
  if (node.scale_up_domain_gpus > 0 && layout.tp > node.scale_up_domain_gpus) {
    if (!(node.scale_out_bandwidth.value() > 0.0))
      throw std::invalid_argument("step model: tp exceeds the node's scale-up domain and the node states no "
                                  "scale_out_bandwidth");
    if (!layout.dp_attention || layout.ep != layout.tp || layout.tp % node.scale_up_domain_gpus != 0)
      throw std::invalid_argument("step model: a replica spanning scale-up domains needs data-parallel attention, "
                                  "ep equal to tp and whole domains (tp a multiple of " +
                                  std::to_string(node.scale_up_domain_gpus) + ")");
  }
  return layout;
}
}  // namespace

RooflineStepModel::RooflineStepModel(const ModelCard& card, const NodeSpec& node, RooflineOptions options)
    : card_(card),
      node_(node),
      options_(std::move(options)),
      work_(card_, build_weight_inventory(card_), layout_on(node_, options_.layout)),
      rates_(node_.gpu),
      net_(options_.collectives, node_.gpu.scale_up_bandwidth, node_.scale_out_bandwidth) {
  if (work_.templates().size() > kMaxTemplates)
    throw std::invalid_argument("step model: more distinct ops than the fast path holds");
  const auto& templates = work_.templates();
  for (std::size_t t = 0; t < templates.size(); ++t) {
    const OpTemplate& tpl = templates[t];
    FastOp f;
    f.forms = work_.packed(t);
    f.key_slot = tpl.flops_key.slot;
    f.key_coef = tpl.flops_key.coef;
    f.bw_key = tpl.bw_key;
    f.op_class = tpl.op_class;
    f.peak = tensor_peak(rates_, options_.efficiencies, tpl.precision, tpl.op_class);
    // Work with FLOPs on a GPU with no rate for its precision (nor a wider one) would cost nothing.
    if (!tpl.flops.empty() && !(f.peak > 0.0) && tpl.collective == CollectiveKind::none)
      throw std::invalid_argument("GPU " + node_.gpu.name + " lists no dense_flops rate for " + to_string(tpl.precision) +
                                  " or a wider precision (op " + tpl.name + ")");
    f.overhead_s = tpl.kernels * options_.efficiencies.kernel_overhead.seconds();
    f.floor_s = tpl.kernels * options_.efficiencies.kernel_min_duration.seconds();
    f.collective = tpl.collective;
    f.ranks = tpl.collective_ranks;
    f.multiplicity = work_.multiplicity(t);
    f.drafter = work_.is_drafter(t);
    f.twin = work_.set0_twin(t);
    const OpEfficiency& oe = options_.efficiencies.of(tpl.op_class);
    f.flops_curve = &oe.flops;
    f.bw_curve = &oe.bandwidth;
    // Constant lookups resolved once: the same products op_seconds() forms per call.
    if (oe.flops.points().size() == 1) f.flops_denom = f.peak * oe.flops.at(1.0);
    if (oe.bandwidth.points().size() == 1 || f.bw_key > 0.0)
      f.bw_denom = hbm_rate(rates_, options_.efficiencies) * oe.bandwidth.at(f.bw_key > 0.0 ? f.bw_key : 1.0);
    auto reads_geometry = [](const PackedForms& p, std::size_t from, std::size_t n) {
      for (std::size_t k = from; k < from + n; ++k)
        if (p.terms[k].slot >= kGeometryBase) return true;
      return false;
    };
    const std::size_t n_terms = std::size_t{f.forms.n_flops} + f.forms.n_bytes + f.forms.n_coll + f.forms.n_up;
    f.geometric = reads_geometry(f.forms, 0, n_terms) || f.key_slot >= kGeometryBase ||
                  (f.twin < fast_.size() && fast_[f.twin].geometric);
    // Same class, same statistic, same coefficient, same token set: the same FLOP efficiency.
    std::size_t group = 0;
    for (; group < fast_.size(); ++group) {
      const FastOp& g = fast_[group];
      if (g.op_class == f.op_class && g.key_slot == f.key_slot && g.key_coef == f.key_coef &&
          g.forms.base == f.forms.base)
        break;
    }
    f.flops_group = static_cast<std::uint16_t>(group < fast_.size() ? fast_[group].flops_group : flops_groups_++);
    fast_.push_back(f);
  }
  if (card_.engram) {
    for (std::size_t e = 0; e < card_.engram->layers.size(); ++e) {
      EngramFetchParams fp = options_.engram;
      fp.gather_before_forward = options_.host.engram_lookup_on_host_thread;
      fp.ssd_path = options_.host.engram_ssd_path;
      fp.host_round_trip_fixed = options_.host.engram_host_round_trip;
      fp.host_dedup_per_id = options_.host.engram_host_dedup_per_id;
      fp.page_fault_concurrency = options_.host.engram_page_fault_concurrency;
      fetch_.emplace_back(*card_.engram, static_cast<int>(e), options_.layout.tp, node_, options_.efficiencies, fp);
      engram_layers_.push_back(card_.engram->layers[e]);
      engram_sets_.push_back(work_.layer_set(card_.engram->layers[e]));
    }
  }
  if (options_.step_cache_entries > 0) {
    memo_.entries.resize(static_cast<std::size_t>(options_.step_cache_entries));
    memo_.tokens.op_s.assign(fast_.size(), 0.0);
  }
}

double RooflineStepModel::evaluate(const BatchStats& s, double* op_s, EngramEval* eng, double* compute_s,
                                   double* host_s, double* fetch_s, double* stall_s, TokenCache* tc) const {
  const double passes = s.at(2, kDrafterPasses);
  // Without prompt tokens in the step, the encoder-half and decoder-half statistics coincide.
  const bool sets_equal = s.prefill_chunks == 0.0;
  const bool drafting = s.at(2, kTokens) > 0.0;
  const double hbm_bw = hbm_rate(rates_, options_.efficiencies);
  // Templates that read only token-count statistics cost what they cost last time when those
  // statistics (and whether the step holds prompt chunks) are the same bit for bit.
  bool token_hit = false;
  if (tc != nullptr && tc->op_s.size() == fast_.size()) {
    std::array<double, kTokenSets * kGeometryBase> key;
    for (int set = 0; set < kTokenSets; ++set)
      for (int slot = 0; slot < kGeometryBase; ++slot) key[static_cast<std::size_t>(set * kGeometryBase + slot)] = s.at(set, slot);
    token_hit = tc->valid && std::bit_cast<std::uint64_t>(tc->prefill_chunks) == std::bit_cast<std::uint64_t>(s.prefill_chunks) &&
                std::memcmp(key.data(), tc->key.data(), sizeof key) == 0;
    if (!token_hit) {
      tc->key = key;
      tc->prefill_chunks = s.prefill_chunks;
      tc->valid = true;  // op_s is filled below for every non-geometric template
    }
  } else {
    tc = nullptr;
  }
  std::array<double, kMaxTemplates> flops_eff;  // per flops group, filled on first use (0 = not yet)
  std::fill_n(flops_eff.begin(), flops_groups_, 0.0);
  double compute = 0.0;
  for (std::size_t t = 0; t < fast_.size(); ++t) {
    const FastOp& f = fast_[t];
    double sec = 0.0;
    if (sets_equal && f.twin < t) {
      sec = op_s[f.twin];
    } else if (token_hit && !f.geometric) {
      sec = tc->op_s[t];
    } else if (!(f.drafter && !drafting)) {
      // The same arithmetic as op_seconds() (op_cost.cpp), on resolved constants.
      const double* x = &s.x[f.forms.base];
      if (f.collective != CollectiveKind::none) {
        sec = collective_seconds(f.collective, f.forms.collective_bytes(x), f.forms.scale_up_bytes(x), f.ranks, net_);
      } else {
        const double flops = f.forms.flops(x);
        const double bytes = f.forms.bytes(x);
        if (flops > 0.0 || bytes > 0.0) {
          double c = 0.0, m = 0.0;
          if (flops > 0.0 && f.peak > 0.0) {
            if (f.flops_denom > 0.0) {
              c = flops / f.flops_denom;
            } else {
              double& fe = flops_eff[f.flops_group];
              if (fe == 0.0) fe = f.flops_curve->at(f.key_coef * x[f.key_slot]);
              c = flops / (f.peak * fe);
            }
          }
          if (bytes > 0.0) m = bytes / (f.bw_denom > 0.0 ? f.bw_denom : hbm_bw * f.bw_curve->at(bytes));
          sec = std::max({c, m, f.floor_s}) + f.overhead_s;
        }
      }
    }
    if (!(sets_equal && f.twin < t) && !(token_hit && !f.geometric)) sec *= options_.host.kernel_time_scale;
    op_s[t] = sec;
    if (tc != nullptr && !token_hit && !f.geometric) tc->op_s[t] = sec;
    compute += sec * f.multiplicity * (f.drafter ? passes : 1.0);
  }

  const bool hbm = options_.engram.tier == EngramTier::hbm;
  double stalls = 0.0;
  double chain_now = 0.0;
  double chain_all = 0.0;
  double gathers_before = 0.0;  // in-stream HBM gathers of earlier Engram layers
  double gathers_total = 0.0;
  double fetch_sum = 0.0;
  double host_gather = 0.0;  // staged CPU gathers the engine's host thread runs before the forward
  const bool page_cache = options_.engram.tier == EngramTier::ssd && options_.host.engram_ssd_path == SsdPath::page_cache;
  const bool inline_round_trip = page_cache && !options_.host.engram_host_gather_overlap;
  const double side_share = options_.engram.tier == EngramTier::dram && options_.engram.dram_path == DramPath::zero_copy
                                ? options_.host.engram_side_stream_sm_share
                                : 0.0;
  for (std::size_t e = 0; e < fetch_.size(); ++e) {
    EngramEval local;
    EngramEval& ev = eng != nullptr ? eng[e] : local;
    const int set = engram_sets_[e];
    ev.positions_all = s.at(set, kTokens);
    // Decode rows and the rows of a prompt's first chunk are known only in this step.
    ev.positions_now = s.decode_positions + (set == 0 ? s.prefill_first_chunk_tokens : 0.0);
    ev.fetch = fetch_[e].cost(ev.positions_all);
    if (options_.host.engram_lookup_on_host_thread) host_gather += fetch_[e].cpu_gather_seconds(ev.fetch.host_rows);
    double window = 0.0;
    for (const auto& [t, n] : work_.before_engram(e)) window += n * op_s[t];
    ev.window_s = window + gathers_before;
    if (hbm) {
      const double g = ev.fetch.total.seconds();
      gathers_before += g;
      gathers_total += g;
      ev.fetch_now_s = g;
      ev.arrival_s = ev.window_s + stalls;
      ev.completion_s = ev.arrival_s + g;
      ev.stall_s = 0.0;
      fetch_sum += g;
      continue;
    }
    const double all_s = ev.fetch.total.seconds();
    const bool ahead = options_.prefill_prefetch && ev.positions_all > ev.positions_now;
    ev.fetch_now_s = ahead ? fetch_[e].cost(ev.positions_now).total.seconds() : all_s;
    chain_now += ev.fetch_now_s;
    chain_all += all_s;
    ev.prefetch_s = ahead ? compute : 0.0;
    ev.arrival_s = ev.window_s + stalls;
    ev.completion_s = chain_all;
    double stall = ahead ? std::max({0.0, chain_now - ev.arrival_s, chain_all - (ev.arrival_s + ev.prefetch_s)})
                         : std::max(0.0, chain_all - ev.arrival_s);
    // The side-stream gather takes its SM share from the layers it overlaps (models/engram_host_path.hpp).
    if (side_share > 0.0) stall = std::max(stall, side_share * all_s);
    // vLLM's mmap path runs the round trip inside the forward at the layer: nothing hides it.
    if (inline_round_trip) {
      stall = all_s;
      ev.completion_s = ev.arrival_s + all_s;
    }
    ev.stall_s = stall;
    stalls += stall;
    fetch_sum += all_s;
  }
  compute += gathers_total;
  // Under data-parallel attention every GPU runs its own scheduler over its own share of the
  // sequences, in parallel with the others: the per-sequence host work of a step is one rank's share.
  const double ranks = work_.layout().dp_attention ? static_cast<double>(work_.layout().tp) : 1.0;
  const double seqs = (s.decode_seqs + s.prefill_chunks) / ranks;
  double host = options_.host.per_step.seconds() + seqs * options_.host.per_sequence.seconds();
  // The mmap arm's PIECEWISE steps (HostOverhead::piecewise_per_layer; docs/cost-model.md).
  if (page_cache) {
    const double layers = card_.num_layers + (drafting ? card_.spec_decode.drafter_layers * passes : 0.0);
    host += layers * options_.host.piecewise_per_layer.seconds();
  }
  if (options_.host.engram_lookup_on_host_thread) {
    // Synchronous engine: each Engram layer's lookup is prepared on the host thread before the
    // forward (hashes, and the staged CPU gather); one rank's positions under data-parallel attention.
    host += host_gather;
    for (std::size_t e = 0; e < fetch_.size(); ++e) {
      const double positions = s.at(engram_sets_[e], kTokens) / ranks;
      if (positions > 0.0)
        host += options_.host.engram_lookup_per_step.seconds() +
                positions * options_.host.engram_lookup_per_position.seconds();
    }
  }
  *compute_s = compute;
  *host_s = host;
  *fetch_s = fetch_sum;
  *stall_s = stalls;
  return compute + stalls + host;
}

StepCost RooflineStepModel::step(const BatchShape& batch) const {
  // The memo (see the header): a taken lock means another thread is using it, and this call
  // computes without it.
  std::unique_lock<std::mutex> lock;
  if (!memo_.entries.empty()) {
    lock = std::unique_lock<std::mutex>(memo_.mu, std::try_to_lock);
    if (lock.owns_lock() && memo_.last_valid && same_batch(memo_.last_prefill, memo_.last_decode, batch))
      return memo_.last_cost;
  }
  const BatchStats s = work_.summarize(batch);
  MemoEntry* entry = nullptr;
  std::uint64_t hash = 0;
  auto remember = [&](const StepCost& c) {
    memo_.last_prefill.assign(batch.prefill.begin(), batch.prefill.end());
    memo_.last_decode.assign(batch.decode.begin(), batch.decode.end());
    memo_.last_cost = c;
    memo_.last_valid = true;
    return c;
  };
  if (lock.owns_lock()) {
    // A direct-mapped table keyed on the full statistics.
    hash = hash_stats(s);
    entry = &memo_.entries[hash % memo_.entries.size()];
    if (entry->valid && entry->hash == hash && same_stats(entry->stats, s)) return remember(entry->cost);
  }
  std::array<double, kMaxTemplates> op_s;
  double compute = 0.0, host = 0.0, fetch = 0.0, stall = 0.0;
  const double total =
      evaluate(s, op_s.data(), nullptr, &compute, &host, &fetch, &stall, entry != nullptr ? &memo_.tokens : nullptr);
  StepCost c;
  c.total = Time::from_seconds(total);
  c.compute = Time::from_seconds(compute);
  c.host_overhead = Time::from_seconds(host);
  c.engram_fetch = Time::from_seconds(fetch);
  c.engram_stall = Time::from_seconds(stall);
  if (entry != nullptr) {
    entry->valid = true;
    entry->hash = hash;
    entry->stats = s;
    entry->cost = c;
    return remember(c);
  }
  return c;
}

StepCost RooflineStepModel::step_engram(const BatchShape& batch, std::span<EngramLayerStep> layers) const {
  if (layers.size() < fetch_.size()) throw std::invalid_argument("step_engram: fewer layer slots than Engram layers");
  const BatchStats s = work_.summarize(batch);
  std::array<double, kMaxTemplates> op_s;
  // The per-layer chain; a small fixed buffer covers every shipped card (two Engram layers at most).
  std::array<EngramEval, 4> small;
  std::vector<EngramEval> large;
  EngramEval* eng = small.data();
  if (fetch_.size() > small.size()) {
    large.resize(fetch_.size());
    eng = large.data();
  }
  double compute = 0.0, host = 0.0, fetch = 0.0, stall = 0.0;
  std::unique_lock<std::mutex> lock;
  if (!memo_.entries.empty()) lock = std::unique_lock<std::mutex>(memo_.mu, std::try_to_lock);
  const double total =
      evaluate(s, op_s.data(), eng, &compute, &host, &fetch, &stall, lock.owns_lock() ? &memo_.tokens : nullptr);
  for (std::size_t e = 0; e < fetch_.size(); ++e) {
    const EngramEval& ev = eng[e];
    EngramLayerStep& l = layers[e];
    l.layer = engram_layers_[e];
    l.sees_prompt = engram_sets_[e] == 0;
    l.positions = ev.positions_all;
    l.window = Time::from_seconds(ev.window_s);
    l.lookups = ev.fetch.lookups;
    l.distinct_rows = ev.fetch.distinct_rows;
    l.host_rows = ev.fetch.host_rows;
    l.ssd_pages = ev.fetch.ssd_pages;
  }
  StepCost c;
  c.total = Time::from_seconds(total);
  c.compute = Time::from_seconds(compute);
  c.host_overhead = Time::from_seconds(host);
  c.engram_fetch = Time::from_seconds(fetch);
  c.engram_stall = Time::from_seconds(stall);
  return c;
}

StepBreakdown RooflineStepModel::breakdown(const BatchShape& batch) const {
  StepBreakdown out;
  const StepWork work = work_.decompose(batch);
  out.stats = work.stats;
  out.drafter_passes = work.drafter_passes;
  std::vector<double> op_s(work_.templates().size());
  std::vector<EngramEval> eng(fetch_.size());
  double compute = 0.0, host = 0.0, fetch_total = 0.0, stall_total = 0.0;
  const double total = evaluate(work.stats, op_s.data(), eng.data(), &compute, &host, &fetch_total, &stall_total);

  auto add = [&](const OpWork& w, int layer, double count) {
    OpReport r;
    r.name = w.name;
    r.layer = layer;
    r.count = count;
    r.work = w;
    r.cost = op_cost(w, rates_, options_.efficiencies, net_);
    r.cost.time = Time::from_seconds(r.cost.time.seconds() * options_.host.kernel_time_scale);
    r.total = Time::from_seconds(r.cost.time.seconds() * count);
    out.ops.push_back(std::move(r));
  };
  for (const auto& w : work.pre) add(w, -1, 1.0);
  for (const auto& lw : work.layers) {
    for (std::size_t e = 0; e < fetch_.size(); ++e) {
      if (engram_layers_[e] != lw.layer || options_.engram.tier != EngramTier::hbm) continue;
      // The in-stream gather of the hbm tier, shown as an op of its layer.
      OpReport r;
      r.name = "engram.gather";
      r.layer = lw.layer;
      r.work.name = "engram.gather";
      r.work.op_class = OpClass::engram_gather;
      r.work.hbm_bytes = Bytes(eng[e].fetch.lookups * card_.engram->row_bytes.value());
      r.cost.time = eng[e].fetch.total;
      r.cost.memory = eng[e].fetch.total;
      r.cost.bound = Bound::memory;
      r.total = r.cost.time;
      out.ops.push_back(std::move(r));
    }
    for (const auto& w : lw.ops) add(w, lw.layer, 1.0);
  }
  for (const auto& w : work.post) add(w, -2, 1.0);
  for (const auto& w : work.drafter) add(w, -3, work.drafter_passes);

  double fetch_sum = 0.0, stall_sum = 0.0;
  for (std::size_t e = 0; e < fetch_.size(); ++e) {
    const EngramEval& ev = eng[e];
    EngramLayerReport r;
    r.layer = engram_layers_[e];
    r.tier = options_.engram.tier;
    r.positions = ev.positions_all;
    r.fetch = ev.fetch;
    r.window = Time::from_seconds(ev.window_s);
    r.prefetch_window = Time::from_seconds(ev.prefetch_s);
    r.arrival = Time::from_seconds(ev.arrival_s);
    r.completion = Time::from_seconds(ev.completion_s);
    r.stall = Time::from_seconds(ev.stall_s);
    const std::string layers_before = r.layer == 0 ? "the embedding" : "embedding + layers 0-" + std::to_string(r.layer - 1);
    char buf[512];
    if (r.tier == EngramTier::hbm) {
      std::snprintf(buf, sizeof buf,
                    "tables in HBM: %.0f row lookups gathered in-stream at HBM bandwidth (%s, counted in compute); "
                    "nothing crosses the host link, no stall",
                    ev.fetch.lookups, fmt_ms(ev.fetch.total.seconds()).c_str());
    } else if (ev.positions_all <= 0.0) {
      std::snprintf(buf, sizeof buf, "no token positions reach this layer in this step");
    } else {
      const std::string what =
          r.tier == EngramTier::dram
              ? std::to_string(static_cast<long long>(std::llround(ev.fetch.host_rows))) + " distinct rows over the host link"
              : std::to_string(static_cast<long long>(std::llround(ev.fetch.ssd_pages))) + " 4 KiB NVMe pages (" +
                    std::to_string(static_cast<long long>(std::llround(ev.fetch.host_rows))) + " rows)";
      const std::string chained = e > 0 ? " after the earlier layers' fetches on the same link" : "";
      if (ev.stall_s > 0.0) {
        std::snprintf(buf, sizeof buf,
                      "exposed: %s take %s (%s-bound) and complete at %s%s, but the GPU reaches layer %d at %s "
                      "(compute of %s); stall %s",
                      what.c_str(), fmt_ms(ev.fetch.total.seconds()).c_str(), ev.fetch.bound,
                      fmt_ms(ev.completion_s).c_str(), chained.c_str(), r.layer, fmt_ms(ev.arrival_s).c_str(),
                      layers_before.c_str(), fmt_ms(ev.stall_s).c_str());
      } else {
        std::snprintf(buf, sizeof buf,
                      "hidden: %s take %s (%s-bound), complete at %s%s, before the GPU reaches layer %d at %s "
                      "(compute of %s)",
                      what.c_str(), fmt_ms(ev.fetch.total.seconds()).c_str(), ev.fetch.bound,
                      fmt_ms(ev.completion_s).c_str(), chained.c_str(), r.layer, fmt_ms(ev.arrival_s).c_str(),
                      layers_before.c_str());
      }
    }
    r.reason = buf;
    fetch_sum += ev.fetch.total.seconds();
    stall_sum += ev.stall_s;
    out.engram.push_back(std::move(r));
  }
  out.cost.total = Time::from_seconds(total);
  out.cost.compute = Time::from_seconds(compute);
  out.cost.host_overhead = Time::from_seconds(host);
  out.cost.engram_fetch = Time::from_seconds(fetch_sum);
  out.cost.engram_stall = Time::from_seconds(stall_sum);
  return out;
}

}  // namespace engramsim
