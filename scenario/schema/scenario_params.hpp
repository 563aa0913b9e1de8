// The typed parameters a scenario file is read into (scenario.hpp reads them; deployment_schema.hpp
// and scheduler_schema.hpp declare the keys of their sections): plain structs, no functions but
// ConcurrencyRule::apply, so that every table can name them without including the reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "core/enum_names.hpp"
#include "hardware/calibration_profile.hpp"
#include "hardware/node_spec.hpp"
#include "models/engram_fetch.hpp"
#include "models/footprint.hpp"
#include "models/model_card.hpp"
#include "models/roofline_step_model.hpp"
#include "scenario/schema/scenario_in_run.hpp"
#include "scenario/schema/scenario_workload.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/serving/scheduler/scheduler.hpp"

namespace engramsim::scenario {

struct ScenarioEngram {
  std::optional<EngramTier> tier;  // nullopt: `none`, the card's Engram removed
  EngramFetchParams fetch;         // tier copied in when set; active_gpus 0 = automatic
  bool prefill_prefetch = true;
  bool share_across_replicas = false;  // one pinned DRAM copy per node (footprint)
  // page_cache: a limit on the node's OS page cache (a cgroup memory limit, say); nullopt: all the
  // host RAM the pinned pools and the reserve leave (models/engram_host_path.hpp).
  std::optional<Bytes> page_cache_limit;
  ScenarioInRun in_run;  // the in-run tier (scenario_in_run.hpp), with the top-level fabric: and kv_offload:
};

// A scheduler limit derived from the workload's concurrency, as InferenceX's launch scripts compute
// vLLM serve flags from it (facts §3.1): ceil(per_concurrency x concurrency), rounded up to a power
// of two when `power_of_two`, then clamped to [min, max]. Written as a map in place of a number:
// `max_num_seqs: {per_concurrency: 2, min: 16, max: 256}`.
struct ConcurrencyRule {
  double per_concurrency = 1.0;
  std::int64_t min = 1;
  std::int64_t max = 2147483647;
  bool power_of_two = false;
  SourceLocation where;  // the key, for errors
  std::string field;     // its dotted path
  std::int64_t apply(std::int64_t concurrency) const;
};

struct ScenarioScheduler {
  sim::SchedulerParams policy;  // name, per-scheduler token budget and sequence cap, chunking
  int block_size = 16;
  bool enable_prefix_caching = false;
  // Pinned host DRAM per replica for the KV-offload pool (kv_offload_pool.hpp); 0 = no pool.
  Bytes kv_offloading_size;
  double gpu_memory_utilization = 0.9;
  // TensorRT-LLM's KV rule (kv_cache_free_gpu_mem_fraction) when > 0: KV takes this share of the HBM
  // left after weights, activations and reserve; gpu_memory_utilization is then not used. 0: not
  // used (vLLM's rule).
  double kv_cache_free_gpu_mem_fraction = 0.0;
  // CUDA-graph batch sizes per attention rank that decode-only steps are padded to
  // (sim/serving/decode_padding.hpp); empty: no padding.
  std::vector<std::int32_t> cuda_graph_batch_sizes;
  // vLLM's --max-cudagraph-capture-size in tokens (0: not given): the graphs vLLM captures by
  // default up to it, in sequences per decode step (resolve_concurrency_limits).
  std::int64_t max_cudagraph_capture_size = 0;
  // Set when the limit was written as a rule; resolved against the workload's concurrency.
  std::optional<ConcurrencyRule> max_num_seqs_rule;
  std::optional<ConcurrencyRule> capture_size_rule;
};

struct ScenarioSpecDecode {
  bool enabled = false;
  int draft_tokens = 0;
  double acceptance_length = 1.0;
};

struct ScenarioDeployment {
  int nodes = 0;     // `nodes: N`: every GPU of N nodes; 0 when `replicas` is given
  int replicas = 0;  // `replicas: N`; 0 when `nodes` is given
  int tp = 1;
  int ep = 0;  // 0 = automatic (footprint.hpp)
  AttentionParallel attention = AttentionParallel::automatic;
  // Routed-token spread over the EP ranks (models/expert_balance.hpp): no balancer unless stated.
  ExpertBalance expert_balance{ExpertPlacement::static_order, 0};
  std::string engine = "vllm";     // the engine preset's name (models/engines/, engine_loader.hpp)
  std::string engine_path;         // the preset file, resolved
  HostOverhead host;               // its host overhead per step
  std::int64_t max_model_len = 0;  // 0 = the card's max_context
  int frontend_workers = -1;       // front-end workers per replica; 0: token ids arrive; -1: one per DP rank
  ScenarioEngram engram;
  ScenarioScheduler scheduler;
  ScenarioSpecDecode spec_decode;
  std::string router = "round_robin";
};

// `deployment.kind`: one pool of replicas serving whole requests, or a prefill pool and a decode
// pool with each request's KV cache moving between them (docs/disaggregation.md).
enum class DeploymentKind { colocated, disaggregated };
inline constexpr EnumNames<DeploymentKind, 2> kDeploymentKindNames{{{
    {DeploymentKind::colocated, "colocated"},
    {DeploymentKind::disaggregated, "disaggregated"},
}}};

// [E] The fixed cost of one KV transfer beside its bytes (the connector's request to read, and the
// notice that the blocks landed): vLLM's NixlConnector posts a request's READ in about 7 ms
// (NIXL telemetry 6.7 ms mean, vllm-project/vllm#50913), part of which grows with the blocks
// posted; 5 ms is taken as the part that does not.
inline constexpr Time kDefaultKvSetupLatency = Time::ms(5);

// `deployment.kv_transfer` of a disaggregated deployment.
struct ScenarioKvTransfer {
  std::int32_t local_prefill_threshold = 0;  // prompt tokens the decode replica computes itself
  Time setup_latency = kDefaultKvSetupLatency;
  std::string backend = "native";  // fabric backend (sim/fabric/fabric.hpp)
};

// One pool of a disaggregated deployment: its deployment keys and its node (the scenario's `node`
// unless the pool names one).
struct ScenarioPool {
  ScenarioDeployment deployment;
  NodeSpec node;
  std::string node_path;  // resolved
};

// `deployment.kind: disaggregated`. The decode pool is ScenarioParams::deployment and ::node, so
// that whatever reads one deployment reads the decode pool; the prefill pool and the transfer are
// here.
struct ScenarioDisaggregation {
  ScenarioPool prefill;
  ScenarioKvTransfer kv_transfer;
};

// A percentile target: summary statistic `stat` of `metric` must not exceed `limit`.
enum class SloMetric { ttft, tpot, itl, e2el };
inline constexpr EnumNames<SloMetric, 4> kSloMetricNames{{{
    {SloMetric::ttft, "ttft"},
    {SloMetric::tpot, "tpot"},
    {SloMetric::itl, "itl"},
    {SloMetric::e2el, "e2el"},
}}};
enum class SloStat { p50, p90, p99, mean };
inline constexpr EnumNames<SloStat, 4> kSloStatNames{{{
    {SloStat::p50, "p50"},
    {SloStat::p90, "p90"},
    {SloStat::p99, "p99"},
    {SloStat::mean, "mean"},
}}};

struct SloTarget {
  std::string key;  // as written: "ttft_p99"
  SloMetric metric = SloMetric::ttft;
  SloStat stat = SloStat::p99;
  Time limit;
};

struct ScenarioSlo {
  sim::SloParams per_request;      // bounds for goodput (explicit, else the p99 targets)
  std::vector<SloTarget> targets;  // checked against the run's summary
  double min_interactivity = 0.0;  // tok/s/user from the median TPOT; 0 = none
  bool any() const { return per_request.any() || !targets.empty() || min_interactivity > 0.0; }
};

struct ScenarioParams {
  std::string file;  // the scenario file as given
  std::string name;
  std::string description;
  std::uint64_t seed = 0;
  std::string model_path;  // resolved
  // The scenario's `node`; under kind disaggregated the decode pool's (its own `node:` when it names one).
  std::string node_path;
  ModelCard card;  // as loaded (build applies spec-decode and Engram choices)
  NodeSpec node;
  std::string calibration_path;  // resolved; empty: none
  std::optional<CalibrationProfile> calibration;
  PriceTier price_tier = PriceTier::hyperscaler;
  std::string prices_path;  // `prices:` resolved; empty: the node's catalog prices
  // The deployment; under kind disaggregated the decode pool, and the prefill pool beside it.
  ScenarioDeployment deployment;
  std::optional<ScenarioDisaggregation> disaggregation;
  ScenarioWorkload workload;
  ScenarioSlo slo;
  Time horizon = Time::max();
  Time timeseries_interval = Time::from_seconds(1.0);
};

}  // namespace engramsim::scenario
