// Command-line flags that are scenario keys.
//
// `engramsim step` and `engramsim footprint` take a deployment as flags. Each flag names the
// `deployment:` key it sets, the key with dashes (`--hbm-cache` is deployment.engram.hbm_cache,
// `--max-num-seqs` deployment.scheduler.max_num_seqs); the given ones become a `deployment:` map that
// the scenario's own parser reads (parse_deployment_section), so a flag takes the values the key
// takes and fails the same way, with an error that names the flag and the key. Unset keys keep the
// scenario's defaults. docs/cli.md lists the flags.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hardware/node_spec.hpp"
#include "models/model_card.hpp"
#include "scenario/schema/scenario.hpp"

namespace engramsim::cli {

// (key under deployment:, YAML value) pairs one flag sets.
using KeyValues = std::vector<std::pair<std::string, std::string>>;

struct DeploymentFlag {
  std::string flag;  // "--hbm-cache"
  std::string key;   // "engram.hbm_cache" (under deployment:), for help and errors
  std::string help;
  bool is_switch = false;  // takes no value
  // The keys the flag sets from its value (a switch gets ""); empty: `key` set to the value.
  std::function<KeyValues(const std::string&)> to_keys;
};

// Every flag that is a deployment key, in help order.
const std::vector<DeploymentFlag>& deployment_flags();

class DeploymentFlagValues {
 public:
  // Registers the named flags (from deployment_flags()) on `cmd`.
  void add_to(CLI::App* cmd, const std::vector<std::string>& flags);
  // The deployment the given flags describe: one replica, unset keys at the scenario's defaults.
  // A bad value throws ConfigError naming the flag and the key.
  scenario::ScenarioDeployment read(const ModelCard& card, const NodeSpec& node) const;
  // The value given for `flag`, or "" when it was not given.
  std::string given(const std::string& flag) const;

 private:
  static KeyValues keys_of(const DeploymentFlag& f, const std::string& value);
  std::vector<std::pair<const DeploymentFlag*, std::string>> given_;  // command-line order
};

}  // namespace engramsim::cli
