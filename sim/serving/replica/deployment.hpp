// A deployment: the replicas of one served model behind a router. It is the RequestSink the
// workload drivers deliver to: each arriving request is routed on a fresh load snapshot and handed
// to its replica at the current time. Observers are not owned and must outlive the deployment; the
// deployment itself observes completions to keep session routing tables current.
#pragma once

#include <memory>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/serving/replica/disaggregated_deployment.hpp"
#include "sim/serving/replica/replica.hpp"
#include "sim/serving/request_sink.hpp"
#include "sim/serving/router/router.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"
#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

class Deployment final : public RequestSink, public ServingObserver {
 public:
  // With `prefill` (disaggregated serving, disaggregated_deployment.hpp) `replicas` are the decode
  // pool: a request goes to its decode replica through the prefill pool unless that replica
  // prefills it itself.
  Deployment(Simulation& sim, const std::vector<ReplicaParams>& replicas, const SchedulerParams& scheduler,
             const SchedulerRegistry& schedulers, std::unique_ptr<Router> router,
             const std::vector<ServingObserver*>& observers, std::unique_ptr<DisaggregatedPrefill> prefill = nullptr);
  Deployment(const Deployment&) = delete;
  Deployment& operator=(const Deployment&) = delete;

  // Wire: adds an observer after construction (e.g. closed-loop clients, which need the deployment
  // as their sink first). Must happen before the run starts.
  void add_observer(ServingObserver& observer) { observers_.push_back(&observer); }

  void submit(Request&& request) override;
  void on_request_done(const RequestRecord& record) override;

  const std::vector<std::unique_ptr<Replica>>& replicas() const { return replicas_; }
  // The prefill pool of a disaggregated deployment; null otherwise.
  const DisaggregatedPrefill* prefill() const { return prefill_.get(); }
  // GPUs of every replica, both pools'.
  std::int32_t total_gpus() const;
  // Finalize: records of every request still on a replica.
  std::vector<RequestRecord> collect_unfinished() const;

 private:
  std::vector<ServingObserver*> observers_;  // this deployment first, then the caller's
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::unique_ptr<Router> router_;
  std::vector<ReplicaLoad> loads_;
  std::unique_ptr<DisaggregatedPrefill> prefill_;
};

}  // namespace engramsim::sim
