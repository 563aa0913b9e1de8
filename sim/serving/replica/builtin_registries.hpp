// The scheduler and router registries a run or a scenario parse uses: the caller's, or the built-in
// ones filled into storage the caller owns (no global instance).
#pragma once

#include "sim/serving/router/router_registry.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"

namespace engramsim::sim {

struct RegistryChoice {
  SchedulerRegistry builtin_schedulers;
  RouterRegistry builtin_routers;
  const SchedulerRegistry* schedulers = nullptr;
  const RouterRegistry* routers = nullptr;

  // Not copyable: the pointers may point into this object.
  RegistryChoice(const SchedulerRegistry* given_schedulers, const RouterRegistry* given_routers) {
    schedulers = given_schedulers;
    routers = given_routers;
    if (schedulers == nullptr) {
      register_builtin_schedulers(builtin_schedulers);
      schedulers = &builtin_schedulers;
    }
    if (routers == nullptr) {
      register_builtin_routers(builtin_routers);
      routers = &builtin_routers;
    }
  }
  RegistryChoice(const RegistryChoice&) = delete;
  RegistryChoice& operator=(const RegistryChoice&) = delete;
};

}  // namespace engramsim::sim
