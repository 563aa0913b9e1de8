#include "spec/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "core/paths.hpp"
#include "hardware/hardware_loader.hpp"
#include "hardware/price_file.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "models/roofline_step_model.hpp"
#include "sim/serving/builtin_registries.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/workload/workload_config.hpp"
#include "spec/scheduler_schema.hpp"

namespace engramsim::sim {
namespace {

bool names_a_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.substr(s.size() - 5) == ".yaml");
}

// A catalog entry named by `key` of `root`: a name under `folder`, or a path beside the scenario
// file (then under the data root). A missing entry is an error at the key, listing what exists.
std::string resolve_entry(const ConfigNode& root, const std::string& key, const std::string& folder,
                          const std::string& what) {
  const ConfigNode v = root.child(key);
  const std::string text = v.as_str();
  if (text.empty()) v.fail("expected a " + what + " name or path");
  const std::string path = names_a_path(text) ? resolve_data_path(root, text) : resolve_catalog_path(folder, text);
  std::error_code ec;  // a name the file system refuses (one too long, say) is a missing entry too
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::string known;
    for (const auto& e : list_catalog(folder)) known += (known.empty() ? "" : ", ") + e.name;
    v.fail("no " + what + " '" + text + "' (" + path + " does not exist; known: " + known + ")");
  }
  return path;
}

// `page_cache_limit`: at least one 4 KiB page and at most the node's host RAM.
Bytes parse_page_cache_limit(const ConfigNode& e, const NodeSpec& node) {
  const Bytes v = e.bytes("page_cache_limit");
  if (!(v.value() >= 4096.0)) e.fail_key("page_cache_limit", "must be at least one 4 KiB page");
  if (v.value() > node.host_dram_capacity.value()) {
    char buf[192];
    std::snprintf(buf, sizeof buf, "%.1f GiB is larger than the host RAM of node '%s' (%.1f GiB, host_dram_capacity)",
                  v.gib(), node.name.c_str(), node.host_dram_capacity.gib());
    e.fail_key("page_cache_limit", buf);
  }
  return v;
}

ScenarioEngram parse_engram(const ConfigNode& e, const ModelCard& card, const NodeSpec& node, HostOverhead& host) {
  ScenarioEngram out;
  const std::string tier = e.one_of_or("tier", {"hbm", "dram", "ssd", "none"}, card.engram ? "dram" : "none");
  if (tier != "none") {
    if (!card.engram) e.fail_key("tier", "the model card '" + card.name + "' has no Engram module (use tier: none)");
    out.tier = engram_tier_from_string(tier);
    out.fetch.tier = *out.tier;
    if (*out.tier == EngramTier::ssd && node.nvme.count == 0)
      e.fail_key("tier", "node '" + node.name + "' has no NVMe drives (nvme.count: 0); use tier hbm or dram");
  }
  if (const auto a = e.optional_child("access")) {
    const std::string model = a->one_of("model", {"uniform", "zipf", "text"});
    if (model == "zipf") out.fetch.access.zipf_s = a->number("exponent", 1e-6, 4.0);
    if (model == "text") out.in_run.access_model = AccessModel::text;
    a->finish();
  }
  out.fetch.dram_path =
      e.one_of_or("fetch", {"zero_copy", "staged"}, "zero_copy") == "staged" ? DramPath::staged : DramPath::zero_copy;
  out.fetch.dedup = e.boolean_or("dedup", true);
  std::string hbm_policy = to_string(out.in_run.hbm_policy);
  std::string dram_policy = to_string(out.in_run.dram_policy);
  out.fetch.hbm_hot_cache = parse_cache_size(e, "hbm_cache", Bytes(0.0), hbm_policy, {"lfu", "lru", "static"});
  out.fetch.dram_cache = parse_cache_size(e, "dram_cache", Bytes(0.0), dram_policy, {"lru", "lfu"});
  out.in_run.hbm_policy = *hot_row_policy_from(hbm_policy);  // one of the names allowed above
  out.in_run.dram_policy = *row_cache_policy_from(dram_policy);
  if (out.fetch.hbm_hot_cache.value() < 0) e.fail_key("hbm_cache", "must be >= 0");
  if (out.fetch.dram_cache.value() < 0) e.fail_key("dram_cache", "must be >= 0");
  out.fetch.ssd_queue_depth = static_cast<int>(e.integer_or("ssd_queue_depth", 128, 1, 65536));
  out.fetch.ssd_iops_per_drive = e.number_or("ssd_iops_per_drive", 0.0, 0.0, 1e12);
  out.fetch.ssd_read_latency = e.time_or("ssd_read_latency", Time::zero());
  if (out.fetch.ssd_read_latency < Time::zero()) e.fail_key("ssd_read_latency", "must be >= 0");
  out.fetch.ssd_page = e.bytes_or("ssd_page", Bytes(4096.0));
  if (!(out.fetch.ssd_page.value() >= 512.0)) e.fail_key("ssd_page", "must be at least 512 B");
  out.fetch.active_gpus = static_cast<int>(e.integer_or("active_gpus", 0, 0, 4096));
  out.prefill_prefetch = e.boolean_or("prefill_prefetch", true);
  out.share_across_replicas = e.boolean_or("share_across_replicas", false);
  if (e.has("page_cache_limit")) out.page_cache_limit = parse_page_cache_limit(e, node);
  parse_engram_in_run(e, out.in_run);
  // The engine's ssd read path (models/engines/*.yaml engram_ssd_path), which a scenario may override.
  if (e.has("ssd_path")) {
    const bool pc = e.one_of("ssd_path", {"direct", "page_cache"}) == "page_cache";
    if (pc && host.engram_ssd_path != SsdPath::page_cache)
      e.fail_key("ssd_path",
                 "engine preset '" + host.engine + "' has no page_cache terms (engram_ssd_path: page_cache)");
    host.engram_ssd_path = pc ? SsdPath::page_cache : SsdPath::direct;
  }
  if (out.tier == EngramTier::ssd && host.engram_ssd_path == SsdPath::page_cache) {
    if (out.fetch.dram_cache.value() > 0.0)
      e.fail_key("dram_cache", "engine '" + host.engine +
                                   "' reads SSD through the OS page cache, sized from host RAM; "
                                   "a DRAM row cache needs ssd_path: direct");
    if (out.in_run.enabled) e.fail_key("in_run", "the in-run tier models direct reads; set ssd_path: direct");
  }
  e.finish();
  return out;
}

