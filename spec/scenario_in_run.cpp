#include "spec/scenario_in_run.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "sim/memory/node_fabric_params.hpp"
#include "sim/memory/row_cache.hpp"
#include "spec/scenario_build.hpp"

namespace engramsim::sim {

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
  t.choice(
      "placement", [](auto& o) -> auto& { return o.spread; }, {{"packed", false}, {"spread", true}},
      "GPUs in ordinal order, or round-robin over the node's PCIe switches");
  return t;
}

FieldTable<ScenarioInRun> kv_offload_schema() {
  FieldTable<ScenarioInRun> t("kv_offload");
  t.boolean(
       "enabled", [](auto& o) -> auto& { return o.kv_offload; },
       "KV of preempted sequences to host DRAM and back, as flows on the fabric")
      .check([](const ScenarioInRun& o) -> std::string {
        return o.kv_offload && !o.enabled
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

EngramTierParams engram_tier_params(const BuiltScenario& b) {
  const ScenarioParams& sp = b.params;
  const ScenarioEngram& se = sp.deployment.engram;
  const ScenarioInRun& ir = se.in_run;
  const EngramSpec& spec = *b.card.engram;
  const RooflineOptions& ro = b.step_model->options();
  const Efficiencies& eff = ro.efficiencies;
  const NodeSpec& node = sp.node;
  const int tp = b.gpus_per_replica;
  const double row = spec.row_bytes.value();

  EngramTierParams p;
  p.tier = *se.tier;
  p.shape.table_rows = spec.table_rows;
  p.shape.rows_per_token = spec.rows_per_token_per_layer();
  p.shape.subtables_per_rank = std::max(1, (p.shape.rows_per_token + tp - 1) / tp);
  p.row_bytes = spec.row_bytes;
  p.tp = tp;
  p.replicas = b.replicas;

  p.access.model = ir.access_model;
  p.access.zipf_s = se.fetch.access.zipf_s;
  p.access.hash = {static_cast<int>(spec.layers.size()),
                   spec.min_order,
                   spec.max_order,
                   spec.heads_per_order,
                   spec.vocab_size_per_ngram,
                   spec.compressed_vocab_size,
                   spec.pad_token_id,
                   spec.hash_seed,
                   {}};
  p.access.seed = sp.seed;
  p.hbm_cache = se.fetch.hbm_hot_cache;
  p.hbm_policy = ir.hbm_policy;
  p.dram_cache = se.fetch.dram_cache;
  p.dram_policy = ir.dram_policy;
  p.page = se.fetch.ssd_page;
  p.sample_rows_per_step = ir.sample_rows_per_step;

  p.dram_path = se.fetch.dram_path;
  p.uva_efficiency = std::clamp(eff.host_gather_by_row_bytes.at(row), 1e-4, 1.0);
  p.copy_efficiency = eff.host_copy_by_bytes;
  const int active = std::max(1, ro.engram.active_gpus);
  p.cpu_gather_rate = Bandwidth(node.host_dram_bandwidth.value() / active * eff.cpu_gather_by_row_bytes.at(row));
  p.ssd_queue_depth = se.fetch.ssd_queue_depth;
  p.hbm_gather_rate = Bandwidth(node.gpu.hbm_bandwidth.value() * eff.of(OpClass::engram_gather).bandwidth.at(row));
  p.gather_overhead = eff.kernel_overhead;

  p.node = node_fabric_params(node);
  // Measured NVMe behaviour (calibration) replaces the datasheet, as in the formula.
  if (ro.engram.ssd_iops_per_drive > 0.0) p.node.drive.iops = ro.engram.ssd_iops_per_drive;
  if (ro.engram.ssd_read_latency > Time::zero()) p.node.drive.latency = ro.engram.ssd_read_latency;
  p.node.drive.page = se.fetch.ssd_page;
  p.backend = ir.backend;
  p.spread = ir.spread;
  p.kv_offload = ir.kv_offload;
  p.kv_bytes_per_token = b.footprint.per_gpu.kv_bytes_per_token;
  p.seed = sp.seed;
  return p;
}

}  // namespace engramsim::sim
