// The roofline step-time model: what one scheduler step costs a replica (tp GPUs, ep expert groups,
// optional data-parallel attention) with its Engram tables in HBM, host DRAM or NVMe.
//
//   compute  = sum over ops of op time (models/op_cost.hpp) x multiplicity, per rank (ranks are
//              symmetric), plus the in-stream HBM Engram gathers (hbm tier);
//   Engram   = per Engram layer l, the rank's fetch time f_l (models/engram_fetch.hpp). Decode rows
//              are known only once the previous token is sampled, so all fetches start at forward
//              entry, one after the other on the host link (vLLM issues every layer's lookup at
//              forward entry on a side stream). Fetch l completes at C_l = f_1 + ... + f_l; the GPU
//              reaches layer l at A_l = window_l + stalls before l, where window_l is the compute
//              of the embedding and layers 0..l-1. stall_l = max(0, C_l - A_l).
//              Prompt chunks that continue a prompt (cached context > 0) are known a step ahead, so
//              with prefill_prefetch their rows may use the previous step as well (this step's
//              compute stands in for it): stall_l = max(0, C_now_l - A_l, C_all_l - (A_l + prev)).
//   host     = the engine's per-step host overhead (scheduling, input preparation, sampling
//              bookkeeping) that the GPU waits for: base + per-sequence cost, documented per engine.
//   total    = compute + sum of stalls + host.
// step() is the simulator's fast path: one pass over the batch, one evaluation per distinct op
// template, a few table reads per Engram layer, no allocation. breakdown() evaluates the same
// templates per layer and adds names and reasons for reports.
// The model holds no mutable state: memoization lives in a wrapper (models/step_memo.hpp) that
// keeps results keyed on the batch statistics and, through cost(), the seconds of the ops that read
// only token counts (TokenOpTimes); cached results equal computed ones bit for bit.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hardware/calibration_profile.hpp"
#include "hardware/node_spec.hpp"
#include "models/collectives.hpp"
#include "models/efficiency.hpp"
#include "models/engine_memory.hpp"
#include "models/engram_fetch.hpp"
#include "models/kv_send.hpp"
#include "models/model_card.hpp"
#include "models/op_cost.hpp"
#include "models/step_model.hpp"
#include "models/weights.hpp"
#include "models/work.hpp"