ScenarioSpecDecode parse_spec_decode(const std::optional<ConfigNode>& s, const ModelCard& card) {
  const SpecDecodeSpec& c = card.spec_decode;
  const bool card_has = c.kind != SpecDecodeKind::none && c.draft_tokens > 0;
  ScenarioSpecDecode out;
  out.enabled = card_has;
  out.draft_tokens = card_has ? c.draft_tokens : 0;
  out.acceptance_length = card_has ? c.acceptance_length : 1.0;
  if (!s) return out;
  out.enabled = s->boolean_or("enabled", card_has);
  if (out.enabled && !card_has)
    s->fail_key("enabled", "the model card '" + card.name + "' has no drafter (its spec_decode kind is none)");
  const int draft = static_cast<int>(s->integer_or("draft_tokens", card_has ? c.draft_tokens : 1, 1, 64));
  const bool given_acceptance = s->has("acceptance_length");
  const double accept = s->number_or("acceptance_length", card_has ? c.acceptance_length : 1.0, 1.0, 65.0);
  s->finish();
  if (!out.enabled) return {false, 0, 1.0};
  if (accept > 1.0 + draft) {
    const std::string msg = "acceptance length " + std::to_string(accept) + (given_acceptance ? "" : " (the card's)") +
                            " exceeds 1 + draft_tokens = " + std::to_string(1 + draft);
    if (given_acceptance) s->fail_key("acceptance_length", msg);
    s->fail_key("draft_tokens", msg + "; give acceptance_length as well");
  }
  out.draft_tokens = draft;
  out.acceptance_length = accept;
  return out;
}

