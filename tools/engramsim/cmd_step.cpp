// `engramsim step`: what one scheduler step costs a replica, op by op, with the Engram fetch, its
// window and the exposed stall per Engram layer.
//
// The batch is uniform: --decode-seqs sequences at --context tokens of KV, each verifying
// 1 + draft tokens positions (the card's speculative decoding unless --no-spec), plus an optional
// prefill chunk of --prefill-tokens tokens over --prefill-cached cached ones. Text output is a table
// of ops summed over layers (time, bound, share of the step), the Engram table with a reason per
// layer, and the step total; --json prints one object (schema in docs/cost-model.md). Exit 2 on bad
// input.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/number_text.hpp"
#include "core/unit_parse.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/calibration_apply.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/footprint.hpp"
#include "models/op_cost.hpp"
#include "models/roofline_step_model.hpp"
#include "scenario/build/scenario_build.hpp"
#include "tools/engramsim/cli_common.hpp"
#include "tools/engramsim/deployment_flags.hpp"

namespace engramsim::cli {
namespace {

struct StepArgs {
  std::string model;
  std::string node;
  DeploymentFlagValues deployment;  // --tp, --engine, --hbm-cache, ...: deployment keys
  int decode_seqs = 0;
  int context = 0;
  int prefill_tokens = 0;
  int prefill_cached = 0;
  std::string calibration;
  std::string page_cache = "warm";  // ssd tier, page_cache path: warm (as a run holds it) or cold
  bool per_layer = false;
  bool json = false;
};

std::string fixed(double v, int digits) { return fixed_digits(v, digits); }

std::string sci(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string layer_label(int layer) {
  if (layer == -1) return "pre";
  if (layer == -2) return "post";
  if (layer == -3) return "drafter";
  return std::to_string(layer);
}

struct OpRow {
  std::string name;
  double count = 0;
  double time_s = 0;
  double flops = 0;
  double hbm_bytes = 0;
  double collective_bytes = 0;
  std::map<std::string, double> time_by_bound;
  std::string bound() const {
    std::string best = "overhead";
    double t = -1;
    for (const auto& [b, s] : time_by_bound)
      if (s > t) {
        t = s;
        best = b;
      }
    return best;
  }
};

std::vector<OpRow> aggregate(const StepBreakdown& b) {
  std::vector<OpRow> rows;
  std::map<std::string, std::size_t> index;
  for (const auto& op : b.ops) {
    if (op.total.count_ns() == 0 && op.work.flops.value() == 0 && op.work.hbm_bytes.value() == 0 &&
        op.work.collective_bytes.value() == 0)
      continue;
    auto [it, fresh] = index.try_emplace(op.name, rows.size());
    if (fresh) rows.push_back(OpRow{op.name});
    OpRow& r = rows[it->second];
    r.count += op.count;
    r.time_s += op.total.seconds();
    r.flops += op.work.flops.value() * op.count;
    r.hbm_bytes += op.work.hbm_bytes.value() * op.count;
    r.collective_bytes += op.work.collective_bytes.value() * op.count;
    r.time_by_bound[to_string(op.cost.bound)] += op.total.seconds();
  }
  return rows;
}

// The batch flags against the card's context and the node's GPUs.
void check_batch(const StepArgs& a, const ModelCard& card, const NodeSpec& node,
                 const scenario::ScenarioDeployment& d) {
  if (a.decode_seqs < 0 || a.context < 0 || a.prefill_tokens < 0 || a.prefill_cached < 0)
    throw ConfigError({}, "batch", "sizes must be >= 0");
  if (a.decode_seqs == 0 && a.prefill_tokens == 0)
    throw ConfigError({}, "batch", "give --decode-seqs and/or --prefill-tokens");
  if (a.decode_seqs > 0 && a.context >= card.max_context)
    throw ConfigError(
        {}, "--context",
        std::to_string(a.context) + " KV tokens reach the card's max_context of " + std::to_string(card.max_context));
  if (a.prefill_cached + static_cast<std::int64_t>(a.prefill_tokens) > card.max_context)
    throw ConfigError(
        {}, "--prefill-tokens",
        "cached context plus the chunk exceed the card's max_context of " + std::to_string(card.max_context));
  if (d.engram.fetch.active_gpus > node.gpu_count)
    throw ConfigError({"--active-gpus", 0, 0}, "deployment.engram.active_gpus",
                      "the node has " + std::to_string(node.gpu_count) + " GPUs");
}

// Speculative decoding as the flags leave it on `card`: tokens emitted per verify step and positions
// verified per sequence.
struct SpecChoice {
  double accept = 1.0;
  int positions = 1;
};
SpecChoice spec_of(const scenario::ScenarioDeployment& d) {
  if (!d.spec_decode.enabled) return {};
  return {d.spec_decode.acceptance_length, 1 + d.spec_decode.draft_tokens};
}

// The step model's options from the flags: layout (by the same rule as footprint and a scenario's
// deployment), Engram fetch, engine preset and calibration profile.
struct StepSetup {
  RooflineOptions options;
  CalibrationReport calibration;
  bool dp_attention = false;
  int ep = 1;
  bool page_cache_path = false;  // the ssd tier read through the OS page cache
  Bytes table_files;             // the Engram table files of the node (ssd tier)
};

// The page cache of the ssd tier's page_cache path: warm holds what a run on this node holds
// (spec engram_page_cache: the host DRAM left beside the reserve and the deployment's pools),
// cold holds nothing (every distinct row faults).
void set_page_cache(const StepArgs& a, const ModelCard& card, const NodeSpec& node,
                    const scenario::ScenarioDeployment& d, StepSetup& st) {
  st.page_cache_path = d.engram.tier == EngramTier::ssd && d.host.engram_ssd_path == SsdPath::page_cache;
  if (!st.page_cache_path) return;
  const NodeFootprint nf = compute_footprint(card, node, scenario::footprint_options(d)).per_node;
  st.table_files = nf.ssd_engram;
  const Bytes row_caches = d.engram.fetch.dram_cache * static_cast<double>(nf.replicas);
  st.options.engram.page_cache =
      a.page_cache == "cold" ? Bytes(0.0) : scenario::engram_page_cache(d, nf, row_caches, Bytes(0.0));
}
StepSetup step_setup(const StepArgs& a, const ModelCard& card, const NodeSpec& node,
                     const scenario::ScenarioDeployment& d) {
  // The layout by the same rule as footprint and a scenario's deployment.
  const FootprintOptions layout_rule = scenario::footprint_options(d);
  StepSetup st;
  st.dp_attention = uses_dp_attention(card, layout_rule);
  st.ep = resolved_ep(card, layout_rule);
  ParallelLayout layout{d.tp, st.ep, st.dp_attention};
  layout.expert_balance = d.expert_balance;
  st.options = scenario::step_model_options(d, layout);
  set_page_cache(a, card, node, d, st);
  if (!a.calibration.empty()) {
    try {
      st.calibration = apply_calibration_profile(load_calibration_profile(a.calibration), node, st.options);
    } catch (const std::invalid_argument& e) {
      throw ConfigError({a.calibration, 0, 0}, "calibration", e.what());
    }
  }
  return st;
}

// The share of the default GEMM curves each of the GPU's precisions is priced at (tensor_peak): the
// calibration profile's measured one, else the GPU preset's; second = measured.
std::map<Precision, std::pair<double, bool>> gemm_shares(const NodeSpec& node, const Efficiencies& eff) {
  std::map<Precision, std::pair<double, bool>> out;
  const HardwareRates hw(node.gpu);
  for (const auto& [p, rate] : node.gpu.dense_flops)
    out[p] = {gemm_share(hw, eff, p), eff.gemm_precision_scale[static_cast<std::size_t>(p)].has_value()};
  return out;
}

// What one step of the uniform batch costs, and what it emits.
struct StepRun {
  StepBreakdown b;
  std::vector<OpRow> rows;
  double step_s = 0;
  double emitted = 0;
  double per_gpu_tok_s = 0;
};
StepRun run_batch(const StepArgs& a, const ModelCard& card, const NodeSpec& node, const RooflineOptions& o,
                  const SpecChoice& spec) {
  // Layouts the model cannot take (ep not dividing tp, heads not splitting) are bad input.
  std::unique_ptr<RooflineStepModel> model;
  try {
    model = std::make_unique<RooflineStepModel>(card, node, o);
  } catch (const std::invalid_argument& e) {
    throw ConfigError({}, "layout", e.what());
  }
  std::vector<DecodeSeq> decode(static_cast<std::size_t>(a.decode_seqs), DecodeSeq{a.context, spec.positions});
  std::vector<PrefillChunk> prefill;
  if (a.prefill_tokens > 0) prefill.push_back({a.prefill_tokens, a.prefill_cached});
  StepRun r;
  r.b = model->breakdown(BatchShape{prefill, decode});
  r.step_s = r.b.cost.total.seconds();
  r.rows = aggregate(r.b);
  r.emitted = a.decode_seqs * spec.accept;
  r.per_gpu_tok_s = r.step_s > 0 ? (r.emitted + a.prefill_tokens) / r.step_s / o.layout.tp : 0.0;
  return r;
}

// Everything the two printers read.
struct StepReport {
  const StepArgs& a;
  const ModelCard& card;
  const NodeSpec& node;
  const std::optional<EngramTier>& tier;
  const SpecChoice& spec;
  const StepSetup& st;
  const StepRun& run;
};

nlohmann::json ops_json(const StepRun& r) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& row : r.rows)
    ops.push_back({{"name", row.name},
                   {"count", row.count},
                   {"time_s", row.time_s},
                   {"bound", row.bound()},
                   {"share", r.step_s > 0 ? row.time_s / r.step_s : 0.0},
                   {"flops", row.flops},
                   {"hbm_bytes", row.hbm_bytes},
                   {"collective_bytes", row.collective_bytes}});
  return ops;
}

nlohmann::json engram_layers_json(const StepBreakdown& b) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& e : b.engram)
    layers.push_back({{"layer", e.layer},
                      {"tier", to_string(e.tier)},
                      {"positions", e.positions},
                      {"lookups", e.fetch.lookups},
                      {"distinct_rows", e.fetch.distinct_rows},
                      {"hbm_rows", e.fetch.hbm_rows},
                      {"host_rows", e.fetch.host_rows},
                      {"ssd_pages", e.fetch.ssd_pages},
                      {"fetch_s", e.fetch.total.seconds()},
                      {"window_s", e.window.seconds()},
                      {"prefetch_window_s", e.prefetch_window.seconds()},
                      {"arrival_s", e.arrival.seconds()},
                      {"completion_s", e.completion.seconds()},
                      {"stall_s", e.stall.seconds()},
                      {"bound", e.fetch.bound},
                      {"reason", e.reason}});
  return layers;
}