namespace engramsim {

// Host time per step the GPU waits for: an engine preset (models/engines/, models/engine_loader.hpp;
// the basis of each figure in docs/cost-model.md). Default-constructed: no host time.
struct HostOverhead {
  std::string engine;
  Time per_step;
  Time per_sequence;  // per sequence in the batch (decode sequences + prefill chunks)
  // PIECEWISE CUDA graphs leave each layer's attention region to eager host calls: this much per
  // backbone layer, and per drafter layer and drafter pass. Charged on every step of the ssd
  // page_cache arm, which runs PIECEWISE throughout and syncs the host at each Engram layer; not on
  // the prompt-chunk steps vLLM's FULL_AND_PIECEWISE mode also runs PIECEWISE, whose GPU work
  // outlasts the launches (docs/cost-model.md "PIECEWISE graphs").
  Time piecewise_per_layer;
  // Engines that prepare Engram lookups on their one host thread between sampling and the next
  // forward (nano-vllm): N-gram hashing of every position of every Engram layer and, on a staged
  // path, the CPU gather into pinned staging happen before the GPU starts; only the copy overlaps.
  bool engram_lookup_on_host_thread = false;
  Time engram_lookup_per_step;      // per Engram layer: host calls of the lookup (hash, index, copy launch)
  Time engram_lookup_per_position;  // per position per Engram layer: the N-gram hashes
  // dram tier, zero_copy: share of the SMs the side-stream gather holds while it runs (0: none).
  double engram_side_stream_sm_share = 0.0;
  // ssd tier: how the engine reads the tables, and the page_cache path's host terms.
  SsdPath engram_ssd_path = SsdPath::direct;
  bool engram_host_gather_overlap = false;  // page_cache: the round trip overlaps the layers before
  Time engram_host_round_trip;              // page_cache: fixed host calls per Engram layer and step
  Time engram_host_dedup_per_id;            // page_cache: host dedup per row id
  int engram_page_fault_concurrency = 1;    // page_cache: faults in flight per rank
  // The engine's GPU kernels take this multiple of every op's roofline time (collectives included):
  // an engine whose kernels for the model are not yet tuned for the GPU (vllm-rocm-day7). 1: none.
  double kernel_time_scale = 1.0;
  // The engine's routed-expert (grouped-GEMM) kernels reach these shares of the bandwidth and FLOP
  // rates the step model charges, by expert precision; copied into the model's Efficiencies.
  MoeKernelShares moe;
  // The engine's dense GEMMs on block-scaled FP8 weights walk K one 128-deep scale block at a time,
  // this long per block at decode batch sizes; copied into the model's Efficiencies. 0: no floor.
  Time block_fp8_gemm_k_step = Time::zero();
  // Which producers of a projection's input quantize it for per-tensor FP8 or FP4 weights; every other
  // such input gets a quantizing kernel of its own (models/work.hpp).
  ActivationQuantFusion quant_fusion;
  // The head counts the engine's sparse-attention kernels pad a rank's query heads to, by GPU vendor
  // (models/work.hpp); a vendor not listed: no padding.
  std::map<std::string, SparseAttentionKernels> sparse_attention_by_vendor;
  // The engine's own all-reduce kernel, measured per GPU (models/data/engine-allreduce/): on a GPU the
  // table covers it prices the all-reduces at the rank counts measured there. Empty: the NCCL fit.
  std::string all_reduce_table;
  // The engine's front end turns each request's prompt text into token ids on one of its workers, in
  // arrival order, before the scheduler sees it: this long per prompt token (the whole prompt,
  // cached prefix included). Not a step cost: the replica queues requests through it
  // (sim/serving/replica/replica.hpp). 0: requests reach the scheduler on arrival.
  Time frontend_per_prompt_token = Time::zero();
  // A disaggregated deployment: when the prefill side sends a request's KV. Not a step cost.
  KvSend kv_send = KvSend::after_prefill;
  // What the engine's start-up memory profile takes before it sizes the KV pool (the footprint's
  // terms; models/engine_memory.hpp).
  EngineMemoryProfile memory;
};

struct RooflineOptions {
  ParallelLayout layout;
  EngramFetchParams engram;
  Efficiencies efficiencies = default_efficiencies();
  CollectiveParams collectives = dgx_h100_nccl_defaults();
  HostOverhead host;  // none unless an engine preset is given (load_engine)
  bool prefill_prefetch = true;
};

struct OpReport {
  std::string name;
  int layer = -1;      // backbone layer; -1 before the layers, -2 after them, -3 drafter
  double count = 1.0;  // times it runs in the step (drafter passes)
  OpWork work;
  OpCost cost;  // one run
  Time total;   // cost.time x count
};

struct EngramLayerReport {
  int layer = 0;
  EngramTier tier = EngramTier::hbm;
  double positions = 0.0;  // token positions through the layer (replica)
  EngramFetchCost fetch;   // this rank, all positions of the step
  Time window;             // compute before the layer (embedding + layers 0..l-1)
  Time prefetch_window;    // extra time for rows known a step ahead (previous step)
  Time arrival;            // when the GPU reaches the layer (window + earlier stalls)
  Time completion;         // when this layer's fetch completes
  Time stall;
  std::string reason;  // why the stall is what it is, in words
};

struct StepBreakdown {
  StepCost cost;
  std::vector<OpReport> ops;  // in execution order
  std::vector<EngramLayerReport> engram;
  BatchStats stats;
  double drafter_passes = 0.0;
};

class RooflineStepModel final : public StepTimeModel {
 public:
  RooflineStepModel(const ModelCard& card, const NodeSpec& node, RooflineOptions options);

  // The seconds of the op templates that read only token-count statistics, for a caller that keeps
  // them between steps (models/step_memo.hpp): a step with the same token counts (bit for bit)
  // reuses them. Sized by the model on first use.
  struct TokenOpTimes {
    bool valid = false;
    double prefill_chunks = 0.0;
    std::array<double, kTokenSets * kGeometryBase> key{};  // the non-geometry statistics of every set
    std::vector<double> op_s;                              // per template (geometric ones unused)
  };