ScenarioDeployment parse_deployment(const ConfigNode& d, const ModelCard& card, const NodeSpec& node,
                                    const SchedulerRegistry& schedulers, const RouterRegistry& routers) {
  ScenarioDeployment out;
  const bool has_nodes = d.has("nodes"), has_replicas = d.has("replicas");
  if (has_nodes == has_replicas) d.fail("give exactly one of nodes (whole nodes) or replicas");
  if (has_nodes)
    out.nodes = static_cast<int>(d.integer("nodes", 1, 1 << 20));
  else
    out.replicas = static_cast<int>(d.integer("replicas", 1, 1 << 20));
  out.tp = static_cast<int>(d.integer_or("tp", 1, 1, 4096));
  out.ep = static_cast<int>(d.integer_or("ep", 0, 0, 4096));
  if (out.ep > 0 && out.tp % out.ep != 0)
    d.fail_key("ep", "must divide tp (" + std::to_string(out.tp) + "); 0 chooses automatically");
  if (has_nodes) {
    // Whole nodes: every replica inside one node, or a replica spanning whole nodes.
    const int g = node.gpu_count;
    if (out.tp > g && out.tp % g != 0)
      d.fail_key("tp", "a replica of " + std::to_string(out.tp) + " GPUs must span whole " + std::to_string(g) +
                           "-GPU nodes of " + node.name + " when the deployment is given in nodes");
    if (out.tp > g && (out.nodes * g) % out.tp != 0)
      d.fail_key("nodes", std::to_string(out.nodes) + " nodes do not hold a whole number of TP" +
                              std::to_string(out.tp) + " replicas");
  }
  const std::string attention = d.one_of_or("attention", {"automatic", "tensor", "data"}, "automatic");
  out.attention = attention == "tensor" ? AttentionParallel::tensor
                  : attention == "data" ? AttentionParallel::data
                                        : AttentionParallel::automatic;
  {
    const std::string placement = d.one_of_or("expert_placement", placement_names(), "static");
    out.expert_balance.placement = *placement_from_name(placement);
    out.expert_balance.redundant_experts = static_cast<int>(d.integer_or("redundant_experts", 0, 0, 1 << 16));
    if (out.expert_balance.redundant_experts > 0 && out.expert_balance.placement != ExpertPlacement::eplb)
      d.fail_key("redundant_experts", "redundant expert replicas need expert_placement: eplb");
    if (out.expert_balance.placement == ExpertPlacement::eplb && !card.moe)
      d.fail_key("expert_placement", "eplb places routed experts; " + card.name + " has none");
    if (out.expert_balance.placement == ExpertPlacement::eplb) {
      FootprintOptions resolve;
      resolve.tp = out.tp;
      resolve.ep = out.ep;
      resolve.attention = out.attention;
      const std::string why =
          expert_slots_problem(card.moe->num_experts, resolved_ep(card, resolve), out.expert_balance);
      if (!why.empty())
        d.fail_key(d.has("redundant_experts") ? "redundant_experts" : "expert_placement",
                   why + (out.ep > 0 ? "" : " (automatic)"));
    }
  }
  // A catalog name or a preset file beside the scenario (models/engine_loader.hpp).
  out.engine_path = d.has("engine") ? resolve_entry(d, "engine", "models/engines", "engine preset")
                                    : resolve_catalog_path("models/engines", out.engine);
  out.host = load_engine(out.engine_path);
  out.engine = out.host.engine;
  out.max_model_len = d.integer_or("max_model_len", 0, 0, card.max_context);
  if (const auto e = d.optional_child("engram"))
    out.engram = parse_engram(*e, card, node, out.host);
  else
    out.engram =
        parse_engram(ConfigNode(YAML::Node(YAML::NodeType::Map), d.file(), d.path() + ".engram"), card, node, out.host);
  if (const auto s = d.optional_child("scheduler"))
    out.scheduler = parse_scheduler_section(*s, schedulers);
  else
    out.scheduler.policy.name = "vllm";
  out.spec_decode = parse_spec_decode(d.optional_child("spec_decode"), card);
  if (const auto r = d.optional_child("router")) out.router = parse_router(*r, routers);
  d.finish();
  return out;
}

ScenarioSlo parse_slo_section(const ConfigNode& s) {
  ScenarioSlo out;
  // In the order of SloMetric and SloStat.
  static const std::vector<std::string> metrics = {"ttft", "tpot", "itl", "e2el"};
  static const std::vector<std::string> stats = {"p50", "p90", "p99", "mean"};
  std::optional<Time> p99[4];
  for (const std::string& key : s.keys()) {
    const ConfigNode v = s.child(key);
    if (key == "min_interactivity") {
      out.min_interactivity = v.as_number();
      if (!(out.min_interactivity > 0.0)) v.fail("must be > 0 (tokens/s per user)");
      continue;
    }
    const auto us = key.find('_');
    const std::string metric = key.substr(0, us);
    const auto m = std::find(metrics.begin(), metrics.end(), metric);
    if (m == metrics.end() || (us == std::string::npos && metric == "itl")) {
      s.fail_key(key,
                 "unknown SLO key (known: ttft, tpot, e2el per-request bounds; <ttft|tpot|itl|e2el>_<p50|p90|p99|mean> "
                 "targets; min_interactivity)");
    }
    const Time t = v.as_time();
    if (t <= Time::zero()) v.fail("must be > 0");
    if (us == std::string::npos) {
      if (metric == "ttft") out.per_request.ttft = t;
      if (metric == "tpot") out.per_request.tpot = t;
      if (metric == "e2el") out.per_request.e2el = t;
      continue;
    }
    const std::string stat = key.substr(us + 1);
    const auto st = std::find(stats.begin(), stats.end(), stat);
    if (st == stats.end()) s.fail_key(key, "unknown statistic '" + stat + "' (known: p50, p90, p99, mean)");
    out.targets.push_back(
        {key, static_cast<SloMetric>(m - metrics.begin()), static_cast<SloStat>(st - stats.begin()), t});
    if (stat == "p99") p99[m - metrics.begin()] = t;
  }
  s.finish();
  // Goodput counts requests within the per-request bounds; a p99 target stands in for a missing one.
  if (!out.per_request.ttft) out.per_request.ttft = p99[0];
  if (!out.per_request.tpot) out.per_request.tpot = p99[1];
  if (!out.per_request.e2el) out.per_request.e2el = p99[3];
  return out;
}

}  // namespace

