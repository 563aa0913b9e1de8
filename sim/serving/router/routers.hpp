// The built-in routers.
//   round_robin        replicas in turn, ignoring load;
//   least_outstanding  fewest unfinished requests (vLLM production-stack / llm-d "least requests");
//   least_kv           lowest KV-cache usage, ties by fewest outstanding;
//   session_affinity   all turns of a session to one replica (so its prefix cache hits), chosen by
//                      least_outstanding at the session's first request; requests without a session
//                      go to least_outstanding. The table holds one entry per live session and drops
//                      it when the session has nothing outstanding.
//   sticky_session     like session_affinity, but a session stays on its replica for the whole run,
//                      also between turns when it has nothing outstanding (agentic replay: a tree's
//                      next call comes after a gap, and its prefix is cached where it ran). The
//                      table holds one entry (16 bytes) per session ever routed.
#pragma once

#include <unordered_map>

#include "sim/serving/router/router.hpp"

namespace engramsim::sim {

class RoundRobinRouter final : public Router {
 public:
  const char* name() const override { return "round_robin"; }
  std::size_t route(const Request& request, std::span<const ReplicaLoad> loads) override;

 private:
  std::size_t next_ = 0;
};

class LeastOutstandingRouter final : public Router {
 public:
  const char* name() const override { return "least_outstanding"; }
  std::size_t route(const Request& request, std::span<const ReplicaLoad> loads) override;
};

class LeastKvRouter final : public Router {
 public:
  const char* name() const override { return "least_kv"; }
  std::size_t route(const Request& request, std::span<const ReplicaLoad> loads) override;
};

class SessionAffinityRouter final : public Router {
 public:
  const char* name() const override { return "session_affinity"; }
  std::size_t route(const Request& request, std::span<const ReplicaLoad> loads) override;
  void on_finished(std::uint64_t session, std::size_t replica) override;

 private:
  struct Binding {
    std::size_t replica = 0;
    std::int64_t outstanding = 0;
  };
  std::unordered_map<std::uint64_t, Binding> sessions_;
};

class StickySessionRouter final : public Router {
 public:
  const char* name() const override { return "sticky_session"; }
  std::size_t route(const Request& request, std::span<const ReplicaLoad> loads) override;

 private:
  std::unordered_map<std::uint64_t, std::size_t> replica_of_;  // session -> replica
};

std::size_t least_outstanding_index(std::span<const ReplicaLoad> loads);

}  // namespace engramsim::sim
