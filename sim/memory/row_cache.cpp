#include "sim/memory/row_cache.hpp"

#include <list>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace engramsim {
namespace {

class LruCache final : public RowCache {
 public:
  explicit LruCache(std::uint64_t cap) : cap_(cap) { index_.reserve(static_cast<std::size_t>(cap)); }
  bool access(std::uint64_t key) override {
    auto it = index_.find(key);
    if (it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      ++hits_;
      return true;
    }
    ++misses_;
    if (cap_ == 0) return false;
    if (index_.size() >= cap_) {
      index_.erase(order_.back());
      order_.pop_back();
    }
    order_.push_front(key);
    index_.emplace(key, order_.begin());
    return false;
  }
  bool contains(std::uint64_t key) const override { return index_.count(key) != 0; }
  std::uint64_t size() const override { return index_.size(); }
  std::uint64_t capacity() const override { return cap_; }

 private:
  std::uint64_t cap_;
  std::list<std::uint64_t> order_;  // front = most recent
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> index_;
};

class LfuCache final : public RowCache {
 public:
  explicit LfuCache(std::uint64_t cap) : cap_(cap), aging_period_(cap * 8 + 1) {}
  bool access(std::uint64_t key) override {
    ++clock_;
    if (clock_ % aging_period_ == 0) age();
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      order_.erase({it->second.count, it->second.last, key});
      it->second.count += 1;
      it->second.last = clock_;
      order_.insert({it->second.count, it->second.last, key});
      ++hits_;
      return true;
    }
    ++misses_;
    if (cap_ == 0) return false;
    if (entries_.size() >= cap_) {
      const auto victim = *order_.begin();
      order_.erase(order_.begin());
      entries_.erase(std::get<2>(victim));
    }
    entries_.emplace(key, Entry{1, clock_});
    order_.insert({1, clock_, key});
    return false;
  }
  bool contains(std::uint64_t key) const override { return entries_.count(key) != 0; }
  std::uint64_t size() const override { return entries_.size(); }
  std::uint64_t capacity() const override { return cap_; }

 private:
  struct Entry {
    std::uint64_t count;
    std::uint64_t last;
  };
  void age() {
    order_.clear();
    for (auto& [k, e] : entries_) {
      e.count = (e.count + 1) / 2;
      order_.insert({e.count, e.last, k});
    }
  }
  std::uint64_t cap_;
  std::uint64_t aging_period_;
  std::uint64_t clock_ = 0;
  std::unordered_map<std::uint64_t, Entry> entries_;
  std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> order_;  // (count, last use, key)
};

}  // namespace

const char* to_string(RowCachePolicy policy) { return kRowCachePolicyNames.name(policy); }

std::optional<RowCachePolicy> row_cache_policy_from(std::string_view name) { return kRowCachePolicyNames.parse(name); }

std::unique_ptr<RowCache> make_row_cache(RowCachePolicy policy, std::uint64_t capacity) {
  if (policy == RowCachePolicy::lru) return std::make_unique<LruCache>(capacity);
  return std::make_unique<LfuCache>(capacity);
}

}  // namespace engramsim
