#include "models/roofline_step_model.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <type_traits>

namespace engramsim {
namespace {

constexpr std::size_t kMaxTemplates = 512;

std::string fmt_ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  return buf;
}

}  // namespace

namespace {
// The engine's sparse-attention head padding on this vendor's GPUs; none when it states none.
SparseAttentionKernels sparse_attention_on(const HostOverhead& host, const std::string& vendor) {
  const auto it = host.sparse_attention_by_vendor.find(vendor);
  return it == host.sparse_attention_by_vendor.end() ? SparseAttentionKernels{} : it->second;
}

// The layout with its scale-up domain size taken from the node; a replica larger than one domain
// must be expert-parallel with data-parallel attention on a node with a scale-out NIC.
ParallelLayout layout_on(const NodeSpec& node, ParallelLayout layout) {
  layout.gpus_per_domain = node.scale_up_domain_gpus;
  if (node.scale_up_domain_gpus > 0 && layout.tp > node.scale_up_domain_gpus) {
    if (!(node.scale_out_bandwidth.value() > 0.0))
      throw std::invalid_argument(
          "step model: tp exceeds the node's scale-up domain and the node states no "
          "scale_out_bandwidth");
    if (!layout.dp_attention || layout.ep != layout.tp || layout.tp % node.scale_up_domain_gpus != 0)
      throw std::invalid_argument(
          "step model: a replica spanning scale-up domains needs data-parallel attention, "
          "ep equal to tp and whole domains (tp a multiple of " +
          std::to_string(node.scale_up_domain_gpus) + ")");
  }
  return layout;
}

// The collective parameters with the engine's measured all-reduce for the node's GPU, where its
// preset names a table that covers that GPU.
CollectiveParams with_engine_all_reduce(CollectiveParams params, const HostOverhead& host, const GpuSpec& gpu) {
  if (!host.all_reduce_table.empty())
    params.measured_all_reduce = engine_all_reduce_table(host.all_reduce_table, gpu.name);
  return params;
}
}  // namespace

RooflineStepModel::RooflineStepModel(const ModelCard& card, const NodeSpec& node, RooflineOptions options)
    : card_(card),
      node_(node),
      options_(std::move(options)),
      work_(card_, build_weight_inventory(card_), layout_on(node_, options_.layout), options_.host.quant_fusion,
            sparse_attention_on(options_.host, node_.gpu.vendor)),
      rates_(node_.gpu),
      net_(with_engine_all_reduce(options_.collectives, options_.host, node_.gpu), node_.gpu.scale_up_bandwidth,
           node_.scale_out_bandwidth) {
  options_.efficiencies.moe = options_.host.moe;
  options_.efficiencies.block_fp8_gemm_k_step = options_.host.block_fp8_gemm_k_step;
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
    f.peak = tensor_peak(rates_, options_.efficiencies, tpl.precision, tpl.op_class) *
             k_depth_share(rates_, options_.efficiencies, tpl.op_class, tpl.precision, tpl.gemm_k);
    // Work with FLOPs on a GPU with no rate for its precision (nor a wider one) would cost nothing.
    if (!tpl.flops.empty() && !(f.peak > 0.0) && tpl.collective == CollectiveKind::none)
      throw std::invalid_argument("GPU " + node_.gpu.name + " lists no dense_flops rate for " +
                                  to_string(tpl.precision) + " or a wider precision (op " + tpl.name + ")");
    f.overhead_s = tpl.kernels * options_.efficiencies.kernel_overhead.seconds();
    f.floor_s = op_floor_seconds(tpl.kernels, tpl.block_fp8_k_steps, options_.efficiencies);
    f.collective = tpl.collective;
    f.ranks = tpl.collective_ranks;
    f.multiplicity = work_.multiplicity(t);
    f.drafter = work_.is_drafter(t);
    f.twin = work_.set0_twin(t);
    const OpEfficiency& oe = options_.efficiencies.of(tpl.op_class);
    f.flops_curve = &oe.flops;
    f.bw_curve = &oe.bandwidth;
    f.bw_share = class_bandwidth_share(rates_, options_.efficiencies, tpl.op_class, tpl.precision);
    f.exposed = exposed_share(rates_, options_.efficiencies, tpl.op_class, tpl.precision);
    f.math_denom = f.peak * oe.flops.top();
    f.weight_bytes = f.forms.fixed_bytes();
    // Constant lookups resolved once: the same products op_seconds() forms per call.
    if (oe.flops.points().size() == 1) f.flops_denom = f.peak * oe.flops.at(1.0);
    if (oe.bandwidth.points().size() == 1 || f.bw_key > 0.0)
      f.bw_denom =
          hbm_rate(rates_, options_.efficiencies) * f.bw_share * oe.bandwidth.at(f.bw_key > 0.0 ? f.bw_key : 1.0);
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
}

