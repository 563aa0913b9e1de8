#include "sim/serving/replica/deployment.hpp"

#include "core/error.hpp"

namespace engramsim::sim {

Deployment::Deployment(Simulation& sim, const std::vector<ReplicaParams>& replicas, const SchedulerParams& scheduler,
                       const SchedulerRegistry& schedulers, std::unique_ptr<Router> router,
                       const std::vector<ServingObserver*>& observers, std::unique_ptr<DisaggregatedPrefill> prefill)
    : router_(std::move(router)), prefill_(std::move(prefill)) {
  if (replicas.empty()) throw ConfigError({}, "replicas", "a deployment needs at least one replica");
  if (!router_) throw ConfigError({}, "router", "missing");
  observers_.push_back(this);
  observers_.insert(observers_.end(), observers.begin(), observers.end());
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    ReplicaParams p = replicas[i];
    if (prefill_) {
      p.kv_source = prefill_.get();
      if (p.name.empty()) p.name = "decode" + std::to_string(i);
    }
    replicas_.push_back(
        std::make_unique<Replica>(sim, static_cast<std::uint32_t>(i), p, schedulers.create(scheduler), observers_));
  }
  loads_.resize(replicas_.size());
  if (prefill_)
    prefill_->connect(
        [this](std::size_t target, Request&& r) {
          const bool accepted = replicas_[target]->accepts(r);
          replicas_[target]->submit(std::move(r));
          return accepted;
        },
        [this](const RequestRecord& rec) {
          for (ServingObserver* o : observers_) o->on_request_done(rec);
        });
}

void Deployment::submit(Request&& request) {
  for (std::size_t i = 0; i < replicas_.size(); ++i) loads_[i] = replicas_[i]->load();
  const std::size_t target = router_->route(request, loads_);
  for (std::size_t i = 1; i < observers_.size(); ++i)
    observers_[i]->on_arrival(request, static_cast<std::uint32_t>(target));
  if (prefill_ && !prefill_->prefill_locally(*replicas_[target], request)) {
    prefill_->prefill(request, target);
    return;
  }
  replicas_[target]->submit(std::move(request));
}

void Deployment::on_request_done(const RequestRecord& record) { router_->on_finished(record.session, record.replica); }

std::int32_t Deployment::total_gpus() const {
  std::int32_t n = 0;
  for (const auto& r : replicas_) n += r->gpus();
  if (prefill_)
    for (const auto& r : prefill_->replicas()) n += r->gpus();
  return n;
}

std::vector<RequestRecord> Deployment::collect_unfinished() const {
  std::vector<RequestRecord> out;
  for (const auto& r : replicas_) r->collect_unfinished(out);
  if (prefill_) prefill_->collect_unfinished(out);
  return out;
}

}  // namespace engramsim::sim