ScenarioDeployment parse_deployment_section(const ConfigNode& d, const ModelCard& card, const NodeSpec& node) {
  const RegistryChoice registries(nullptr, nullptr);
  return parse_deployment(d, card, node, *registries.schedulers, *registries.routers);
}

std::int64_t ConcurrencyRule::apply(std::int64_t concurrency) const {
  double v = std::ceil(per_concurrency * static_cast<double>(concurrency) - 1e-9);
  if (power_of_two) v = std::exp2(std::ceil(std::log2(std::max(1.0, v))));
  const double clamped = std::clamp(v, static_cast<double>(min), static_cast<double>(max));
  return static_cast<std::int64_t>(clamped);
}

std::vector<std::int32_t> vllm_capture_sizes(std::int64_t max_tokens, int draft_tokens) {
  std::vector<std::int64_t> tokens;
  for (std::int64_t t : {1, 2, 4})
    if (t <= max_tokens) tokens.push_back(t);
  for (std::int64_t t = 8; t < 256 && t <= max_tokens; t += 8) tokens.push_back(t);
  for (std::int64_t t = 256; t <= max_tokens; t += 16) tokens.push_back(t);
  const std::int64_t per_seq = 1 + std::max(0, draft_tokens);
  std::vector<std::int32_t> seqs;
  for (const std::int64_t t : tokens) {
    const auto n = static_cast<std::int32_t>(t / per_seq);
    if (n >= 1 && (seqs.empty() || seqs.back() != n)) seqs.push_back(n);
  }
  return seqs;
}

void resolve_concurrency_limits(ScenarioDeployment& d, std::int64_t concurrency) {
  ScenarioScheduler& s = d.scheduler;
  for (const auto* rule : {&s.max_num_seqs_rule, &s.capture_size_rule}) {
    if (*rule && concurrency <= 0)
      throw ConfigError((*rule)->where, (*rule)->field,
                        "a limit derived from workload.concurrency needs a workload with a concurrency "
                        "(closed_loop, agentx, or a trace replayed in closed loop)");
  }
  if (s.max_num_seqs_rule) s.policy.max_num_seqs = static_cast<std::int32_t>(s.max_num_seqs_rule->apply(concurrency));
  if (s.capture_size_rule) s.max_cudagraph_capture_size = s.capture_size_rule->apply(concurrency);
  if (s.max_cudagraph_capture_size > 0)
    s.cuda_graph_batch_sizes =
        vllm_capture_sizes(s.max_cudagraph_capture_size, d.spec_decode.enabled ? d.spec_decode.draft_tokens : 0);
}