  StepCost step(const BatchShape& batch) const override;
  std::size_t engram_layer_count() const override { return fetch_.size(); }
  StepCost step_engram(const BatchShape& batch, std::span<EngramLayerStep> layers) const override;
  StepBreakdown breakdown(const BatchShape& batch) const;

  // step() and step_engram() in two halves, for a memoizing caller: the batch statistics, and the
  // cost of a batch with those statistics. `tokens` (may be null) supplies and keeps op times.
  BatchStats stats(const BatchShape& batch) const { return work_.summarize(batch); }
  StepCost cost(const BatchStats& s, TokenOpTimes* tokens = nullptr) const;
  StepCost cost_engram(const BatchStats& s, std::span<EngramLayerStep> layers, TokenOpTimes* tokens = nullptr) const;

  const WorkModel& work() const { return work_; }
  const RooflineOptions& options() const { return options_; }
  const NodeSpec& node() const { return node_; }
  const ModelCard& card() const { return card_; }
  const std::vector<EngramFetchModel>& engram_fetch() const { return fetch_; }

 private:
  struct EngramEval;  // one Engram layer of the chain (roofline_step_model.cpp)
  struct EngramSums;  // the chain's totals
  // The shared core of step() and breakdown(): op seconds per template into `op_s`, the Engram
  // chain into `engram` (may be null: the fast path keeps only the sums), the host time.
  StepCost evaluate(const BatchStats& s, double* op_s, EngramEval* engram, TokenOpTimes* tokens) const;
  double op_pass(const BatchStats& s, double* op_s, TokenOpTimes* tokens) const;
  struct FastOp;
  double template_seconds(const FastOp& f, const double* x, double* flops_eff, double hbm_bw) const;
  bool token_times_hit(const BatchStats& s, TokenOpTimes& tokens) const;
  EngramSums engram_chain(const BatchStats& s, const double* op_s, double compute, EngramEval* engram) const;
  double host_seconds(const BatchStats& s, double host_gather) const;
  std::string engram_reason(std::size_t e, const EngramEval& ev) const;
  void op_reports(const StepWork& work, const EngramEval* eng, StepBreakdown& out) const;

  // Everything op_seconds() needs about a template, resolved once (precision fallback, kernel
  // overhead, class), so the per-step loop only evaluates the linear forms and two curves. The
  // result equals op_seconds() on the template's OpWork (tests compare step() with breakdown()).
  struct FastOp {
    PackedForms forms;
    std::uint16_t key_slot = 0;
    double key_coef = 1.0;
    double bw_key = 0.0;
    OpClass op_class = OpClass::gemm;
    double peak = 0.0;
    double overhead_s = 0.0;
    double floor_s = 0.0;  // kernels x the minimum kernel duration
    CollectiveKind collective = CollectiveKind::none;
    int ranks = 1;
    double multiplicity = 0.0;
    bool drafter = false;
    std::size_t twin = static_cast<std::size_t>(-1);
    std::uint16_t flops_group = 0;  // templates with the same class and shape key share one lookup
    bool geometric = false;         // reads an attention-geometry statistic (contexts, pairs, KV)
    const EfficiencyCurve* flops_curve = nullptr;
    const EfficiencyCurve* bw_curve = nullptr;
    double flops_denom = 0.0;   // peak x FLOP efficiency when the efficiency curve is constant, else 0
    double bw_denom = 0.0;      // HBM bandwidth x efficiency when it does not depend on the bytes, else 0
    double bw_share = 1.0;      // class_bandwidth_share() of the op's class on this GPU
    double exposed = 0.0;       // exposed_share(): the part of the shorter term added to the longer
    double math_denom = 0.0;    // peak x the FLOP curve's top: the math at the kernels' full rate
    double weight_bytes = 0.0;  // PackedForms::fixed_bytes(): the weights streamed once per step
  };

  ModelCard card_;
  NodeSpec node_;
  RooflineOptions options_;
  WorkModel work_;
  HardwareRates rates_;
  CollectiveModel net_;
  std::vector<EngramFetchModel> fetch_;
  std::vector<int> engram_layers_;
  std::vector<int> engram_sets_;
  std::vector<FastOp> fast_;
  std::size_t flops_groups_ = 0;
};

}  // namespace engramsim
