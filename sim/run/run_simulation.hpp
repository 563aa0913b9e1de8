// The programmatic entry point of the serving simulator: one call runs one scenario.
//
//   RunConfig -> construct (Simulation, metrics, deployment, workload driver) -> wire (first
//   arrivals) -> run (until drained, horizon or event limit) -> finalize (unfinished requests,
//   summary; files written only here, when output_dir is set).
//
// Everything a run touches is created inside the call (the step-time models are borrowed, const),
// so independent runs may execute in parallel threads and give the same results as serially.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/memory/engram_tier_service.hpp"
#include "sim/metrics/chrome_trace.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/metrics/time_series.hpp"
#include "sim/serving/replica/disaggregated_deployment.hpp"
#include "sim/serving/replica/replica.hpp"
#include "sim/serving/router/router_registry.hpp"
#include "sim/serving/run_probe.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"
#include "sim/workload/agentic_replay_driver.hpp"
#include "sim/workload/request_source.hpp"

namespace engramsim::sim {

// The agentic replay (sim/workload/agentic_replay_driver.hpp): session trees in lanes. The summary
// then counts only the measured window's requests.
struct AgenticWorkloadSpec {
  // Opens the corpus from its start; receives the run seed so generated corpora follow it.
  std::function<std::unique_ptr<AgenticSessionSource>(std::uint64_t seed)> sessions;
  AgenticReplayParams replay;
};

struct WorkloadSpec {
  // Set: the agentic replay drives the run and `source`, `concurrency`, `max_requests` are unused.
  std::optional<AgenticWorkloadSpec> agentic;
  // Builds the request stream; receives the run seed so generated workloads follow it.
  std::function<std::unique_ptr<RequestSource>(std::uint64_t seed)> source;
  std::int32_t concurrency = 0;  // > 0: closed loop with this many clients; 0: open loop
  std::uint64_t max_requests = UINT64_MAX;
  // Closed loop: the first this many of `max_requests` are sent but left out of the summary; the
  // measured span then runs from the first measured arrival to the last measured finish.
  std::uint64_t warmup_requests = 0;
};

struct RunConfig {
  std::vector<ReplicaParams> replicas;
  SchedulerParams scheduler;
  std::string router = "round_robin";
  WorkloadSpec workload;
  SloParams slo;
  std::optional<MoneyRate> price_per_gpu_hour;
  double power_kw_per_gpu = 0.0;  // all-in, for tokens per MW and joules per token (0 = unknown)
  std::uint64_t seed = 0;
  Time horizon = Time::max();
  std::uint64_t max_events = UINT64_MAX;
  Time timeseries_interval = Time::from_seconds(1.0);
  std::string output_dir;  // when set: summary.json, requests.csv, timeseries.csv written there
  // Registries to choose policies from; the built-in ones when null.
  const SchedulerRegistry* schedulers = nullptr;
  const RouterRegistry* routers = nullptr;
  // In-run Engram tier (sim/serving/engram_in_run.hpp): each step's fetch runs as flows on the
  // node fabric and its stall is measured there. Unset: the step model's formula stall.
  // `replicas` is taken from the run's replica list.
  std::optional<EngramTierParams> engram_tier;
  // Chrome trace of the start of the run (sim/metrics/chrome_trace.hpp); empty path: none.
  ChromeTraceOptions trace;
  // Read-only observer of the run (run_probe.hpp), not owned; null: none. Never changes results.
  RunProbe* probe = nullptr;
  // Prefill/decode disaggregation (disaggregated_deployment.hpp): set, `replicas`, `scheduler` and
  // `router` are the decode pool and this holds the prefill pool and the KV transfer. `engram_tier`
  // is then the decode pool's, the prefill pool's is its own; both run on the fabric the KV
  // transfers cross.
  std::optional<DisaggregationParams> disaggregation;
};

struct RunResult {
  Summary summary;
  std::vector<RequestRecord> requests;  // every request that arrived, by id
  TimeSeries timeseries{Time::from_seconds(1.0), 1};
  RunEnd end = RunEnd::drained;
  std::uint64_t events = 0;
  double wall_seconds = 0.0;                    // host time of the run (not part of any output file)
  std::string workload;                         // the source's description
  std::optional<EngramTierReport> engram_tier;  // with the in-run Engram tier (the decode pool's)
  std::optional<AgenticReplayStats> agentic;    // with the agentic replay
  std::optional<DisaggregationTotals> disaggregation;
};

RunResult run_simulation(const RunConfig& config);
// Writes requests.csv, timeseries.csv and, last, summary.json into `dir` (created if missing), each
// through a temporary name, checked and renamed (core/staged_file.hpp). An earlier summary.json is
// removed first, so a folder holding one is a complete run; a failed write throws naming the file
// and the errno text and leaves no summary.json.
void write_run_outputs(const RunResult& result, const SloParams& slo, const std::string& dir);

}  // namespace engramsim::sim
