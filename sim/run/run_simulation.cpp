#include "sim/run/run_simulation.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/error.hpp"
#include "core/staged_file.hpp"
#include "sim/metrics/metrics_collector.hpp"
#include "sim/metrics/result_writers.hpp"
#include "sim/serving/engram_in_run.hpp"
#include "sim/serving/fabric_events.hpp"
#include "sim/serving/replica/builtin_registries.hpp"
#include "sim/serving/replica/deployment.hpp"
#include "sim/workload/agentic_replay_driver.hpp"
#include "sim/workload/closed_loop_driver.hpp"
#include "sim/workload/open_loop_driver.hpp"
#include "sim/workload/transformed_source.hpp"

namespace engramsim::sim {

namespace {

// The in-run Engram tier, when the run has one, attached to every replica.
std::unique_ptr<EngramInRun> attach_engram_tier(const RunConfig& cfg, Simulation& sim,
                                                std::vector<ReplicaParams>& replicas) {
  if (!cfg.engram_tier) return nullptr;
  EngramTierParams tier = *cfg.engram_tier;
  tier.replicas = static_cast<int>(replicas.size());
  auto engram = std::make_unique<EngramInRun>(sim, tier);
  for (auto& r : replicas) r.engram_in_run = engram.get();
  return engram;
}

// A disaggregated run's cluster, the one fabric its KV transfers and both pools' in-run Engram
// tiers share, and those tiers; built before the deployment, which refers to them.
struct ClusterRun {
  std::unique_ptr<DisaggregatedCluster> cluster;
  std::unique_ptr<FabricEvents> fabric;
  std::unique_ptr<EngramInRun> decode_engram;
  std::unique_ptr<EngramInRun> prefill_engram;
};

// A pool's in-run tier on the shared fabric, attached to the pool's replicas; null without one.
std::unique_ptr<EngramInRun> attach_pool_tier(const std::optional<EngramTierParams>& params, Simulation& sim,
                                              const ClusterRun& c,
                                              const std::vector<std::vector<fabric::GpuRef>>& placement,
                                              std::vector<ReplicaParams>& replicas) {
  if (!params) return nullptr;
  EngramTierParams tier = *params;
  tier.replicas = static_cast<int>(replicas.size());
  auto engram = std::make_unique<EngramInRun>(sim, tier, c.fabric->shared(), c.cluster->fabric.nodes, placement);
  for (auto& r : replicas) r.engram_in_run = engram.get();
  return engram;
}

ClusterRun build_cluster_run(const RunConfig& cfg, Simulation& sim, std::vector<ReplicaParams>& decode,
                             DisaggregationParams& d) {
  ClusterRun c;
  std::vector<int> decode_gpus;
  for (const auto& r : decode) decode_gpus.push_back(r.gpus);
  c.cluster = std::make_unique<DisaggregatedCluster>(build_disaggregated_cluster(d, decode_gpus));
  c.fabric = std::make_unique<FabricEvents>(
      sim, fabric::make_fabric(d.transfer.backend, c.cluster->fabric.topology, d.transfer.fabric_options));
  c.decode_engram = attach_pool_tier(cfg.engram_tier, sim, c, c.cluster->placement.decode, decode);
  c.prefill_engram = attach_pool_tier(d.prefill_engram_tier, sim, c, c.cluster->placement.prefill, d.prefill_replicas);
  return c;
}

// The Chrome trace recorder, when asked for, with each replica's node.
std::unique_ptr<ChromeTraceRecorder> attach_trace(const RunConfig& cfg, std::size_t replicas, EngramInRun* engram,
                                                  std::vector<ServingObserver*>& observers) {
  if (cfg.trace.path.empty()) return nullptr;
  std::vector<int> replica_node(replicas, 0);
  if (engram != nullptr)
    for (std::size_t r = 0; r < replicas; ++r)
      replica_node[r] = engram->service().gpu_of(static_cast<std::uint32_t>(r), 0).first;
  auto trace = std::make_unique<ChromeTraceRecorder>(cfg.trace, std::move(replica_node));
  observers.push_back(trace.get());
  if (engram != nullptr) engram->service().set_trace(trace.get());
  return trace;
}

// The workload's driver: agentic replay, closed loop or open loop; started.
struct Drivers {
  std::unique_ptr<RequestSource> source;
  std::unique_ptr<ClosedLoopDriver> closed;
  std::unique_ptr<OpenLoopDriver> open;
  std::unique_ptr<AgenticReplayDriver> replay;
  std::string workload;  // in words
};

Drivers start_drivers(const RunConfig& cfg, Simulation& sim, Deployment& deployment) {
  Drivers d;
  if (cfg.workload.agentic) {
    const AgenticWorkloadSpec& a = *cfg.workload.agentic;
    const std::uint64_t seed = cfg.seed;
    auto sessions = a.sessions;
    d.replay = std::make_unique<AgenticReplayDriver>(
        sim, [sessions, seed] { return sessions(seed); }, deployment, a.replay);
    deployment.add_observer(*d.replay);
    d.replay->start();
    d.workload = "agentic replay, " + std::to_string(a.replay.lanes) + " lanes";
    return d;
  }
  d.source = cfg.workload.source(cfg.seed);
  if (!d.source) throw ConfigError({}, "workload", "the source factory returned nothing");
  d.workload = d.source->describe();
  if (cfg.workload.concurrency > 0) {
    d.closed = std::make_unique<ClosedLoopDriver>(sim, *d.source, deployment, cfg.workload.concurrency,
                                                  cfg.workload.max_requests, cfg.workload.warmup_requests);
    deployment.add_observer(*d.closed);
    d.closed->start();
    d.workload += ", closed loop with " + std::to_string(cfg.workload.concurrency) + " clients";
    return d;
  }
  if (cfg.workload.max_requests != UINT64_MAX) {
    TransformParams limit;
    limit.max_requests = cfg.workload.max_requests;
    d.source = std::make_unique<TransformedSource>(std::move(d.source), limit);
    d.workload = d.source->describe();
  }
  d.open = std::make_unique<OpenLoopDriver>(sim, *d.source, deployment);
  d.open->start();
  return d;
}

std::unique_ptr<DisaggregatedPrefill> make_prefill_pool(const std::optional<DisaggregationParams>& d,
                                                        const ClusterRun& c, Simulation& sim,
                                                        const RegistryChoice& registries) {
  if (!d) return nullptr;
  return std::make_unique<DisaggregatedPrefill>(
      sim, *d, *registries.schedulers, registries.routers->create(d->prefill_router), *c.cluster, c.fabric->shared());
}

// The replicas' totals the summary reads; the host KV-offload pool's only when one exists.
void add_replica_totals(const Deployment& deployment, SummaryInputs& in) {
  std::optional<KvOffloadTotals> offload;
  for (const auto& r : deployment.replicas()) {
    const ReplicaTotals t = r->totals();
    if (r->state().kv().offload() != nullptr) {
      if (!offload) offload.emplace();
      offload->written_blocks += t.offload_written_blocks;
      offload->loaded_blocks += t.offload_loaded_blocks;
      offload->evictions += t.offload_evictions;
      offload->written_bytes += t.offload_written_bytes;
      offload->loaded_bytes += t.offload_loaded_bytes;
      offload->load_time += t.offload_load_time;
      offload->write_time += t.offload_write_time;
      offload->write_exposed += t.offload_write_exposed;
    }
    in.preemptions += t.preemptions;
    in.kv_evictions += t.kv_evictions;
    in.decode_positions += t.decode_positions;
    in.padding_rows += t.padding_rows;
  }
  in.kv_offload = offload;
}

}  // namespace

RunResult run_simulation(const RunConfig& cfg) {
  const auto wall_start = std::chrono::steady_clock::now();
  const bool agentic = cfg.workload.agentic.has_value();
  if (!agentic && !cfg.workload.source) throw ConfigError({}, "workload", "no request source");
  const RegistryChoice registries(cfg.schedulers, cfg.routers);

  // Construct and wire.
  Simulation sim(cfg.seed);
  MetricsCollector metrics(cfg.timeseries_interval, static_cast<std::int32_t>(cfg.replicas.size()));
  std::vector<ReplicaParams> replicas = cfg.replicas;
  std::optional<DisaggregationParams> disaggregation = cfg.disaggregation;
  const ClusterRun cluster = disaggregation ? build_cluster_run(cfg, sim, replicas, *disaggregation) : ClusterRun{};
  const std::unique_ptr<EngramInRun> colocated = disaggregation ? nullptr : attach_engram_tier(cfg, sim, replicas);
  EngramInRun* const engram = disaggregation ? cluster.decode_engram.get() : colocated.get();
  std::vector<ServingObserver*> observers{&metrics};
  const std::unique_ptr<ChromeTraceRecorder> trace = attach_trace(cfg, replicas.size(), engram, observers);
  if (cfg.probe != nullptr) {
    observers.push_back(cfg.probe);
    sim.add_observer(*cfg.probe);
  }
  Deployment deployment(sim, replicas, cfg.scheduler, *registries.schedulers, registries.routers->create(cfg.router),
                        observers, make_prefill_pool(disaggregation, cluster, sim, registries));
  const Drivers drivers = start_drivers(cfg, sim, deployment);

  // Run.
  if (cfg.probe != nullptr) cfg.probe->on_run_start(sim, deployment);
  const RunStats stats = sim.run(cfg.horizon, cfg.max_events);
  if (cfg.probe != nullptr) cfg.probe->on_run_end(sim, deployment, stats);

  // Finalize.
  metrics.finalize(deployment.collect_unfinished());
  SummaryInputs in;
  in.metrics = &metrics;
  in.end_time = stats.clock;
  in.num_replicas = static_cast<std::int32_t>(cfg.replicas.size());
  in.num_gpus = deployment.total_gpus();
  add_replica_totals(deployment, in);
  in.slo = cfg.slo;
  in.price_per_gpu_hour = cfg.price_per_gpu_hour;
  in.power_kw_per_gpu = cfg.power_kw_per_gpu;
  in.events = sim.events_dispatched();
  if (const DisaggregatedPrefill* p = deployment.prefill()) in.disaggregation = p->totals();
  in.windowed = agentic || (cfg.workload.concurrency > 0 && cfg.workload.warmup_requests > 0);

  RunResult result;
  result.summary = summarize(in);
  result.requests = metrics.records();
  result.timeseries = metrics.timeseries();
  result.end = stats.end;
  result.events = sim.events_dispatched();
  result.workload = drivers.workload;
  if (engram != nullptr) result.engram_tier = engram->service().report();
  if (drivers.replay) result.agentic = drivers.replay->stats();
  if (const DisaggregatedPrefill* p = deployment.prefill()) result.disaggregation = p->totals();
  if (!cfg.output_dir.empty()) write_run_outputs(result, cfg.slo, cfg.output_dir);
  if (trace) write_chrome_trace(*trace, cfg.trace.path);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

void write_run_outputs(const RunResult& result, const SloParams& slo, const std::string& dir) {
  const std::filesystem::path folder(dir);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw std::runtime_error("cannot create output directory " + dir + ": " + ec.message());
  // summary.json marks the folder complete: gone before anything else changes, back last.
  remove_output_file(folder / "summary.json");
  {
    StagedFile f(folder / "requests.csv");
    write_requests_csv(result.requests, f.stream());
    f.commit();
  }
  {
    StagedFile f(folder / "timeseries.csv");
    write_timeseries_csv(result.timeseries, f.stream());
    f.commit();
  }
  StagedFile f(folder / "summary.json");
  write_summary_json(result.summary, slo, f.stream());
  f.commit();
}

}  // namespace engramsim::sim