nlohmann::json ops_per_layer_json(const StepBreakdown& b) {
  nlohmann::json per = nlohmann::json::array();
  for (const auto& op : b.ops)
    per.push_back({{"layer", op.layer},
                   {"name", op.name},
                   {"count", op.count},
                   {"time_s", op.total.seconds()},
                   {"bound", to_string(op.cost.bound)},
                   {"flops", op.work.flops.value()},
                   {"hbm_bytes", op.work.hbm_bytes.value()},
                   {"collective_bytes", op.work.collective_bytes.value()}});
  return per;
}

void print_json(const StepReport& s) {
  const StepArgs& a = s.a;
  const RooflineOptions& o = s.st.options;
  const StepRun& r = s.run;
  nlohmann::json gemm_share = nlohmann::json::object();
  for (const auto& [p, share] : gemm_shares(s.node, o.efficiencies)) gemm_share[to_string(p)] = share.first;
  nlohmann::json out = {
      {"model", s.card.name},
      {"node", s.node.name},
      {"gpu", s.node.gpu.name},
      {"gemm_share", gemm_share},
      {"hbm_share", hbm_rate(HardwareRates(s.node.gpu), o.efficiencies) / s.node.gpu.hbm_bandwidth.value()},
      {"tp", s.st.options.layout.tp},
      {"ep", s.st.ep},
      {"dp_attention", s.st.dp_attention},
      {"engine", o.host.engine},
      {"host_overhead_us",
       {{"per_step", o.host.per_step.seconds() * 1e6}, {"per_sequence", o.host.per_sequence.seconds() * 1e6}}},
      {"batch",
       {{"decode_seqs", a.decode_seqs},
        {"context", a.context},
        {"positions_per_seq", s.spec.positions},
        {"prefill_tokens", a.prefill_tokens},
        {"prefill_cached", a.prefill_cached}}},
      {"step_time_s", r.step_s},
      {"compute_s", r.b.cost.compute.seconds()},
      {"engram_fetch_s", r.b.cost.engram_fetch.seconds()},
      {"engram_stall_s", r.b.cost.engram_stall.seconds()},
      {"host_overhead_s", r.b.cost.host_overhead.seconds()},
      {"acceptance_length", s.spec.accept},
      {"tokens_emitted", r.emitted},
      {"tokens_per_s_per_gpu", r.per_gpu_tok_s},
      {"interactivity_tok_s_per_user", r.step_s > 0 && a.decode_seqs > 0 ? s.spec.accept / r.step_s : 0.0},
      {"efficiency_source", o.efficiencies.source},
      {"calibration_applied", s.st.calibration.applied},
      {"calibration_kept", s.st.calibration.kept},
      {"collectives_source", o.collectives.source},
      {"ops", ops_json(r)},
      {"engram", {{"tier", engram_tier_label(s.tier)}, {"layers", engram_layers_json(r.b)}}},
  };
  if (s.st.page_cache_path)
    out["engram"]["page_cache"] = {{"state", a.page_cache},
                                   {"resident_gib", o.engram.page_cache.gib()},
                                   {"table_files_gib", s.st.table_files.gib()}};
  if (a.per_layer) out["ops_per_layer"] = ops_per_layer_json(r.b);
  std::cout << json_text(out) << "\n";
}