// One Engram layer of the chain, in seconds from forward entry.
struct RooflineStepModel::EngramEval {
  double positions_all = 0.0;
  double positions_now = 0.0;
  EngramFetchCost fetch;
  double fetch_now_s = 0.0;
  double window_s = 0.0;
  double prefetch_s = 0.0;
  double arrival_s = 0.0;
  double completion_s = 0.0;
  double stall_s = 0.0;
};

struct RooflineStepModel::EngramSums {
  double gathers = 0.0;      // in-stream HBM gathers (hbm tier), part of compute
  double stalls = 0.0;       // exposed fetch time
  double fetch = 0.0;        // every layer's fetch, hidden or not
  double host_gather = 0.0;  // staged CPU gathers the engine's host thread runs before the forward
};

// Templates that read only token-count statistics cost what they cost last time when those
// statistics (and whether the step holds prompt chunks) are the same bit for bit. On a miss the
// key is replaced; the caller refills the times.
bool RooflineStepModel::token_times_hit(const BatchStats& s, TokenOpTimes& tc) const {
  if (tc.op_s.size() != fast_.size()) {
    tc = TokenOpTimes{};
    tc.op_s.assign(fast_.size(), 0.0);
  }
  std::array<double, kTokenSets * kGeometryBase> key;
  for (int set = 0; set < kTokenSets; ++set)
    for (int slot = 0; slot < kGeometryBase; ++slot)
      key[static_cast<std::size_t>(set * kGeometryBase + slot)] = s.at(set, slot);
  const bool hit = tc.valid &&
                   std::bit_cast<std::uint64_t>(tc.prefill_chunks) == std::bit_cast<std::uint64_t>(s.prefill_chunks) &&
                   std::memcmp(key.data(), tc.key.data(), sizeof key) == 0;
  if (!hit) {
    tc.key = key;
    tc.prefill_chunks = s.prefill_chunks;
    tc.valid = true;  // op_s is filled by op_pass for every non-geometric template
  }
  return hit;
}

// Seconds of every op template into op_s; returns the compute time of the ops (multiplicities and
// drafter passes applied).
double RooflineStepModel::op_pass(const BatchStats& s, double* op_s, TokenOpTimes* tc) const {
  const double passes = s.at(2, kDrafterPasses);
  // Without prompt tokens in the step, the encoder-half and decoder-half statistics coincide.
  const bool sets_equal = s.prefill_chunks == 0.0;
  const bool drafting = s.at(2, kTokens) > 0.0;
  const double hbm_bw = hbm_rate(rates_, options_.efficiencies);
  const bool token_hit = tc != nullptr && token_times_hit(s, *tc);
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
    } else {
      if (!(f.drafter && !drafting)) sec = template_seconds(f, &s.x[f.forms.base], flops_eff.data(), hbm_bw);
      sec *= options_.host.kernel_time_scale;
    }
    op_s[t] = sec;
    if (tc != nullptr && !token_hit && !f.geometric) tc->op_s[t] = sec;
    compute += sec * f.multiplicity * (f.drafter ? passes : 1.0);
  }
  return compute;
}

// One template's seconds: the same arithmetic as op_seconds() (op_cost.cpp), on resolved constants.
double RooflineStepModel::template_seconds(const FastOp& f, const double* x, double* flops_eff, double hbm_bw) const {
  if (f.collective != CollectiveKind::none)
    return collective_seconds(f.collective, f.forms.collective_bytes(x), f.forms.scale_up_bytes(x), f.ranks, net_);
  const double flops = f.forms.flops(x);
  const double bytes = f.forms.bytes(x);
  if (!(flops > 0.0 || bytes > 0.0)) return 0.0;
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
  if (bytes > 0.0) m = bytes / (f.bw_denom > 0.0 ? f.bw_denom : hbm_bw * f.bw_share * f.bw_curve->at(bytes));
  if (f.exposed > 0.0 && f.math_denom > 0.0 && bytes > 0.0)
    m = std::max(c, m) + f.exposed * exposed_seconds(flops / f.math_denom, m * f.weight_bytes / bytes);
  return std::max({c, m, f.floor_s}) + f.overhead_s;
}

