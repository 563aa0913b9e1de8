// Scenario keys of the in-run Engram tier (docs/memory-tiers.md, "Scenario keys") and the tier
// parameters a built scenario hands to the run:
//
//   fabric:                      # top level
//     backend: native            # native | simgrid (fidelity checks; one helper process per run)
//     placement: packed          # packed (GPU ordinals) | spread (round-robin over PCIe switches)
//   kv_offload: {enabled: false} # top level; KV of preempted sequences swapped to host DRAM and back
//                                # (not the host KV-offload pool, deployment.scheduler.kv_offloading_size)
//   deployment:
//     engram:
//       in_run: false            # true: fetches are flows on the node fabric, stalls measured
//       access: {model: zipf, exponent: 1.0}   # zipf | uniform | text (text: in_run only)
//       hbm_cache: 4GiB          # or {policy: lfu|lru|static, capacity: 4GiB}
//       dram_cache: 64GiB        # or {policy: lru|lfu, capacity: 64GiB}
//       sample_rows_per_step: 128
// The plain-size forms of hbm_cache and dram_cache are the formula's keys and keep their meaning;
// the policies only matter in-run (the formula assumes a static hot set and an LRU DRAM cache).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "core/field_table.hpp"
#include "core/units.hpp"
#include "sim/memory/engram_tier_service.hpp"

namespace engramsim::scenario {

struct ScenarioInRun {
  bool enabled = false;
  AccessModel access_model = AccessModel::zipf;  // zipf (uniform = exponent 0) | text
  HotRowPolicy hbm_policy = HotRowPolicy::lfu;
  RowCachePolicy dram_policy = RowCachePolicy::lru;
  std::int64_t sample_rows_per_step = 128;
  std::string backend = "native";
  bool spread = false;
  bool swap_preempted_kv = false;  // the `kv_offload:` section: KV of preempted sequences to host DRAM and back
};

// A cache size: a byte string, or a map {policy, capacity} (policy one of `policies`, written
// into `policy`). Missing: `dflt`. Negative sizes are errors.
Bytes parse_cache_size(const ConfigNode& parent, const std::string& key, Bytes dflt, std::string& policy,
                       const std::vector<std::string>& policies);
// The rules among deployment.engram's keys that concern the in-run tier; call once they are read.
void check_engram_in_run(const ConfigNode& engram, const ScenarioInRun& out);

// The top-level `fabric:` and `kv_offload:` sections, declared once (docs/memory-tiers.md's tables;
// kv_offload needs deployment.engram.in_run, so it is read after the deployment).
FieldTable<ScenarioInRun> fabric_schema();
FieldTable<ScenarioInRun> kv_offload_schema();
void parse_fabric_section(const ConfigNode& fabric, ScenarioInRun& out);
void parse_kv_offload_section(const ConfigNode& kv_offload, ScenarioInRun& out);
// The in-run tier moves rows over the host links: it needs an Engram tier in DRAM or on SSD.
void check_in_run_tier(const ConfigNode& root, bool has_offloaded_tier, const ScenarioInRun& out);

}  // namespace engramsim::scenario
