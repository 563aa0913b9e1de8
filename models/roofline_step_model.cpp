#include "models/roofline_step_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace engramsim {
namespace {

constexpr std::size_t kMaxTemplates = 512;
constexpr std::size_t kMaxEngramLayers = 16;

std::string fmt_ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  return buf;
}

}  // namespace

// Exposed host time per step (estimates; see docs/cost-model.md, "Host overhead"). vLLM V1 and
// SGLang overlap most scheduling with the GPU (async scheduling, CUDA graphs), TensorRT-LLM runs
// its scheduler in C++, nano-vllm prepares inputs and post-processes in Python synchronously.
HostOverhead host_overhead_for(const std::string& engine) {
  if (engine == "vllm") return {engine, Time::us(250), Time::ns(500)};
  if (engine == "sglang") return {engine, Time::us(200), Time::ns(400)};
  if (engine == "trtllm") return {engine, Time::us(100), Time::ns(200)};
  if (engine == "nano-vllm") return {engine, Time::us(1000), Time::ns(4000)};
  throw std::invalid_argument("unknown engine '" + engine + "' (known: vllm, sglang, trtllm, nano-vllm)");
}

const std::vector<std::string>& known_engines() {
  static const std::vector<std::string> names = {"vllm", "sglang", "trtllm", "nano-vllm"};
  return names;
}

RooflineStepModel::RooflineStepModel(const ModelCard& card, const NodeSpec& node, RooflineOptions options)
    : card_(card),
      node_(node),
      options_(std::move(options)),
      work_(card_, build_weight_inventory(card_), options_.layout),
      rates_(node_.gpu),
      net_(options_.collectives, node_.gpu.scale_up_bandwidth) {
  if (options_.layout.tp > std::max(1, node_.scale_up_domain_gpus) && node_.scale_up_domain_gpus > 0)
    throw std::invalid_argument("step model: tp exceeds the node's scale-up domain");
  if (work_.templates().size() > kMaxTemplates)
    throw std::invalid_argument("step model: more distinct ops than the fast path holds");
  if (card_.engram) {
    if (card_.engram->layers.size() > kMaxEngramLayers)
      throw std::invalid_argument("step model: more Engram layers than the fast path holds");
    for (std::size_t e = 0; e < card_.engram->layers.size(); ++e) {
      fetch_.emplace_back(*card_.engram, static_cast<int>(e), options_.layout.tp, node_, options_.efficiencies,
                          options_.engram);
      engram_layers_.push_back(card_.engram->layers[e]);
      engram_sets_.push_back(work_.layer_set(card_.engram->layers[e]));
    }
  }
}

double RooflineStepModel::evaluate(const BatchStats& s, double* op_s, EngramEval* eng, double* compute_s,
                                   double* host_s) const {
  const auto& templates = work_.templates();
  const double passes = s.at(2, kDrafterPasses);
  // Without prompt tokens in the step, the encoder-half and decoder-half statistics coincide.
  const bool sets_equal = s.prefill_chunks == 0.0;
  const bool drafting = s.at(2, kTokens) > 0.0;
  EfficiencyMemo memo;
  double compute = 0.0;
  for (std::size_t t = 0; t < templates.size(); ++t) {
    const std::size_t twin = work_.set0_twin(t);
    if (sets_equal && twin < t) {
      op_s[t] = op_s[twin];
    } else if (work_.is_drafter(t) && !drafting) {
      op_s[t] = 0.0;
    } else {
      const OpWork w = work_.evaluate(t, s);
      op_s[t] = op_seconds(w, rates_, options_.efficiencies, net_, &memo).total;
    }
    compute += op_s[t] * work_.multiplicity(t) * (work_.is_drafter(t) ? passes : 1.0);
  }

  const bool hbm = options_.engram.tier == EngramTier::hbm;
  double stalls = 0.0;
  double chain_now = 0.0;
  double chain_all = 0.0;
  double gathers_before = 0.0;  // in-stream HBM gathers of earlier Engram layers
  double gathers_total = 0.0;
  for (std::size_t e = 0; e < fetch_.size(); ++e) {
    EngramEval& ev = eng[e];
    const int set = engram_sets_[e];
    ev.positions_all = s.at(set, kTokens);
    // Decode rows and the rows of a prompt's first chunk are known only in this step.
    ev.positions_now = s.decode_positions + (set == 0 ? s.prefill_first_chunk_tokens : 0.0);
    ev.fetch = fetch_[e].cost(ev.positions_all);
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
    ev.stall_s = stall;
    stalls += stall;
  }
  compute += gathers_total;
  const double seqs = s.decode_seqs + s.prefill_chunks;
  const double host = options_.host.per_step.seconds() + seqs * options_.host.per_sequence.seconds();
  *compute_s = compute;
  *host_s = host;
  return compute + stalls + host;
}

StepCost RooflineStepModel::step(const BatchShape& batch) const {
  const BatchStats s = work_.summarize(batch);
  std::array<double, kMaxTemplates> op_s;
  std::array<EngramEval, kMaxEngramLayers> eng;
  double compute = 0.0, host = 0.0;
  const double total = evaluate(s, op_s.data(), eng.data(), &compute, &host);
  StepCost c;
  c.total = Time::from_seconds(total);
  c.compute = Time::from_seconds(compute);
  c.host_overhead = Time::from_seconds(host);
  double fetch = 0.0, stall = 0.0;
  for (std::size_t e = 0; e < fetch_.size(); ++e) {
    fetch += eng[e].fetch.total.seconds();
    stall += eng[e].stall_s;
  }
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
  double compute = 0.0, host = 0.0;
  const double total = evaluate(work.stats, op_s.data(), eng.data(), &compute, &host);

  auto add = [&](const OpWork& w, int layer, double count) {
    OpReport r;
    r.name = w.name;
    r.layer = layer;
    r.count = count;
    r.work = w;
    r.cost = op_cost(w, rates_, options_.efficiencies, net_);
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