// The Engram chain of the step (see the header): per layer its window, arrival, completion and
// stall into `eng` (may be null), and the totals.
RooflineStepModel::EngramSums RooflineStepModel::engram_chain(const BatchStats& s, const double* op_s, double compute,
                                                              EngramEval* eng) const {
  EngramSums sum;
  const bool hbm = options_.engram.tier == EngramTier::hbm;
  double chain_now = 0.0;
  double chain_all = 0.0;
  double gathers_before = 0.0;  // in-stream HBM gathers of earlier Engram layers
  const bool page_cache =
      options_.engram.tier == EngramTier::ssd && options_.host.engram_ssd_path == SsdPath::page_cache;
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
    if (options_.host.engram_lookup_on_host_thread) sum.host_gather += fetch_[e].cpu_gather_seconds(ev.fetch.host_rows);
    double window = 0.0;
    for (const auto& [t, n] : work_.before_engram(e)) window += n * op_s[t];
    ev.window_s = window + gathers_before;
    const double all_s = ev.fetch.total.seconds();
    sum.fetch += all_s;
    if (hbm) {
      gathers_before += all_s;
      sum.gathers += all_s;
      ev.fetch_now_s = all_s;
      ev.arrival_s = ev.window_s + sum.stalls;
      ev.completion_s = ev.arrival_s + all_s;
      ev.stall_s = 0.0;
      continue;
    }
    const bool ahead = options_.prefill_prefetch && ev.positions_all > ev.positions_now;
    ev.fetch_now_s = ahead ? fetch_[e].cost(ev.positions_now).total.seconds() : all_s;
    chain_now += ev.fetch_now_s;
    chain_all += all_s;
    ev.prefetch_s = ahead ? compute : 0.0;
    ev.arrival_s = ev.window_s + sum.stalls;
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
    sum.stalls += stall;
  }
  return sum;
}

// The engine's host time the GPU waits for (HostOverhead), given the staged CPU gathers of a
// synchronous engine's Engram lookups.
double RooflineStepModel::host_seconds(const BatchStats& s, double host_gather) const {
  const HostOverhead& h = options_.host;
  // Under data-parallel attention every GPU runs its own scheduler over its own share of the
  // sequences, in parallel with the others: the per-sequence host work of a step is one rank's share.
  const double ranks = work_.layout().dp_attention ? static_cast<double>(work_.layout().tp) : 1.0;
  const double seqs = (s.decode_seqs + s.prefill_chunks) / ranks;
  double host = h.per_step.seconds() + seqs * h.per_sequence.seconds();
  // The mmap arm's PIECEWISE steps (HostOverhead::piecewise_per_layer; docs/cost-model.md).
  if (options_.engram.tier == EngramTier::ssd && h.engram_ssd_path == SsdPath::page_cache) {
    const bool drafting = s.at(2, kTokens) > 0.0;
    const double layers =
        card_.num_layers + (drafting ? card_.spec_decode.drafter_layers * s.at(2, kDrafterPasses) : 0.0);
    host += layers * h.piecewise_per_layer.seconds();
  }
  if (h.engram_lookup_on_host_thread) {
    // Synchronous engine: each Engram layer's lookup is prepared on the host thread before the
    // forward (hashes, and the staged CPU gather); one rank's positions under data-parallel attention.
    host += host_gather;
    for (std::size_t e = 0; e < fetch_.size(); ++e) {
      const double positions = s.at(engram_sets_[e], kTokens) / ranks;
      if (positions > 0.0)
        host += h.engram_lookup_per_step.seconds() + positions * h.engram_lookup_per_position.seconds();
    }
  }
  return host;
}

StepCost RooflineStepModel::evaluate(const BatchStats& s, double* op_s, EngramEval* eng, TokenOpTimes* tc) const {
  const double ops = op_pass(s, op_s, tc);
  const EngramSums e = engram_chain(s, op_s, ops, eng);
  const double compute = ops + e.gathers;
  const double host = host_seconds(s, e.host_gather);
  StepCost c;
  c.total = Time::from_seconds(compute + e.stalls + host);
  c.compute = Time::from_seconds(compute);
  c.host_overhead = Time::from_seconds(host);
  c.engram_fetch = Time::from_seconds(e.fetch);
  c.engram_stall = Time::from_seconds(e.stalls);
  return c;
}

StepCost RooflineStepModel::cost(const BatchStats& s, TokenOpTimes* tokens) const {
  std::array<double, kMaxTemplates> op_s;
  return evaluate(s, op_s.data(), nullptr, tokens);
}

