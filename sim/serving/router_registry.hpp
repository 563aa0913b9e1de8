// Routers by name; an ordinary object filled by register_builtin_routers() (no global instance).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/serving/router.hpp"

namespace engramsim::sim {

class RouterRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Router>()>;
  void add(const std::string& name, Factory factory);
  // Unknown names throw ConfigError.
  std::unique_ptr<Router> create(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Factory> factories_;
};

void register_builtin_routers(RouterRegistry& registry);

}  // namespace engramsim::sim
