// The `workload:` section of a scenario file -> a validated WorkloadSpec (sim/run/run_simulation.hpp)
// plus a description of it. Four kinds:
//
//   closed_loop  `concurrency` clients, each sending its next request the instant the previous one
//                leaves (InferenceX / `vllm bench serve --max-concurrency`); num_requests defaults to
//                10 x concurrency (InferenceX's num_prompts). Lengths from input/output or lengths.
//   open_loop    requests arrive by `arrival: {process: poisson|gamma, rate_per_s, cv}`, up to
//                num_requests and/or `duration`. Lengths as for closed_loop.
//   trace        replay `trace: {path, format, time_scale, rate_scale, window, ...}`; num_requests
//                caps the replay; an optional `concurrency` replays the trace's lengths in closed loop.
//   agentx       the agentic replay (sim/workload/agentic_replay_driver.hpp, docs/agentic.md): exactly
//                one of `trace: FILE` (an AgentX corpus) or `generate: {seed, sessions}` (the synthetic
//                generator, its context the deployment's max_model_len); `concurrency` lanes (live
//                session trees), duration (3600 s), warmup_requests (10 per lane), grace (1800 s),
//                tree_idle_cap (300 s), system_idle_cap (10 s), start_ratio: {min: 0.25, max: 0.75}.
//
// Lengths: either `input:` and `output:`, each one of
//   {distribution: fixed, tokens: N}
//   {distribution: uniform, min: A, max: B}             integers uniform on [A, B]
//   {distribution: uniform_ratio, tokens: N, ratio: r}  integers uniform on [floor(r N), N] (vLLM's
//                                                        --random-range-ratio; InferenceX uses 0.8)
// or `lengths: {distribution: empirical, file: F, max_total_tokens: 0}` for (input, output) pairs drawn
// from a lengths file. Data-file paths resolve beside the scenario file, then under the data root; a
// missing file is an error at its key. Everything is checked here, at the edge: no YAML node survives.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/config_node.hpp"
#include "core/enum_names.hpp"
#include "core/field_table.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/workload/agentic_replay_driver.hpp"
#include "sim/workload/agentx_generator.hpp"
#include "sim/workload/arrival_process.hpp"
#include "sim/workload/length_distribution.hpp"
#include "sim/workload/trace_source.hpp"
#include "sim/workload/transformed_source.hpp"

namespace engramsim::scenario {

enum class WorkloadKind { closed_loop, open_loop, trace, agentx };
inline constexpr EnumNames<WorkloadKind, 4> kWorkloadKindNames{{{
    {WorkloadKind::closed_loop, "closed_loop"},
    {WorkloadKind::open_loop, "open_loop"},
    {WorkloadKind::trace, "trace"},
    {WorkloadKind::agentx, "agentx"},
}}};
const char* to_string(WorkloadKind k);

struct ScenarioWorkload {
  WorkloadKind kind = WorkloadKind::closed_loop;
  sim::WorkloadSpec spec;          // source factory, concurrency, request cap
  std::uint64_t num_requests = 0;  // 0 = unbounded (a trace replayed whole, or an open loop by duration)
  std::string trace_path;          // resolved (trace kind; agentx kind with `trace:`)
  std::string lengths_path;        // resolved empirical lengths file (generated kinds with `lengths:`)
  // What decides the rows a run reads from trace_path (file, format, options, window and scales,
  // request cap), one line; equal for two workloads that read the same rows. Empty without a trace.
  std::string trace_read;
  std::string description;  // one line, for reports
};

// The most requests a run may be asked for (a run keeps a record per request, about 200 bytes
// each): larger num_requests, and open loops whose rate x duration expect more, are refused at the
// key; a trace's row past it (counted from the window's start) is refused at its file:line, unless
// num_requests stops the replay first.
inline constexpr std::int64_t kMaxRequestsPerRun = 10'000'000;
// The longest mean span of an open loop's arrivals (num_requests / rate_per_s): about 31.7 years, a
// ninth of the nanosecond clock (2^63 ns, about 292 years), leaving room for the gaps' random spread.
inline constexpr double kMaxArrivalSpanSeconds = 1e9;

// `model_len`: the context of a generated AgentX corpus (the deployment's max_model_len); unused by
// the other kinds.
inline constexpr std::int64_t kDefaultAgentxModelLen = 1048576;
ScenarioWorkload parse_scenario_workload(const ConfigNode& node, std::int64_t model_len = kDefaultAgentxModelLen);

// The keys of each kind's workload map, declared once (core/field_table.hpp): they read the
// scenario and are docs/scenarios.md's tables (tests/scenario/test_schema_docs.cpp). `kind` itself is
// read first and chooses the table.
struct AgentxDraft {
  sim::AgenticReplayParams replay;
  std::string trace_path;                              // `trace:`, resolved and opened
  std::optional<sim::AgentxGeneratorParams> generate;  // `generate:`
  std::int64_t model_len = 0;                          // a generated corpus's context
};
FieldTable<AgentxDraft> agentx_schema();  // `workload` of kind agentx (less `kind`)

struct TraceDraft {
  std::string path;  // resolved
  std::string format = "auto";
  sim::TraceOptions options;
  sim::TransformParams transform;
};
FieldTable<TraceDraft> trace_schema();  // `workload.trace`

struct TraceWorkloadDraft {
  TraceDraft trace;
  std::int64_t num_requests = 0;  // 0: the whole trace
  std::int32_t concurrency = 0;   // > 0: the trace's lengths in closed loop
};
FieldTable<TraceWorkloadDraft> trace_workload_schema();  // `workload` of kind trace (less `kind`)

enum class ArrivalKind { poisson, gamma };
inline constexpr EnumNames<ArrivalKind, 2> kArrivalKindNames{{{
    {ArrivalKind::poisson, "poisson"},
    {ArrivalKind::gamma, "gamma"},
}}};

// A generated workload: kinds closed_loop and open_loop (each declares only its own keys).
struct GeneratedDraft {
  std::int32_t concurrency = 0;                              // closed loop: clients
  std::int64_t num_requests = 0;                             // open loop: 0 = until `duration`
  std::int64_t warmup_requests = 0;                          // closed loop: sent first, not measured
  Time duration = Time::max();                               // open loop
  ArrivalKind process = ArrivalKind::poisson;                // open loop: `arrival.process`
  double rate_per_s = 0.0;                                   // open loop: `arrival.rate_per_s`
  SourceLocation rate_at;                                    // where rate_per_s is (a run's clock errors name it)
  double cv = 1.0;                                           // open loop, gamma: `arrival.cv`
  std::shared_ptr<const sim::LengthMarginal> input, output;  // `input`, `output`
  std::shared_ptr<const sim::EmpiricalLengths> pairs;        // `lengths`
};
FieldTable<GeneratedDraft> closed_loop_schema();  // `workload` of kind closed_loop (less `kind`)
FieldTable<GeneratedDraft> open_loop_schema();    // `workload` of kind open_loop (less `kind`)

}  // namespace engramsim::scenario
