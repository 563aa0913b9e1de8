// `engramsim footprint`: the HBM footprint of one model replica on a node and whether it fits.
//
// Prints per-GPU terms (weights by group and precision, Engram tables, activations, runtime reserve,
// KV pool and tokens) and per-node host DRAM / SSD for the Engram tables, as aligned tables or, with
// --json, one JSON object. Exit 0 when it fits, 3 when it does not (the reason names the term and by
// how much), 2 for bad input. What each term means: docs/footprint.md.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/number_text.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/footprint.hpp"
#include "scenario/build/scenario_build.hpp"
#include "tools/engramsim/cli_common.hpp"
#include "tools/engramsim/deployment_flags.hpp"

namespace engramsim::cli {
namespace {

struct FootprintArgs {
  std::string model;
  std::string node;
  DeploymentFlagValues deployment;  // --tp, --engram-tier, --max-num-seqs, ...: deployment keys
  bool json = false;
};

std::string fixed(double v, int digits) { return fixed_digits(v, digits); }

std::string gib(Bytes b) { return fixed(b.gib(), 2); }

std::int64_t whole(Bytes b) { return static_cast<std::int64_t>(std::llround(b.value())); }

// The tier the footprint priced: none when the card carries no Engram module (or --engram-tier none
// removed it).
std::optional<EngramTier> priced_tier(const ModelCard& card, const Footprint& f) {
  return card.engram ? std::optional<EngramTier>(f.engram_tier) : std::nullopt;
}

const char* tier_words(const std::optional<EngramTier>& tier) {
  if (!tier) return "no Engram";
  switch (*tier) {
    case EngramTier::hbm:
      return "Engram tables in HBM";
    case EngramTier::dram:
      return "Engram tables in host DRAM";
    case EngramTier::ssd:
      return "Engram tables on NVMe SSD";
  }
  return "";
}

nlohmann::json to_json(const ModelCard& card, const NodeSpec& node, const FootprintOptions& o, const Footprint& f) {
  const GpuFootprint& g = f.per_gpu;
  const NodeFootprint& n = f.per_node;
  nlohmann::json groups = nlohmann::json::array();
  for (const WeightLine& w : g.weight_lines)
    groups.push_back({{"kind", to_string(w.kind)},
                      {"precision", to_string(w.precision)},
                      {"sharding", to_string(w.sharding)},
                      {"drafter", w.drafter},
                      {"bytes", whole(w.bytes)}});
  return {
      {"model", card.name},
      {"node", node.name},
      {"gpu", node.gpu.name},
      {"tp", f.layout.tp},
      {"ep", f.layout.ep},
      {"attention", f.dp_attention ? "data" : "tensor"},
      {"engram_tier", engram_tier_label(priced_tier(card, f))},
      {"max_num_batched_tokens", o.max_num_batched_tokens},
      {"max_num_seqs", o.max_num_seqs},
      {"max_model_len", f.max_model_len},
      {"gpu_memory_utilization", o.gpu_memory_utilization},
      {"kv_free_fraction", o.kv_free_fraction},
      {"block_size", o.block_size},
      {"share_engram_across_replicas", o.share_engram_across_replicas},
      {"feasible", f.feasible},
      {"infeasible_reason", f.infeasible_reason},
      {"engram_tables_total_bytes", whole(f.engram_tables_total)},
      {"engram_bytes_per_token_position", whole(f.engram_bytes_per_token_position)},
      {"replica_kv_tokens", f.replica_kv_tokens},
      {"engine_logged_kv_tokens", f.engine_logged_kv_tokens},
      {"per_gpu",
       {{"hbm_capacity_bytes", whole(g.hbm_capacity)},
        {"budget_bytes", whole(g.budget)},
        {"weights_bytes", whole(g.weights)},
        {"weights_sharded_bytes", whole(g.weights_sharded)},
        {"weights_replicated_bytes", whole(g.weights_replicated)},
        {"weights_by_group", groups},
        {"engram_bytes", whole(g.engram)},
        {"activation_bytes", whole(g.activation)},
        {"activation_working_set_bytes", whole(g.activation_working_set)},
        {"logits_bytes", whole(g.logits)},
        {"engram_staging_bytes", whole(g.engram_staging)},
        {"fixed_buffer_bytes", whole(g.fixed_buffers)},
        {"reserved_bytes", whole(g.reserved)},
        {"graph_capture_bytes", whole(g.graph_capture)},
        {"kv_pool_bytes", whole(g.kv_pool)},
        {"kv_window_reserve_bytes", whole(g.kv_window_reserve)},
        {"kv_bytes_per_token", g.kv_bytes_per_token.value()},
        {"kv_tokens", g.kv_tokens}}},
      {"per_node",
       {{"gpu_count", n.gpu_count},
        {"replicas", n.replicas},
        {"host_dram_capacity_bytes", whole(n.host_dram_capacity)},
        {"host_dram_available_bytes", whole(n.host_dram_available)},
        {"host_dram_engram_bytes", whole(n.host_dram_engram)},
        {"ssd_capacity_bytes", whole(n.ssd_capacity)},
        {"ssd_engram_bytes", whole(n.ssd_engram)}}},
  };
}

void print_human(const ModelCard& card, const NodeSpec& node, const FootprintOptions& o, const Footprint& f) {
  const GpuFootprint& g = f.per_gpu;
  const NodeFootprint& n = f.per_node;
  std::cout << card.name << " on " << node.name << " (" << node.gpu_count << " x " << node.gpu.name << "): TP"
            << f.layout.tp << ", EP" << f.layout.ep << ", " << (f.dp_attention ? "data" : "tensor")
            << "-parallel attention, " << tier_words(priced_tier(card, f)) << "\n";
  std::cout << "max_num_batched_tokens " << o.max_num_batched_tokens << ", max_num_seqs " << o.max_num_seqs
            << ", max_model_len " << f.max_model_len
            << (o.kv_free_fraction > 0.0 ? ", kv_free_fraction " + fixed(o.kv_free_fraction, 2)
                                         : ", gpu_memory_utilization " + fixed(o.gpu_memory_utilization, 2))
            << ", block_size " << o.block_size << "\n\n";

  TextTable t({"PER GPU", "GiB"});
  t.add_row({"HBM usable", gib(g.hbm_capacity)});
  t.add_row({o.kv_free_fraction > 0.0 ? std::string("budget (all of usable; KV takes ") +
                                            fixed(100.0 * o.kv_free_fraction, 0) + "% of what is left)"
                                      : "budget (" + fixed(100.0 * o.gpu_memory_utilization, 0) + "% of usable)",
             gib(g.budget)});
  t.add_row({"weights", gib(g.weights)});
  t.add_row({"  sharded across tp/ep", gib(g.weights_sharded)});
  t.add_row({"  replicated on every GPU", gib(g.weights_replicated)});
  t.add_row({"Engram tables (hbm tier)", gib(g.engram)});
  t.add_row({"activations and buffers", gib(g.activation)});
  t.add_row({"  layer working set", gib(g.activation_working_set)});
  t.add_row({"  sampler logits", gib(g.logits)});
  t.add_row({"  Engram staging", gib(g.engram_staging)});
  t.add_row({"  fixed buffers (card)", gib(g.fixed_buffers)});
  t.add_row({"runtime reserve", gib(g.reserved)});
  t.add_row({"  grows with graph capture", gib(g.graph_capture)});
  t.add_row({"KV pool", gib(g.kv_pool)});
  t.add_row({"  sliding-window buffers", gib(g.kv_window_reserve)});
  std::cout << t.render() << "\n";

  TextTable kv({"KV", "VALUE"});
  kv.add_row({"bytes per token per GPU", fixed(g.kv_bytes_per_token.value(), 1)});
  kv.add_row({"tokens per GPU", with_commas(g.kv_tokens)});
  kv.add_row({"tokens per replica", with_commas(f.replica_kv_tokens)});
  kv.add_row({"as the engine logs it", with_commas(f.engine_logged_kv_tokens)});
  std::cout << kv.render() << "\n";

  TextTable w({"WEIGHTS PER GPU", "PRECISION", "SHARDING", "GiB"});
  for (const WeightLine& l : g.weight_lines)
    w.add_row({std::string(l.drafter ? "drafter " : "") + to_string(l.kind), to_string(l.precision),
               to_string(l.sharding), fixed(l.bytes.gib(), 3)});
  std::cout << w.render() << "\n";

  TextTable nd({"PER NODE", "GiB"});
  nd.add_row({"Engram tables, all layers", gib(f.engram_tables_total)});
  nd.add_row({"host DRAM", gib(n.host_dram_capacity)});
  nd.add_row({"host DRAM available after reserve", gib(n.host_dram_available)});
  nd.add_row({"host DRAM pinned for Engram", gib(n.host_dram_engram)});
  nd.add_row({"NVMe capacity", gib(n.ssd_capacity)});
  nd.add_row({"NVMe used by Engram", gib(n.ssd_engram)});
  std::cout << nd.render() << "(" << n.replicas << " replica" << (n.replicas == 1 ? "" : "s") << " of " << f.layout.tp
            << " GPUs on the node's " << n.gpu_count << ")\n\n";

  if (f.feasible)
    std::cout << "fits\n";
  else
    std::cout << "does not fit: " << f.infeasible_reason << "\n";
}

int run_footprint(const FootprintArgs& a) {
  const ModelCard given = load_model_card(a.model);
  const NodeSpec node = load_node(node_for(a.node, "--node"));
  const scenario::ScenarioDeployment d = a.deployment.read(given, node);
  if (d.scheduler.max_num_seqs_rule)
    throw ConfigError({"--max-num-seqs", 0, 0}, d.scheduler.max_num_seqs_rule->field,
                      "a concurrency rule needs a workload; footprint takes a number");
  if (d.scheduler.capture_size_rule)
    throw ConfigError({"--max-cudagraph-capture-size", 0, 0}, d.scheduler.capture_size_rule->field,
                      "a concurrency rule needs a workload; footprint takes a number");
  const ModelCard card = scenario::deployed_card(given, d);
  const FootprintOptions o = scenario::footprint_options(d);
  Footprint f;
  try {
    f = compute_footprint(card, node, o);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_code::bad_input;
  }
  if (a.json)
    std::cout << json_text(to_json(card, node, o, f)) << "\n";
  else
    print_human(card, node, o, f);
  return f.feasible ? exit_code::ok : exit_code::infeasible;
}

}  // namespace

void add_footprint_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("footprint", "HBM footprint of one model replica on a node, and whether it fits");
  auto a = std::make_shared<FootprintArgs>();
  cmd->add_option("--model", a->model, "Model card name or path (models/cards)")->required();
  cmd->add_option("--node", a->node, "Node name or path (hardware/nodes)")->required();
  a->deployment.add_to(cmd, {"--tp", "--ep", "--attention", "--expert-placement", "--redundant-experts",
                             "--engram-tier", "--max-num-batched-tokens", "--max-num-seqs", "--max-model-len",
                             "--gpu-memory-utilization", "--kv-cache-free-gpu-mem-fraction", "--block-size",
                             "--share-across-replicas", "--engine", "--max-cudagraph-capture-size"});
  cmd->get_option("--tp")->required();
  cmd->add_flag("--json", a->json, "Print one JSON object instead of tables");
  cmd->callback([&action, a] { action = [a] { return run_footprint(*a); }; });
}

}  // namespace engramsim::cli
