// ScenarioParams -> everything one run needs: the effective model card, the HBM footprint, the KV
// pool per replica, the replica count, one shared step-time model, the price, and a RunConfig.
//
//   card        the scenario's card with its choices applied: Engram removed for tier `none`, the
//               drafter removed when speculative decoding is off, draft_tokens / acceptance_length
//               replaced when given;
//   footprint   compute_footprint(card, node, {tp, ep, attention, tier, max_num_batched_tokens,
//               max_num_seqs, max_model_len, gpu_memory_utilization, block_size, ...}). Infeasible ->
//               InfeasibleScenario (the CLI's exit code 3) carrying the footprint's reason;
//   replicas    `replicas`, or nodes x (gpu_count / tp) (a replica spanning nodes: nodes x gpu_count / tp);
//   KV pool     footprint.replica_kv_tokens / block_size blocks per replica, less an Engram HBM hot-row
//               cache (split over the replica's GPUs; it must leave one max_model_len sequence);
//   host DRAM   pinned tables + DRAM row caches (per replica, ssd tier) must fit the node's host DRAM
//               after its reserve;
//   scheduler   the scenario's limits are per engine scheduler; under data-parallel attention a
//               replica runs tp schedulers whose batches the step model spreads over its ranks, so
//               the replica's single simulated scheduler gets tp x max_num_seqs and
//               tp x max_num_batched_tokens;
//   step model  one RooflineStepModel (const, shared by every replica through one MemoStepModel):
//               the footprint's resolved layout, the Engram fetch options (active_gpus 0 -> the GPUs
//               the deployment occupies on one node), the engine's host overhead, and the
//               calibration profile applied when given;
//   price       $/GPU-hour = the node's GPU-hour price at the tier + the Engram capacity the node adds
//               (pinned tables and DRAM row caches in host DRAM, table files on NVMe) at the node's
//               capital prices,
//               amortised over its life and shared by the GPUs the footprint places on the node.
// A disaggregated deployment (deployment.kind) is two such builds: the decode pool is this scenario
// (params.deployment, params.node, as for a colocated one; replicas "decode<i>") and the prefill
// pool is built the same way from the prefill keys into prefill_pool (replicas "prefill<i>"); the
// run gets both (RunConfig::disaggregation: the prefill replicas, scheduler and router, and the KV
// transfer: one token's whole KV, each pool's node fabric with its NICs, KV ranks and layout), one
// price per GPU-hour weighted by the pools' GPUs, and power likewise.
// The RunConfig borrows the step model: keep the BuiltScenario alive while it runs (moving it is
// fine; the model lives on the heap).
#pragma once

#include <algorithm>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hardware/calibration_profile.hpp"
#include "models/calibration_apply.hpp"
#include "models/footprint.hpp"
#include "models/roofline_step_model.hpp"
#include "models/step_memo.hpp"
#include "scenario/schema/scenario.hpp"
#include "sim/run/run_simulation.hpp"