StepCost RooflineStepModel::step(const BatchShape& batch) const { return cost(work_.summarize(batch)); }

StepCost RooflineStepModel::step_engram(const BatchShape& batch, std::span<EngramLayerStep> layers) const {
  return cost_engram(work_.summarize(batch), layers, nullptr);
}

StepCost RooflineStepModel::cost_engram(const BatchStats& s, std::span<EngramLayerStep> layers,
                                        TokenOpTimes* tokens) const {
  if (layers.size() < fetch_.size()) throw std::invalid_argument("step_engram: fewer layer slots than Engram layers");
  std::array<double, kMaxTemplates> op_s;
  // The per-layer chain; a small fixed buffer covers every shipped card (two Engram layers at most).
  std::array<EngramEval, 4> small;
  std::vector<EngramEval> large;
  EngramEval* eng = small.data();
  if (fetch_.size() > small.size()) {
    large.resize(fetch_.size());
    eng = large.data();
  }
  const StepCost c = evaluate(s, op_s.data(), eng, tokens);
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
  return c;
}

// Why one Engram layer stalls or not, in words, for reports.
std::string RooflineStepModel::engram_reason(std::size_t e, const EngramEval& ev) const {
  const int layer = engram_layers_[e];
  const EngramTier tier = options_.engram.tier;
  const std::string layers_before = layer == 0 ? "the embedding" : "embedding + layers 0-" + std::to_string(layer - 1);
  char buf[512];
  if (tier == EngramTier::hbm) {
    std::snprintf(buf, sizeof buf,
                  "tables in HBM: %.0f row lookups gathered in-stream at HBM bandwidth (%s, counted in compute); "
                  "nothing crosses the host link, no stall",
                  ev.fetch.lookups, fmt_ms(ev.fetch.total.seconds()).c_str());
    return buf;
  }
  if (ev.positions_all <= 0.0) return "no token positions reach this layer in this step";
  const std::string what =
      tier == EngramTier::dram
          ? std::to_string(static_cast<long long>(std::llround(ev.fetch.host_rows))) +
                " distinct rows over the host link"
          : std::to_string(static_cast<long long>(std::llround(ev.fetch.ssd_pages))) + " 4 KiB NVMe pages (" +
                std::to_string(static_cast<long long>(std::llround(ev.fetch.host_rows))) + " rows)";
  const std::string chained = e > 0 ? " after the earlier layers' fetches on the same link" : "";
  if (ev.stall_s > 0.0) {
    std::snprintf(buf, sizeof buf,
                  "exposed: %s take %s (%s-bound) and complete at %s%s, but the GPU reaches layer %d at %s "
                  "(compute of %s); stall %s",
                  what.c_str(), fmt_ms(ev.fetch.total.seconds()).c_str(), ev.fetch.bound,
                  fmt_ms(ev.completion_s).c_str(), chained.c_str(), layer, fmt_ms(ev.arrival_s).c_str(),
                  layers_before.c_str(), fmt_ms(ev.stall_s).c_str());
  } else {
    std::snprintf(buf, sizeof buf,
                  "hidden: %s take %s (%s-bound), complete at %s%s, before the GPU reaches layer %d at %s "
                  "(compute of %s)",
                  what.c_str(), fmt_ms(ev.fetch.total.seconds()).c_str(), ev.fetch.bound,
                  fmt_ms(ev.completion_s).c_str(), chained.c_str(), layer, fmt_ms(ev.arrival_s).c_str(),
                  layers_before.c_str());
  }
  return buf;
}

// Every op of the step in execution order, with the hbm tier's in-stream gathers as ops of their
// layers.
void RooflineStepModel::op_reports(const StepWork& work, const EngramEval* eng, StepBreakdown& out) const {
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
}

StepBreakdown RooflineStepModel::breakdown(const BatchShape& batch) const {
  StepBreakdown out;
  const StepWork work = work_.decompose(batch);
  out.stats = work.stats;
  out.drafter_passes = work.drafter_passes;
  std::vector<double> op_s(work_.templates().size());
  std::vector<EngramEval> eng(fetch_.size());
  out.cost = evaluate(work.stats, op_s.data(), eng.data(), nullptr);
  op_reports(work, eng.data(), out);
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
    r.reason = engram_reason(e, ev);
    out.engram.push_back(std::move(r));
  }
  return out;
}

}  // namespace engramsim
