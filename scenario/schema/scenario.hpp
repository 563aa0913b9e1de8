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
#include <vector>

#include "core/config_node.hpp"
#include "core/field_table.hpp"
#include "hardware/calibration_profile.hpp"
#include "scenario/schema/scenario_params.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/serving/router/router_registry.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"

namespace engramsim::scenario {

// vLLM's default CUDA-graph capture list up to `max_tokens` (1, 2, 4, every 8 below 256, every 16
// from 256), as sequences per decode step when each sequence carries 1 + `draft_tokens` tokens:
// the distinct floor(size / (1 + draft_tokens)) >= 1, ascending.
std::vector<std::int32_t> vllm_capture_sizes(std::int64_t max_tokens, int draft_tokens);

// Resolves the rule-valued scheduler limits against `concurrency` (closed-loop clients or AgentX
// lanes; 0 when the workload has none, which a rule refuses at its key) and turns
// max_cudagraph_capture_size into cuda_graph_batch_sizes.
void resolve_concurrency_limits(ScenarioDeployment& d, std::int64_t concurrency);

// The keys of `slo:`, declared once (core/field_table.hpp): the per-request bounds, every
// `<metric>_<stat>` target and min_interactivity; the targets keep the file's order.
const FieldTable<ScenarioSlo>& slo_schema();

struct ScenarioParseOptions {
  // Replaces the file's `calibration:` (the CLI's --calibration); relative to the working directory.
  std::string calibration;
  // Profiles chosen per GPU (sweep and plan --calibration): the one choose_calibration picks for the
  // node's GPU replaces the file's `calibration:`, which is then not read; with none picked the
  // file's applies. Not combined with `calibration`.
  const std::vector<CalibrationCandidate>* calibrations_by_gpu = nullptr;
  // Policies to choose from; the built-in ones when null.
  const sim::SchedulerRegistry* schedulers = nullptr;
  const sim::RouterRegistry* routers = nullptr;
};

ScenarioParams parse_scenario(const ConfigNode& root, const ScenarioParseOptions& options = {});

// The top-level keys, declared once (core/field_table.hpp): they read the file and are the "Top
// level" table of docs/scenarios.md. A draft carries what the keys are read against.
struct ScenarioDraft {
  ScenarioParams p;
  const ScenarioParseOptions* options = nullptr;
  const sim::SchedulerRegistry* schedulers = nullptr;
  const sim::RouterRegistry* routers = nullptr;
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
bool slo_target_met(const SloTarget& target, const sim::Summary& summary);
double slo_statistic_ms(const SloTarget& target, const sim::Summary& summary);

}  // namespace engramsim::scenario
