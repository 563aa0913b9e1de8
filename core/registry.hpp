// A table of factories by name, for one kind of component chosen by a name in the input
// (scheduler, router, fabric backend, ...).
//
// The caller owns each registry (no global instance) and fills it by explicit calls such as
// register_builtin_schedulers(registry): static initialisers would be dropped by the linker from
// static libraries. A name is registered once: adding it again, or adding an empty name or an
// empty factory, throws std::logic_error (a programming error, not bad input). Looking up an
// unknown name throws ConfigError at the registry's field, or at the YAML node that named it,
// with the message "unknown <kind> 'NAME' (known: a, b, c)"; names are listed in sorted order.
//
// `Factory` is any callable type that can be empty-tested (usually a std::function returning a
// std::unique_ptr of the interface).
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/config_node.hpp"
#include "core/error.hpp"

namespace engramsim {

template <class Factory>
class Registry {
 public:
  // kind: how errors name one entry ("scheduler", "fabric backend"); field: the input field an
  // unlocated error names ("scheduler.name").
  Registry(std::string kind, std::string field) : kind_(std::move(kind)), field_(std::move(field)) {}

  void add(std::string name, Factory factory) {
    if (name.empty()) throw std::logic_error(kind_ + " registry: empty name");
    if (!factory) throw std::logic_error(kind_ + " registry: '" + name + "' has no factory");
    if (factories_.count(name) != 0) throw std::logic_error(kind_ + " registry: '" + name + "' is registered twice");
    factories_.emplace(std::move(name), std::move(factory));
  }

  bool contains(std::string_view name) const { return factories_.find(name) != factories_.end(); }

  // Sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(factories_.size());
    for (const auto& entry : factories_) out.push_back(entry.first);
    return out;
  }

  // "unknown <kind> 'NAME' (known: a, b, c)"
  std::string unknown_message(std::string_view name) const {
    std::string known;
    for (const auto& entry : factories_) known += (known.empty() ? "" : ", ") + entry.first;
    return "unknown " + kind_ + " '" + std::string(name) + "' (known: " + known + ")";
  }

  // The factory of `name`; throws ConfigError (no location, field()) for an unknown name.
  const Factory& at(std::string_view name) const {
    const auto it = factories_.find(name);
    if (it == factories_.end()) throw ConfigError({}, field_, unknown_message(name));
    return it->second;
  }

  // The name a YAML scalar gives, checked here so that an unknown one is an error at its node.
  std::string checked_name(const ConfigNode& scalar) const {
    std::string name = scalar.as_str();
    if (!contains(name)) scalar.fail(unknown_message(name));
    return name;
  }

  template <class... Args>
  auto create(std::string_view name, Args&&... args) const {
    return at(name)(std::forward<Args>(args)...);
  }

  const std::string& kind() const { return kind_; }
  const std::string& field() const { return field_; }

 private:
  std::string kind_;
  std::string field_;
  std::map<std::string, Factory, std::less<>> factories_;
};

}  // namespace engramsim