namespace engramsim::scenario {

// The deployment does not fit (footprint infeasible, or no replica on the GPUs given).
class InfeasibleScenario : public std::runtime_error {
 public:
  explicit InfeasibleScenario(const std::string& reason) : std::runtime_error(reason) {}
};

struct ScenarioPrice {
  MoneyRate gpu_hour;         // the tier's GPU-hour price
  MoneyRate engram_capacity;  // amortised Engram DRAM/SSD capital per GPU-hour
  MoneyRate total() const { return gpu_hour + engram_capacity; }
  // GPUs paid per GPU used (core/cost_metrics.hpp paid_gpus_per_used_gpu): the idle GPUs of a
  // node that holds a whole number of replicas; the run's tokens per dollar and power use it.
  double paid_per_used = 1.0;
  MoneyRate per_gpu_used() const { return total() * paid_per_used; }
};

struct BuiltScenario {
  ScenarioParams params;
  ModelCard card;  // effective
  FootprintOptions footprint_options;
  Footprint footprint;
  int replicas = 0;
  int gpus_per_replica = 0;
  int active_gpus_per_node = 0;            // GPUs fetching Engram rows at once on one node
  std::int64_t kv_blocks_per_replica = 0;  // after the HBM hot-row cache's share
  Bytes hbm_cache_per_gpu;                 // Engram hot rows in HBM (dram/ssd tiers), taken from the KV pool
  Bytes dram_cache_per_node;               // Engram DRAM row caches of the node's replicas (ssd tier)
  // Host KV-offload pool per replica (deployment.scheduler.kv_offloading_size): its blocks and the
  // bytes of one block over the replica's GPUs (0 blocks: no pool).
  std::int64_t kv_offload_blocks_per_replica = 0;
  Bytes kv_block_bytes_per_replica;
  // Host DRAM of one node by use (docs/memory-tiers.md "Host memory per node").
  struct HostMemory {
    Bytes capacity, reserve, pinned_engram, row_caches, kv_offload_pools;
    Bytes page_cache_capacity;  // what the OS page cache may hold (ssd tier, page_cache path)
    Bytes page_cache_used;      // Engram table pages resident there (at most the table files)
    Bytes rest() const {
      return Bytes(std::max(0.0, capacity.value() - reserve.value() - pinned_engram.value() - row_caches.value() -
                                     kv_offload_pools.value() - page_cache_used.value()));
    }
  } host_memory;
  std::int32_t scheduler_ranks = 1;  // engine schedulers per replica (tp under data-parallel attention)
  std::shared_ptr<const RooflineStepModel> step_model;
  std::shared_ptr<const MemoStepModel> step_memo;  // step_model behind its memo; what the replicas call
  CalibrationReport calibration_applied;           // empty without a profile
  std::vector<SectionDescription> calibration_sections;
  ScenarioPrice price;
  sim::RunConfig run;  // ready for run_simulation()
  // Kind disaggregated: the prefill pool, built as a deployment of its own (its `run` is unused; the
  // replicas of run.disaggregation call its step model). Null for a colocated deployment.
  std::unique_ptr<BuiltScenario> prefill_pool;

  std::string engram_label() const;  // "hbm", "dram", "ssd" or "none"
  // One line: "1 x TP2 (EP2, data-parallel attention) on hgx-b300, Engram in dram, 4,096 KV blocks x 16".
  std::string deployment_line() const;
  // The deployment lines of the run: deployment_line() alone, or for a disaggregated deployment
  // "prefill: <its line>", "decode: <its line>" and "KV transfer: ...".
  std::vector<std::string> deployment_lines() const;
  // GPUs the run occupies (both pools under kind disaggregated).
  int run_gpus() const;
  // GPUs of the unit a fleet plan buys: one replica, or a disaggregated deployment's whole set of
  // pools (its prefill:decode ratio is the configuration; docs/disaggregation.md "Planning").
  int planning_unit_gpus() const { return prefill_pool ? run_gpus() : gpus_per_replica; }
  // "host memory per node 1862.6 GiB: reserve 186.3, pinned Engram tables 188.8, ..." (run's header).
  std::string host_memory_line() const;
};

BuiltScenario build_scenario(ScenarioParams params);

// Drops a built scenario's step model (its tables are most of a built scenario's memory; the
// replicas' pointers become null) and builds it again from the same parameters, the same bit for
// bit. A session of many variants keeps every variant built but only the running ones' models
// (docs/scenarios.md "Input limits"). Restoring a scenario that has its model changes nothing.
void release_step_model(BuiltScenario& b);
void restore_step_model(BuiltScenario& b);

// The card a deployment runs: without its Engram module when the deployment has no tier, with the
// deployment's speculative decoding.
ModelCard deployed_card(const ModelCard& card, const ScenarioDeployment& d);

// The footprint options of one replica of a deployment: its layout rule, tier and per-scheduler
// limits (what `engramsim footprint` prices for the same keys).
FootprintOptions footprint_options(const ScenarioDeployment& d);

// The step model's options for a deployment on a layout (Engram fetch, tier, engine), before the
// node-level terms a run adds (active GPUs, page cache) and any calibration profile.
RooflineOptions step_model_options(const ScenarioDeployment& d, const ParallelLayout& layout);

// The Engram table pages a node's OS page cache holds on the ssd tier's page_cache path: the host
// DRAM the reserve, the pinned tables, the row caches and the KV-offload pools leave (at most
// `page_cache_limit`), at most the table files; zero on another tier or path. `capacity` receives
// what the page cache may hold, whatever the tier.
Bytes engram_page_cache(const ScenarioDeployment& d, const NodeFootprint& nf, Bytes row_caches, Bytes kv_offload,
                        Bytes* capacity = nullptr);

// The resolved deployment as JSON text (scenario.json): model, node, layout, replicas, KV pool,
// footprint terms per GPU, price, calibration sections, workload and SLO.
std::string scenario_json(const BuiltScenario& b);

}  // namespace engramsim::scenario