// The text header: what runs, the shares of the default curves that are not 1, the batch and the
// calibration.
void print_header(const StepReport& s) {
  const StepArgs& a = s.a;
  const RooflineOptions& o = s.st.options;
  std::cout << "Step: " << s.card.name << " on " << s.node.name << " (" << s.node.gpu.name << "), TP"
            << s.st.options.layout.tp << " EP" << s.st.ep << (s.st.dp_attention ? " DP-attention" : "")
            << ", Engram tier " << engram_tier_label(s.tier) << ", engine " << o.host.engine << " (host "
            << o.host.per_step.seconds() * 1e6 << " us per step + " << o.host.per_sequence.seconds() * 1e6
            << " us per sequence)\n";
  if (s.card.moe && s.st.ep > 1)
    std::cout << "Experts: " << placement_name(o.layout.expert_balance.placement) << " placement"
              << (o.layout.expert_balance.redundant_experts > 0
                      ? " with " + std::to_string(o.layout.expert_balance.redundant_experts) + " redundant replicas"
                      : "")
              << ", " << routing_name(o.layout.expert_balance.routing) << " routing, popularity CV "
              << fixed(s.card.moe->popularity_cv, 2) << "\n";
  std::string shares;
  for (const auto& [p, share] : gemm_shares(s.node, o.efficiencies))
    if (share.first != 1.0 || share.second)
      shares += (shares.empty() ? "" : ", ") + std::string(to_string(p)) + " " + fixed(share.first, 2) +
                (share.second ? " (measured)" : " (GPU preset)");
  if (!shares.empty()) std::cout << "GEMM share of the default efficiency curves: " << shares << "\n";
  if (!o.efficiencies.hbm_measured && s.node.gpu.hbm_efficiency != 1.0)
    std::cout << "HBM share of the default bandwidth curves: " << fixed(s.node.gpu.hbm_efficiency, 2)
              << " (GPU preset)\n";
  if (!o.efficiencies.attention_decode_measured && s.node.gpu.attention_decode_efficiency != 1.0)
    std::cout << "Decode-attention share of its bandwidth curve: " << fixed(s.node.gpu.attention_decode_efficiency, 2)
              << " (GPU preset)\n";
  const auto& g = s.node.gpu;
  if (g.gemm_bandwidth_efficiency != 1.0 || g.gemm_overlap != 1.0 || g.gemm_k_overhead != 0.0)
    std::cout << "Dense GEMMs: weight stream at " << fixed(g.gemm_bandwidth_efficiency, 2)
              << " of the bandwidth curves, overlap with their math " << fixed(g.gemm_overlap, 2)
              << ", math at K / (K + " << fixed(g.gemm_k_overhead, 0)
              << ") of its rate (GPU preset; not where a calibration measured the GEMM share)\n";
  std::string moe;
  for (std::size_t i = 0; i < kPrecisionCount; ++i)
    if (o.host.moe.bandwidth[i] != 1.0 || o.host.moe.compute[i] != 1.0)
      moe += (moe.empty() ? "" : ", ") + std::string(to_string(static_cast<Precision>(i))) + " " +
             fixed(o.host.moe.bandwidth[i], 2) + " / " + fixed(o.host.moe.compute[i], 2);
  if (!moe.empty()) std::cout << "Engine MoE kernel shares (bandwidth / compute): " << moe << " (engine preset)\n";
  if (!o.host.all_reduce_table.empty()) {
    std::string ranks;
    for (const auto& m : engine_all_reduce_table(o.host.all_reduce_table, g.name))
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(m.ranks);
    std::cout << "Engine all-reduce: table " << o.host.all_reduce_table << " ("
              << (ranks.empty() ? "no rows for " + g.name + ": the NCCL fit"
                                : "measured on " + g.name + " at " + ranks + " GPUs")
              << ")\n";
  }
  if (o.host.block_fp8_gemm_k_step > Time::zero())
    std::cout << "Engine block-FP8 dense GEMMs: at least " << fixed(o.host.block_fp8_gemm_k_step.seconds() * 1e6, 2)
              << " us per 128-deep K step (engine preset)\n";
  if (s.st.page_cache_path)
    std::cout << "Engram page cache: " << a.page_cache << ", " << fixed(o.engram.page_cache.gib(), 1) << " of "
              << fixed(s.st.table_files.gib(), 1) << " GiB of table files resident"
              << (a.page_cache == "cold" ? " (every distinct row faults)"
                                         : " (what a run on this node's host holds; --page-cache cold: none)")
              << "\n";
  std::cout << "Batch: " << a.decode_seqs << " decode seqs x " << s.spec.positions << " positions at context "
            << a.context;
  if (a.prefill_tokens > 0)
    std::cout << " + prefill chunk " << a.prefill_tokens << " (cached " << a.prefill_cached << ")";
  std::cout << "\n";
  for (const auto& line : s.st.calibration.notes) std::cout << "Calibration note: " << line << "\n";
  for (const auto& line : s.st.calibration.applied) std::cout << "Calibration: " << line << "\n";
  for (const auto& line : s.st.calibration.kept) std::cout << "Calibration default kept: " << line << "\n";
}

