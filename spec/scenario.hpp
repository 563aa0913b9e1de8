// A scenario file -> validated parameters (ScenarioParams): what to serve (model card), where (node
// preset, optional calibration profile, price tier), how (deployment: replicas, TP/EP, attention,
// Engram tier and fetch options, scheduler limits, speculative decoding, router), for which traffic
// (workload), judged against which targets (slo), for how long (horizon).
//
// parse_scenario() reads every key through ConfigNode (unknown keys, bare numbers where a unit is
// needed, names not in a registry and out-of-range values are ConfigError "file:line:col: field:
// message"), loads the card, node and calibration profile it names, and checks what can be checked
// without the footprint: tp against the node, ep dividing tp, spec-decode settings against the card.
// `compare:` and `sweep:` are accepted and not interpreted here (scenario_document.hpp expands
// `compare:`; `engramsim sweep` reads `sweep:`). The schema, field by field: docs/scenarios.md.
//
// Conventions fixed here:
//   - scheduler limits (max_num_seqs, max_num_batched_tokens) are per engine scheduler, as vLLM and
//     SGLang define them: per GPU under data-parallel attention (scenario_build.hpp scales them);
//   - `engram.tier: none` removes the card's Engram module (the backbone alone: the paper's baseline);
//   - a card name resolves under models/cards, a node name under hardware/nodes; a path (with '/' or
//     ending in .yaml) resolves beside the scenario file, then under the data root.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "core/field_table.hpp"
#include "hardware/calibration_profile.hpp"
#include "hardware/node_spec.hpp"
#include "models/engram_fetch.hpp"
#include "models/footprint.hpp"
#include "models/model_card.hpp"
#include "models/roofline_step_model.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/serving/router_registry.hpp"
#include "sim/serving/scheduler.hpp"
#include "sim/serving/scheduler_registry.hpp"
#include "spec/scenario_in_run.hpp"
#include "spec/scenario_workload.hpp"

namespace engramsim::sim {

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
  SchedulerParams policy;  // name, per-scheduler token budget and sequence cap, chunking
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

// vLLM's default CUDA-graph capture list up to `max_tokens` (1, 2, 4, every 8 below 256, every 16
// from 256), as sequences per decode step when each sequence carries 1 + `draft_tokens` tokens:
// the distinct floor(size / (1 + draft_tokens)) >= 1, ascending.
std::vector<std::int32_t> vllm_capture_sizes(std::int64_t max_tokens, int draft_tokens);

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

// Resolves the rule-valued scheduler limits against `concurrency` (closed-loop clients or AgentX
// lanes; 0 when the workload has none, which a rule refuses at its key) and turns
// max_cudagraph_capture_size into cuda_graph_batch_sizes.
void resolve_concurrency_limits(ScenarioDeployment& d, std::int64_t concurrency);

// A percentile target: summary statistic `stat` of `metric` must not exceed `limit`.
enum class SloMetric { ttft, tpot, itl, e2el };
enum class SloStat { p50, p90, p99, mean };

struct SloTarget {
  std::string key;  // as written: "ttft_p99"
  SloMetric metric = SloMetric::ttft;
  SloStat stat = SloStat::p99;
  Time limit;
};

struct ScenarioSlo {
  SloParams per_request;           // bounds for goodput (explicit, else the p99 targets)
  std::vector<SloTarget> targets;  // checked against the run's summary
  double min_interactivity = 0.0;  // tok/s/user from the median TPOT; 0 = none
  bool any() const { return per_request.any() || !targets.empty() || min_interactivity > 0.0; }
};

// The keys of `slo:`, declared once (core/field_table.hpp): the per-request bounds, every
// `<metric>_<stat>` target and min_interactivity; the targets keep the file's order.
const FieldTable<ScenarioSlo>& slo_schema();

struct ScenarioParams {
  std::string file;  // the scenario file as given
  std::string name;
  std::string description;
  std::uint64_t seed = 0;
  std::string model_path;  // resolved
  std::string node_path;
  ModelCard card;  // as loaded (build applies spec-decode and Engram choices)
  NodeSpec node;
  std::string calibration_path;  // resolved; empty: none
  std::optional<CalibrationProfile> calibration;
  PriceTier price_tier = PriceTier::hyperscaler;
  std::string prices_path;  // `prices:` resolved; empty: the node's catalog prices
  ScenarioDeployment deployment;
  ScenarioWorkload workload;
  ScenarioSlo slo;
  Time horizon = Time::max();
  Time timeseries_interval = Time::from_seconds(1.0);
};

struct ScenarioParseOptions {
  // Replaces the file's `calibration:` (the CLI's --calibration); relative to the working directory.
  std::string calibration;
  // Profiles chosen per GPU (sweep and plan --calibration): the one choose_calibration picks for the
  // node's GPU replaces the file's `calibration:`, which is then not read; with none picked the
  // file's applies. Not combined with `calibration`.
  const std::vector<CalibrationCandidate>* calibrations_by_gpu = nullptr;
  // Policies to choose from; the built-in ones when null.
  const SchedulerRegistry* schedulers = nullptr;
  const RouterRegistry* routers = nullptr;
};

ScenarioParams parse_scenario(const ConfigNode& root, const ScenarioParseOptions& options = {});

// The top-level keys, declared once (core/field_table.hpp): they read the file and are the "Top
// level" table of docs/scenarios.md. A draft carries what the keys are read against.
struct ScenarioDraft {
  ScenarioParams p;
  const ScenarioParseOptions* options = nullptr;
  const SchedulerRegistry* schedulers = nullptr;
  const RouterRegistry* routers = nullptr;
};
FieldTable<ScenarioDraft> scenario_schema();

// The `deployment:` section alone, with the built-in policies: how `engramsim step` and
// `engramsim footprint` read their flags, which are its keys (tools/engramsim/deployment_flags.hpp).
ScenarioDeployment parse_deployment_section(const ConfigNode& d, const ModelCard& card, const NodeSpec& node);

// Reads a replayed trace (workload kind trace) to its end or the workload's request cap, and an
// AgentX corpus file (kind agentx with `trace:`) to its end, so that a bad row anywhere is a
// ConfigError before a run starts; nothing for generated workloads.
void read_trace_through(const ScenarioParams& p);

// Whether an SLO target holds for a summary (NaN statistics fail).
bool slo_target_met(const SloTarget& target, const Summary& summary);
double slo_statistic_ms(const SloTarget& target, const Summary& summary);

}  // namespace engramsim::sim
