#include "sim/serving/router/routers.hpp"

namespace engramsim::sim {

std::size_t least_outstanding_index(std::span<const ReplicaLoad> loads) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < loads.size(); ++i) {
    if (loads[i].outstanding < loads[best].outstanding) best = i;
  }
  return best;
}

std::size_t RoundRobinRouter::route(const Request&, std::span<const ReplicaLoad> loads) {
  const std::size_t i = next_ % loads.size();
  next_ = i + 1;
  return i;
}

std::size_t LeastOutstandingRouter::route(const Request&, std::span<const ReplicaLoad> loads) {
  return least_outstanding_index(loads);
}

std::size_t LeastKvRouter::route(const Request&, std::span<const ReplicaLoad> loads) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < loads.size(); ++i) {
    const auto& a = loads[i];
    const auto& b = loads[best];
    if (a.kv_usage < b.kv_usage || (a.kv_usage == b.kv_usage && a.outstanding < b.outstanding)) best = i;
  }
  return best;
}

std::size_t SessionAffinityRouter::route(const Request& request, std::span<const ReplicaLoad> loads) {
  if (request.session == 0) return least_outstanding_index(loads);
  auto [it, inserted] = sessions_.try_emplace(request.session);
  if (inserted || it->second.replica >= loads.size()) it->second.replica = least_outstanding_index(loads);
  ++it->second.outstanding;
  return it->second.replica;
}

void SessionAffinityRouter::on_finished(std::uint64_t session, std::size_t) {
  if (session == 0) return;
  const auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  if (--it->second.outstanding <= 0) sessions_.erase(it);
}

std::size_t StickySessionRouter::route(const Request& request, std::span<const ReplicaLoad> loads) {
  if (request.session == 0) return least_outstanding_index(loads);
  auto [it, inserted] = replica_of_.try_emplace(request.session);
  if (inserted || it->second >= loads.size()) it->second = least_outstanding_index(loads);
  return it->second;
}

}  // namespace engramsim::sim