void print_ops(const StepReport& s) {
  const StepRun& r = s.run;
  std::cout << "\nOps per rank (summed over layers):\n";
  TextTable t({"OP", "COUNT", "TIME_MS", "SHARE_%", "BOUND", "FLOPS", "HBM_BYTES", "COLL_BYTES"});
  for (const auto& row : r.rows)
    t.add_row({row.name, fixed(row.count, 0), fixed(row.time_s * 1e3, 4),
               fixed(r.step_s > 0 ? 100 * row.time_s / r.step_s : 0, 2), row.bound(), sci(row.flops),
               sci(row.hbm_bytes), sci(row.collective_bytes)});
  std::cout << t.render();
  if (!s.a.per_layer) return;
  std::cout << "\nOps per layer:\n";
  TextTable pl({"LAYER", "OP", "TIME_US", "BOUND", "FLOPS", "HBM_BYTES", "COLL_BYTES"});
  for (const auto& op : r.b.ops)
    pl.add_row({layer_label(op.layer), op.name, fixed(op.total.seconds() * 1e6, 2), to_string(op.cost.bound),
                sci(op.work.flops.value()), sci(op.work.hbm_bytes.value()), sci(op.work.collective_bytes.value())});
  std::cout << pl.render();
}

void print_engram(const StepBreakdown& b) {
  if (b.engram.empty()) return;
  std::cout << "\nEngram layers (per rank):\n";
  TextTable e({"LAYER", "TIER", "POSITIONS", "LOOKUPS", "HOST_ROWS", "SSD_PAGES", "FETCH_MS", "WINDOW_MS", "STALL_MS",
               "BOUND"});
  for (const auto& l : b.engram)
    e.add_row({std::to_string(l.layer), to_string(l.tier), fixed(l.positions, 0), fixed(l.fetch.lookups, 0),
               fixed(l.fetch.host_rows, 0), fixed(l.fetch.ssd_pages, 0), fixed(l.fetch.total.seconds() * 1e3, 4),
               fixed(l.window.seconds() * 1e3, 4), fixed(l.stall.seconds() * 1e3, 4), l.fetch.bound});
  std::cout << e.render();
  for (const auto& l : b.engram) std::cout << "  layer " << l.layer << ": " << l.reason << "\n";
}

