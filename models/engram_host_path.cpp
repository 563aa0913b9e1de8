#include "models/engram_host_path.hpp"

#include <algorithm>
#include <stdexcept>

namespace engramsim {

double requests_per_row(Bytes row_bytes, Bytes request) {
  if (!(request.value() > 0.0)) throw std::invalid_argument("read request size must be > 0");
  if (!(row_bytes.value() > 0.0)) return 0.0;
  return 1.0 + (row_bytes.value() - 1.0) / request.value();
}

Time little_read_time(double requests, Time latency, int outstanding) {
  if (requests <= 0.0 || outstanding <= 0) return Time::zero();
  return Time::from_seconds(requests * latency.seconds() / outstanding);
}

Time side_stream_exposed(Time window, Time gather, double share) {
  if (!(share >= 0.0 && share < 1.0)) throw std::invalid_argument("side-stream SM share must be in [0, 1)");
  const double g = gather.seconds();
  const double w = window.seconds();
  return Time::from_seconds(std::max({0.0, g - w, share * g}));
}

Bytes page_cache_capacity(const HostMemoryUse& h) {
  const double left = h.capacity.value() - h.reserve.value() - h.pinned_engram.value() - h.row_caches.value() -
                      h.kv_offload_pools.value();
  return Bytes(std::max(0.0, left));
}

double page_cache_equivalent_rows(double cached_pages, double table_pages, double rows_per_page) {
  if (!(cached_pages > 0.0) || !(table_pages > 0.0)) return 0.0;
  const double c = std::min(cached_pages, table_pages);
  const double rpp = std::max(1.0, rows_per_page);
  return c + (rpp - 1.0) * c * (c / table_pages);
}

HostRoundTripCost host_round_trip(const HostRoundTrip& r) {
  HostRoundTripCost c;
  if (!(r.ids > 0.0)) return c;
  const double link = r.link.value();
  if (!(link > 0.0)) throw std::invalid_argument("host round trip: host link bandwidth must be > 0");
  c.d2h = Time::from_seconds(r.link_latency.seconds() + r.ids * r.id_bytes.value() / link);
  c.dedup = Time::from_seconds(r.ids * r.dedup_per_id.seconds());
  const double bytes = r.rows * r.row_bytes.value();
  c.gather = r.cpu_gather.value() > 0.0 ? Time::from_seconds(bytes / r.cpu_gather.value()) : Time::zero();
  c.faults = r.faults > 0.0
                 ? Time::from_seconds(r.faults * r.fault_latency.seconds() / std::max(1.0, r.fault_concurrency))
                 : Time::zero();
  const double eff = r.copy_efficiency > 0.0 ? r.copy_efficiency : 1.0;
  c.h2d = Time::from_seconds(r.link_latency.seconds() + bytes / (link * eff) + r.kernel.seconds());
  c.fixed = r.fixed;
  c.total = Time::from_seconds(c.d2h.seconds() + c.dedup.seconds() + c.gather.seconds() + c.faults.seconds() +
                               c.h2d.seconds() + c.fixed.seconds());
  return c;
}

}  // namespace engramsim
