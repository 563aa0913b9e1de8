// Caches of Engram rows or SSD pages whose contents evolve over a run.
//
// One interface, implementations chosen by policy:
//   lru - least recently used;
//   lfu - frequency-based: evicts the entry with the fewest accesses, ties broken by age; counts
//           are halved every `capacity * 8` accesses (aging) so that a shift in popularity is
//           followed instead of frozen.
// Keys are 64-bit row or page ids. Capacity is in entries; 0 means no cache (every access misses).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "core/enum_names.hpp"

namespace engramsim {

class RowCache {
 public:
  virtual ~RowCache() = default;
  // Looks `key` up; on a miss inserts it (evicting per policy). Returns true on a hit.
  virtual bool access(std::uint64_t key) = 0;
  virtual bool contains(std::uint64_t key) const = 0;
  virtual std::uint64_t size() const = 0;
  virtual std::uint64_t capacity() const = 0;
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 protected:
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

enum class RowCachePolicy { lru, lfu };
inline constexpr EnumNames<RowCachePolicy, 2> kRowCachePolicyNames{{{
    {RowCachePolicy::lru, "lru"},
    {RowCachePolicy::lfu, "lfu"},
}}};
const char* to_string(RowCachePolicy policy);
// The policy of a name ("lru", "lfu"); nullopt for any other.
std::optional<RowCachePolicy> row_cache_policy_from(std::string_view name);
std::unique_ptr<RowCache> make_row_cache(RowCachePolicy policy, std::uint64_t capacity);

}  // namespace engramsim