void print_text(const StepReport& s) {
  const StepRun& r = s.run;
  print_header(s);
  print_ops(s);
  print_engram(r.b);
  std::cout << "\nStep total " << fixed(r.step_s * 1e3, 3) << " ms = compute "
            << fixed(r.b.cost.compute.seconds() * 1e3, 3) << " ms + Engram stall "
            << fixed(r.b.cost.engram_stall.seconds() * 1e3, 3) << " ms ("
            << fixed(r.step_s > 0 ? 100 * r.b.cost.engram_stall.seconds() / r.step_s : 0, 2) << "% of the step) + host "
            << fixed(r.b.cost.host_overhead.seconds() * 1e3, 3) << " ms\n";
  if (s.a.decode_seqs > 0)
    std::cout << "Decode: " << fixed(r.emitted, 1) << " tokens emitted (acceptance " << fixed(s.spec.accept, 2) << "), "
              << fixed(s.spec.accept / r.step_s, 1) << " tok/s/user, " << fixed(r.per_gpu_tok_s, 0) << " tok/s/GPU\n";
}

int run_step(const StepArgs& a) {
  const ModelCard given = load_model_card(a.model);
  const NodeSpec node = load_node(node_for(a.node, "--node"));
  const scenario::ScenarioDeployment d = a.deployment.read(given, node);
  const ModelCard card = scenario::deployed_card(given, d);
  check_batch(a, card, node, d);
  const SpecChoice spec = spec_of(d);
  const StepSetup st = step_setup(a, card, node, d);
  const StepRun run = run_batch(a, card, node, st.options, spec);
  const StepReport report{a, card, node, d.engram.tier, spec, st, run};
  if (a.json)
    print_json(report);
  else
    print_text(report);
  return exit_code::ok;
}

}  // namespace

