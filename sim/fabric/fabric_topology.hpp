// The shared resources of one node and the routes flows take over them.
//
// A resource is one capacity in bytes/s that every flow crossing it draws on (a link direction, a
// half-duplex link, host DRAM, an NVMe drive's byte bandwidth or its IOPS). A route is an ordered,
// non-empty list of distinct resources; its latency is the sum of its resources' latencies and is
// paid once per flow, before the flow starts competing for bandwidth.
//
// Links: a full-duplex link is two independent resources (forward, backward), each with the full
// bandwidth; a half-duplex link is one resource whose bandwidth both directions share.
//
// NVMe drives: an IOPS limit is a capacity in requests/s. A drive is two resources in series, its
// byte bandwidth and its IOPS expressed in bytes/s (iops x page size). A read of n pages is a flow
// of n x page bytes, so on the IOPS resource it consumes exactly one request per page; the flow's
// rate is bounded by whichever of the two the drive saturates first. This keeps every resource a
// plain byte capacity (no per-flow weights), which is what lets the SimGrid backend model drives as
// links and stay exact.
//
// Routes are declared before a fabric is built from the topology (SimGrid seals its platform before
// running, and a precomputed route table keeps the per-flow cost to one index). Names are kept in a
// hash index, so a cluster's routes between every pair of GPUs (tens of thousands for a few dozen
// nodes) are declared in linear time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"

namespace engramsim::fabric {

using ResourceId = std::uint32_t;
using RouteId = std::uint32_t;

enum class ResourceKind : std::uint8_t {
  link,            // one direction of a full-duplex link
  half_duplex,     // a link whose two directions share one capacity
  dram,            // host memory bandwidth (reads and writes share it)
  nvme_bandwidth,  // a drive's sequential read bandwidth
  nvme_iops,       // a drive's IOPS, as bytes/s of pages
};
inline constexpr EnumNames<ResourceKind, 5> kResourceKindNames{{{
    {ResourceKind::link, "link"},
    {ResourceKind::half_duplex, "half_duplex"},
    {ResourceKind::dram, "dram"},
    {ResourceKind::nvme_bandwidth, "nvme_bandwidth"},
    {ResourceKind::nvme_iops, "nvme_iops"},
}}};
const char* to_string(ResourceKind k);

enum class Duplex : std::uint8_t { full, half };

struct Resource {
  std::string name;
  Bandwidth capacity;  // > 0
  Time latency;        // >= 0, added to every route through it
  ResourceKind kind = ResourceKind::link;
};

struct Route {
  std::string name;
  std::vector<ResourceId> hops;  // non-empty, distinct
  Time latency;                  // sum of hop latencies
};

struct NvmeParams {
  Bandwidth read_bandwidth;  // sequential read, bytes/s
  double iops = 0.0;         // random reads/s of one page at high queue depth
  Bytes page = Bytes::kib(4);
  Time latency;  // one page read at queue depth 1
};

// The bytes a read of `pages` pages of `page` bytes moves (the size of its flow).
inline Bytes page_read_bytes(std::uint64_t pages, Bytes page = Bytes::kib(4)) {
  return page * static_cast<double>(pages);
}

class FabricTopology {
 public:
  struct LinkEnds {
    ResourceId forward;   // the link's "a -> b" direction
    ResourceId backward;  // "b -> a"; equal to forward for a half-duplex link
  };
  struct NvmeResources {
    ResourceId bandwidth;
    ResourceId iops;  // carries the drive's latency
  };

  // Throws std::invalid_argument on a non-positive capacity, negative latency or empty name.
  ResourceId add_resource(std::string name, Bandwidth capacity, Time latency, ResourceKind kind = ResourceKind::link);
  // `bandwidth` is per direction for a full-duplex link and the shared total for a half-duplex one.
  // Full-duplex resources are named NAME.fwd and NAME.bwd.
  LinkEnds add_link(const std::string& name, Bandwidth bandwidth, Time latency, Duplex duplex);
  // Resources NAME.bw and NAME.iops. Throws std::invalid_argument on non-positive iops or page.
  NvmeResources add_nvme(const std::string& name, const NvmeParams& params);
  // Throws std::invalid_argument on an empty or duplicate-hop route, an unknown resource or a name
  // already used by another route.
  RouteId add_route(std::string name, std::vector<ResourceId> hops);

  std::size_t resource_count() const { return resources_.size(); }
  std::size_t route_count() const { return routes_.size(); }
  const Resource& resource(ResourceId id) const { return resources_.at(id); }
  const Route& route(RouteId id) const { return routes_.at(id); }
  const std::vector<Resource>& resources() const { return resources_; }
  const std::vector<Route>& routes() const { return routes_; }
  std::optional<RouteId> find_route(std::string_view name) const;
  std::optional<ResourceId> find_resource(std::string_view name) const;

 private:
  // Looks a std::string key up by std::string_view without a copy.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  using NameIndex = std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>>;

  std::vector<Resource> resources_;
  std::vector<Route> routes_;
  NameIndex resource_index_;
  NameIndex route_index_;
};

}  // namespace engramsim::fabric
