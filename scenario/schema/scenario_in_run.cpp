#include "scenario/schema/scenario_in_run.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "sim/memory/node_fabric_params.hpp"
#include "sim/memory/row_cache.hpp"

namespace engramsim::scenario {

Bytes parse_cache_size(const ConfigNode& parent, const std::string& key, Bytes dflt, std::string& policy,
                       const std::vector<std::string>& policies) {
  if (!parent.has(key)) return dflt;
  const ConfigNode v = parent.child(key);
  Bytes size = dflt;
  if (v.is_map()) {
    policy = v.one_of_or("policy", policies, policy);
    size = v.bytes("capacity");
    if (size.value() < 0) v.fail_key("capacity", "must be >= 0");
    v.finish();
  } else {
    size = v.as_bytes();
    if (size.value() < 0) v.fail("must be >= 0");
  }
  return size;
}

void check_engram_in_run(const ConfigNode& e, const ScenarioInRun& out) {
  if (out.access_model == AccessModel::text && !out.enabled)
    e.fail_key("access", "the text access model drives the in-run tier only (set in_run: true)");
  if (out.hbm_policy == HotRowPolicy::static_top && out.access_model == AccessModel::text)
    e.fail_key("hbm_cache", "a static hot-row set needs popularity ranks (access model zipf or uniform)");
}

FieldTable<ScenarioInRun> fabric_schema() {
  FieldTable<ScenarioInRun> t("fabric");
  t.custom(
      {"backend", "`native` \\| `simgrid`", "`native`",
       "the flow solver: native, or SimGrid as a fidelity check (one helper process per run)"},
      [](const ConfigNode& f, ScenarioInRun& o) {
        o.backend = f.one_of("backend", {"native", "simgrid"});
      },
      [](const ScenarioInRun& o) { return nlohmann::json(o.backend); });
  t.choice("placement", &ScenarioInRun::spread, {{"packed", false}, {"spread", true}},
           "GPUs in ordinal order, or round-robin over the node's PCIe switches");
  return t;
}

FieldTable<ScenarioInRun> kv_offload_schema() {
  FieldTable<ScenarioInRun> t("kv_offload");
  t.boolean("enabled", &ScenarioInRun::swap_preempted_kv,
            "KV of preempted sequences to host DRAM and back, as flows on the fabric")
      .check([](const ScenarioInRun& o) -> std::string {
        return o.swap_preempted_kv && !o.enabled
                   ? "KV offload traffic runs on the in-run tier's fabric (set deployment.engram.in_run: true)"
                   : "";
      });
  return t;
}

void parse_fabric_section(const ConfigNode& f, ScenarioInRun& out) {
  static const FieldTable<ScenarioInRun> schema = fabric_schema();
  if (!f.is_map()) f.finish();  // "expected a map"
  schema.read(f, out);
  f.finish();
}

void parse_kv_offload_section(const ConfigNode& k, ScenarioInRun& out) {
  static const FieldTable<ScenarioInRun> schema = kv_offload_schema();
  if (!k.is_map()) k.finish();  // "expected a map"
  schema.read(k, out);
  k.finish();
}

void check_in_run_tier(const ConfigNode& root, bool has_offloaded_tier, const ScenarioInRun& out) {
  if (out.enabled && !has_offloaded_tier)
    root.child("deployment")
        .child("engram")
        .fail_key("in_run", "the in-run tier moves rows over the host links: it needs tier dram or ssd");
}

}  // namespace engramsim::scenario