void add_step_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("step", "Cost of one scheduler step: per-op breakdown and Engram fetch/stall");
  auto a = std::make_shared<StepArgs>();
  cmd->add_option("--model", a->model, "Model card name or path")->required();
  cmd->add_option("--node", a->node, "Node name or path")->required();
  a->deployment.add_to(
      cmd, {"--tp", "--ep", "--attention", "--expert-placement", "--redundant-experts", "--expert-routing",
            "--engram-tier", "--engine", "--zipf-exponent", "--dram-cache", "--hbm-cache", "--fetch",
            "--ssd-queue-depth", "--active-gpus", "--no-dedup", "--no-spec", "--draft-tokens", "--acceptance-length"});
  cmd->get_option("--tp")->required();
  CLI::Option* seqs =
      cmd->add_option("--decode-seqs", a->decode_seqs, "Decode sequences in the step")->check(CLI::Range(0, 1000000));
  CLI::Option* context =
      cmd->add_option("--context", a->context, "KV tokens per decode sequence (needed with --decode-seqs)");
  seqs->needs(context);
  cmd->add_option("--prefill-tokens", a->prefill_tokens, "Prompt tokens of one prefill chunk in the step");
  cmd->add_option("--prefill-cached", a->prefill_cached, "Cached context before that chunk");
  cmd->add_option("--calibration", a->calibration,
                  "Calibration profile (YAML) whose measured sections replace defaults");
  cmd->add_option("--page-cache", a->page_cache,
                  "ssd tier read through the page cache: warm (the table pages a run on this node holds, default) "
                  "or cold (none)")
      ->check(CLI::IsMember({"warm", "cold"}));
  cmd->add_flag("--per-layer", a->per_layer, "Also list every op of every layer");
  cmd->add_flag("--json", a->json, "One JSON object instead of tables");
  cmd->callback([&action, a] { action = [a] { return run_step(*a); }; });
}

}  // namespace engramsim::cli