ScenarioParams parse_scenario(const ConfigNode& root, const ScenarioParseOptions& options) {
  if (!root.is_map()) root.fail("a scenario file must be a map");
  const RegistryChoice registries(options.schedulers, options.routers);
  const SchedulerRegistry* schedulers = registries.schedulers;
  const RouterRegistry* routers = registries.routers;

  ScenarioParams p;
  p.file = root.file();
  p.name = root.str("name");
  if (p.name.empty()) root.fail_key("name", "must not be empty");
  p.description = root.str_or("description", "");
  p.seed = static_cast<std::uint64_t>(root.integer_or("seed", 0, 0));
  p.model_path = resolve_entry(root, "model", "models/cards", "model card");
  p.node_path = resolve_entry(root, "node", "hardware/nodes", "node preset");
  p.card = load_model_card(p.model_path);
  p.node = load_node(p.node_path);

  const CalibrationCandidate* by_gpu = options.calibrations_by_gpu != nullptr
                                           ? choose_calibration(*options.calibrations_by_gpu, p.node.gpu.name)
                                           : nullptr;
  if (by_gpu != nullptr) {
    root.ignore("calibration");
    p.calibration_path = by_gpu->path;
    p.calibration = by_gpu->profile;
  } else if (!options.calibration.empty()) {
    root.ignore("calibration");
    p.calibration_path = options.calibration;
    if (const std::string why = ConfigNode::file_problem(p.calibration_path); !why.empty())
      throw ConfigError({"--calibration", 0, 0}, "", p.calibration_path + ": " + why);
  } else if (root.has("calibration")) {
    p.calibration_path = resolve_data_path(root, root.str("calibration"));
    if (const std::string why = ConfigNode::file_problem(p.calibration_path); !why.empty())
      root.fail_key("calibration", p.calibration_path + ": " + why);
  }
  if (!p.calibration_path.empty() && !p.calibration) {
    p.calibration = load_calibration_profile(p.calibration_path);
    const ProfileMatch match = check_profile_matches(*p.calibration, p.node.gpu.name);
    if (match.severity == MatchSeverity::error) {
      if (options.calibration.empty()) root.fail_key("calibration", match.message);
      throw ConfigError({"--calibration", 0, 0}, "calibration", match.message);
    }
  }

  const std::string tier = root.one_of_or("price_tier", {"hyperscaler", "neocloud", "rental"}, "hyperscaler");
  p.price_tier = *price_tier_from_string(tier);
  if (root.has("prices")) {
    // A user's price file replaces the node's GPU-hour prices (hardware/price_file.hpp).
    p.prices_path = resolve_data_path(root, root.str("prices"));
    if (const std::string why = ConfigNode::file_problem(p.prices_path); !why.empty())
      root.fail_key("prices", p.prices_path + ": " + why);
    p.node = apply_price_file(load_price_file(p.prices_path), std::move(p.node), p.price_tier);
  }
  p.deployment = parse_deployment(root.child("deployment"), p.card, p.node, *schedulers, *routers);
  const auto& engram_tier = p.deployment.engram.tier;
  parse_in_run_sections(root, engram_tier && *engram_tier != EngramTier::hbm, p.deployment.engram.in_run);
  // A generated AgentX corpus compacts its contexts at the deployment's max_model_len.
  const std::int64_t card_len = p.card.max_context > 0 ? p.card.max_context : kDefaultAgentxModelLen;
  const std::int64_t model_len = p.deployment.max_model_len > 0 ? p.deployment.max_model_len : card_len;
  p.workload = parse_scenario_workload(root.child("workload"), model_len);
  const auto& ws = p.workload.spec;
  resolve_concurrency_limits(p.deployment, ws.agentic ? ws.agentic->replay.lanes : ws.concurrency);
  if (const auto s = root.optional_child("slo")) p.slo = parse_slo_section(*s);
  p.horizon = root.time_or("horizon", Time::max());
  if (p.horizon <= Time::zero()) root.fail_key("horizon", "must be > 0");
  p.timeseries_interval = root.time_or("timeseries_interval", p.timeseries_interval);
  // A bin shorter than a few scheduler steps says nothing a finer one would not, and a run of hours
  // would need millions of them.
  if (p.timeseries_interval < Time::ms(10)) root.fail_key("timeseries_interval", "must be at least 10ms");
  // Passed through: `compare:` is expanded by scenario_document.hpp, `sweep:` by engramsim sweep.
  root.ignore("compare");
  root.ignore("sweep");
  root.finish();
  return p;
}

double slo_statistic_ms(const SloTarget& t, const Summary& s) {
  const LatencySummary& l = t.metric == SloMetric::ttft   ? s.ttft
                            : t.metric == SloMetric::tpot ? s.tpot
                            : t.metric == SloMetric::itl  ? s.itl
                                                          : s.e2el;
  switch (t.stat) {
    case SloStat::p50:
      return l.median;
    case SloStat::p90:
      return l.p90;
    case SloStat::p99:
      return l.p99;
    case SloStat::mean:
      return l.mean;
  }
  return l.mean;
}

void read_trace_through(const ScenarioParams& p) {
  if (p.workload.kind == WorkloadKind::agentx) {
    if (p.workload.trace_path.empty()) return;  // a generated corpus
    const auto sessions = p.workload.spec.agentic->sessions(p.seed);
    AgenticSession s;
    while (sessions->next(s)) {
    }
    return;
  }
  if (p.workload.kind != WorkloadKind::trace) return;
  const auto source = p.workload.spec.source(p.seed);
  Request r;
  for (std::uint64_t n = 0; n < p.workload.spec.max_requests && source->next(r); ++n) {
  }
}

bool slo_target_met(const SloTarget& t, const Summary& s) {
  const double v = slo_statistic_ms(t, s);
  return std::isfinite(v) && v <= t.limit.millis();
}

}  // namespace engramsim::sim
