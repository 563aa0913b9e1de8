#include "scenario/schema/deployment_schema.hpp"

#include <cstdio>
#include <filesystem>

#include "core/paths.hpp"
#include "hardware/hardware_loader.hpp"
#include "hardware/price_file.hpp"
#include "models/engine_loader.hpp"
#include "scenario/schema/data_path.hpp"
#include "scenario/schema/scheduler_schema.hpp"

namespace engramsim::scenario {
namespace {

bool names_a_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.substr(s.size() - 5) == ".yaml");
}

// ---- deployment.engram ----

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

void read_tier(const ConfigNode& e, EngramDraft& o) {
  const std::string tier = e.one_of("tier", {"hbm", "dram", "ssd", "none"});
  o.out.tier.reset();
  if (tier == "none") return;
  if (!o.card->engram)
    e.fail_key("tier", "the model card '" + o.card->name + "' has no Engram module (use tier: none)");
  o.out.tier = engram_tier_from_string(tier);
  o.out.fetch.tier = *o.out.tier;
  if (*o.out.tier == EngramTier::ssd && o.node->nvme.count == 0)
    e.fail_key("tier", "node '" + o.node->name + "' has no NVMe drives (nvme.count: 0); use tier hbm or dram");
}

void read_access(const ConfigNode& e, EngramDraft& o) {
  const ConfigNode a = e.child("access");
  const std::string model = a.one_of("model", {"uniform", "zipf", "text"});
  if (model == "zipf") o.out.fetch.access.zipf_s = a.number("exponent", 1e-6, 4.0);
  if (model == "text") o.out.in_run.access_model = AccessModel::text;
  a.finish();
}

void read_hbm_cache(const ConfigNode& e, EngramDraft& o) {
  std::string policy = to_string(o.out.in_run.hbm_policy);
  o.out.fetch.hbm_hot_cache = parse_cache_size(e, "hbm_cache", Bytes(0.0), policy, {"lfu", "lru", "static"});
  o.out.in_run.hbm_policy = *hot_row_policy_from(policy);  // one of the names allowed above
}

void read_dram_cache(const ConfigNode& e, EngramDraft& o) {
  std::string policy = to_string(o.out.in_run.dram_policy);
  o.out.fetch.dram_cache = parse_cache_size(e, "dram_cache", Bytes(0.0), policy, {"lru", "lfu"});
  o.out.in_run.dram_policy = *row_cache_policy_from(policy);
}

// The engine's SSD read path (models/engines/*.yaml engram_ssd_path), which a scenario may override.
void read_ssd_path(const ConfigNode& e, EngramDraft& o) {
  const SsdPath path = *kSsdPathNames.parse(e.one_of("ssd_path", kSsdPathNames.names()));
  if (path == SsdPath::page_cache && o.host->engram_ssd_path != SsdPath::page_cache)
    e.fail_key("ssd_path",
               "engine preset '" + o.host->engine + "' has no page_cache terms (engram_ssd_path: page_cache)");
  o.host->engram_ssd_path = path;
}

void add_placement_keys(FieldTable<EngramDraft>& t) {
  t.custom({"tier", "`hbm` \\| `dram` \\| `ssd` \\| `none`", "`dram` if the card has Engram, else `none`",
            "where the tables live; `none` removes the card's Engram module (the backbone alone, e.g. the Engram "
            "paper's baseline); a tier other than `none` on a card without Engram is an error"},
           read_tier);
  t.custom({"access", "`{model: uniform}` or `{model: zipf, exponent: s}`", "uniform",
            "row popularity within a sub-table, `0 < s <= 4`"},
           read_access);
  t.choice(
      "fetch", [](auto& o) -> auto& { return o.out.fetch.dram_path; }, kDramPathNames.choices(),
      "DRAM rows: the GPU reads pinned host memory (UVA), or CPU threads gather into pinned staging and one DMA "
      "copies it");
  t.boolean(
      "dedup", [](auto& o) -> auto& { return o.out.fetch.dedup; },
      "the engine fetches each distinct row once per step");
  t.custom({"hbm_cache", "size", "`0GiB`",
            "per replica, split over its GPUs: the most popular rows pinned in HBM in front of dram/ssd. It comes "
            "out of the KV pool; it must leave one `max_model_len` sequence"},
           read_hbm_cache);
  t.custom({"dram_cache", "size", "`0GiB`",
            "per replica: an LRU row cache in host DRAM in front of the ssd tier. Pinned tables plus the node's row "
            "caches must fit its host DRAM after the 10 % host reserve"},
           read_dram_cache);
}

void add_ssd_keys(FieldTable<EngramDraft>& t) {
  t.integer(
      "ssd_queue_depth", [](auto& o) -> auto& { return o.out.fetch.ssd_queue_depth; }, 1, 65536,
      "outstanding 4 KiB reads per drive");
  t.custom({"ssd_path", "`direct` \\| `page_cache`", "the engine preset's `engram_ssd_path`",
            "how the ssd tier is read (docs/cost-model.md §5); `page_cache` needs an engine with its terms (vllm), "
            "and rejects `dram_cache` and `in_run`"},
           read_ssd_path);
  t.number(
       "ssd_iops_per_drive", [](auto& o) -> auto& { return o.out.fetch.ssd_iops_per_drive; }, 0.0, 1e12,
       "4 KiB random-read IOPS per drive (a calibration profile's `ssd_random_read` sets it too)")
      .type_words("number >= 0")
      .default_words("0 = the node's datasheet value");
  t.time(
       "ssd_read_latency", [](auto& o) -> auto& { return o.out.fetch.ssd_read_latency; }, Time::zero(), Time::ms(1000),
       "QD1 4 KiB read latency")
      .default_words("0 = the node's value");
  t.bytes(
       "ssd_page", [](auto& o) -> auto& { return o.out.fetch.ssd_page; }, Bytes(512.0), Bytes(1 << 30),
       "size in [512B, 1GiB]", "must be at least 512 B and at most 1 GiB", "NVMe read unit")
      .default_words("`4KiB`");
}

void add_sharing_keys(FieldTable<EngramDraft>& t) {
  t.integer(
       "active_gpus", [](auto& o) -> auto& { return o.out.fetch.active_gpus; }, 0, 4096,
       "GPUs of one node fetching at once (they share PCIe switch uplinks, host DRAM bandwidth and drives); "
       "automatic = the GPUs the deployment occupies on one node, `min(gpu_count, replicas x tp)`")
      .default_words("0 = automatic");
  t.boolean(
      "prefill_prefetch", [](auto& o) -> auto& { return o.out.prefill_prefetch; },
      "rows of prompt chunks that continue a prompt are known a step ahead and may be fetched during the previous "
      "step");
  t.custom({"page_cache_limit", "size", "none",
            "a cap on the node's OS page cache (a cgroup or container memory limit, say) on the ssd tier's "
            "`page_cache` path: the cache holds min(this, what host RAM leaves after the reserve and the pinned "
            "pools); at least 4 KiB and at most the node's `host_dram_capacity`, else a located error; other tiers "
            "and the direct path read no shard files through it"},
           [](const ConfigNode& e, EngramDraft& o) { o.out.page_cache_limit = parse_page_cache_limit(e, *o.node); });
  t.boolean(
      "share_across_replicas", [](auto& o) -> auto& { return o.out.share_across_replicas; },
      "one pinned DRAM copy per node instead of one per replica (vLLM `dp_shared_memory`)");
  t.boolean(
      "in_run", [](auto& o) -> auto& { return o.out.in_run.enabled; },
      "fetches run as flows on the node fabric inside the event loop and the stall is measured there "
      "(docs/memory-tiers.md); needs tier `dram` or `ssd`");
  t.integer(
      "sample_rows_per_step", [](auto& o) -> auto& { return o.out.in_run.sample_rows_per_step; }, 1, 1 << 24,
      "in-run: Engram rows sampled per Engram layer per replica step");
}

// The page-cache read path sizes its cache from host RAM and models no in-run flows.
void check_ssd_path(const ConfigNode& e, const EngramDraft& o) {
  if (o.out.tier != EngramTier::ssd || o.host->engram_ssd_path != SsdPath::page_cache) return;
  if (o.out.fetch.dram_cache.value() > 0.0)
    e.fail_key("dram_cache", "engine '" + o.host->engine +
                                 "' reads SSD through the OS page cache, sized from host RAM; "
                                 "a DRAM row cache needs ssd_path: direct");
  if (o.out.in_run.enabled) e.fail_key("in_run", "the in-run tier models direct reads; set ssd_path: direct");
}

ScenarioEngram parse_engram(const ConfigNode& e, const ModelCard& card, const NodeSpec& node, HostOverhead& host) {
  EngramDraft draft{{}, &card, &node, &host};
  if (card.engram) draft.out.tier = EngramTier::dram;
  static const FieldTable<EngramDraft> schema = engram_schema();
  if (!e.is_map()) e.finish();  // "expected a map"
  schema.read(e, draft);
  check_engram_in_run(e, draft.out.in_run);
  check_ssd_path(e, draft);
  e.finish();
  return draft.out;
}

// ---- deployment.spec_decode ----

bool card_has_drafter(const ModelCard& card) {
  return card.spec_decode.kind != SpecDecodeKind::none && card.spec_decode.draft_tokens > 0;
}

ScenarioSpecDecode card_spec_decode(const ModelCard& card) {
  if (!card_has_drafter(card)) return {false, 1, 1.0};
  return {true, card.spec_decode.draft_tokens, card.spec_decode.acceptance_length};
}

// `s` is null when the section is absent: the card's drafter as it is.
ScenarioSpecDecode parse_spec_decode(const ConfigNode* s, const ModelCard& card) {
  SpecDecodeDraft draft{card_spec_decode(card), &card};
  if (s != nullptr) {
    static const FieldTable<SpecDecodeDraft> schema = spec_decode_schema();
    if (!s->is_map()) s->finish();  // "expected a map"
    schema.read(*s, draft);
    s->finish();
  }
  const ScenarioSpecDecode& out = draft.out;
  if (!out.enabled) return {false, 0, 1.0};
  if (s == nullptr) return out;
  if (out.acceptance_length > 1.0 + out.draft_tokens) {
    const bool given = s->has("acceptance_length");
    const std::string msg = "acceptance length " + std::to_string(out.acceptance_length) +
                            (given ? "" : " (the card's)") +
                            " exceeds 1 + draft_tokens = " + std::to_string(1 + out.draft_tokens);
    if (given) s->fail_key("acceptance_length", msg);
    s->fail_key("draft_tokens", msg + "; give acceptance_length as well");
  }
  return out;
}

// ---- deployment ----

std::string names_words(const std::vector<std::string>& names, const std::string& tail) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "`" : " \\| `") + n + "`";
  return out + tail;
}

void use_engine(ScenarioDeployment& out, std::string path) {
  out.engine_path = std::move(path);
  out.host = load_engine(out.engine_path);
  out.engine = out.host.engine;
}

void add_size_keys(FieldTable<DeploymentDraft>& t) {
  t.integer(
       "nodes", [](auto& o) -> auto& { return o.out.nodes; }, 1, 1 << 20,
       "every GPU of N nodes: `N x (gpu_count / tp)` replicas (a replica larger than a node spans whole nodes: `N "
       "x gpu_count / tp`, which must be whole)")
      .default_words("one of `nodes`/`replicas`");
  t.integer(
       "replicas", [](auto& o) -> auto& { return o.out.replicas; }, 1, 1 << 20, "explicit replica count")
      .default_words("one of `nodes`/`replicas`");
  t.integer(
      "tp", [](auto& o) -> auto& { return o.out.tp; }, 1, 4096, "GPUs per replica");
  t.integer(
      "ep", [](auto& o) -> auto& { return o.out.ep; }, 0, 4096,
      "expert-parallel groups, dividing `tp`; 0 = automatic (`tp` under data-parallel attention, else 1)");
  t.choice(
      "attention", [](auto& o) -> auto& { return o.out.attention; }, kAttentionParallelNames.choices(),
      "data-parallel attention for MoE models whose KV cannot be split by head (MLA latent, one KV head), tensor "
      "otherwise (docs/footprint.md)");
}

void add_expert_keys(FieldTable<DeploymentDraft>& t) {
  t.choice(
      "expert_placement", [](auto& o) -> auto& { return o.out.expert_balance.placement; }, placement_choices(),
      "how routed experts sit on the EP ranks: in index order without a balancer, DeepSeek's EPLB with "
      "`redundant_experts` replicas, or an even split; the busiest rank sets each MoE layer (docs/cost-model.md, "
      "expert-load imbalance)");
  t.integer(
      "redundant_experts", [](auto& o) -> auto& { return o.out.expert_balance.redundant_experts; }, 0, 1 << 16,
      "extra expert replicas under `eplb`; `(experts + redundant) / ep` slots per GPU must be whole; they take HBM");
  t.choice(
      "expert_routing", [](auto& o) -> auto& { return o.out.expert_balance.routing; }, routing_choices(),
      "how tokens pick their experts: at random as a served router does, or `balanced` as kernel benchmarks and "
      "profiles route (every expert the same rows: T tokens reach min(E, T k) experts, no busiest rank; "
      "docs/cost-model.md, expert-load imbalance)");
}

void add_engine_keys(FieldTable<DeploymentDraft>& t) {
  t.custom({"engine", "engine preset name (`engramsim list engines`) or path", "`vllm`",
            "host overhead per step: `models/engines/NAME.yaml`, or a file with the same keys beside the scenario "
            "(docs/cost-model.md, \"Host overhead\")"},
           [](const ConfigNode& d, DeploymentDraft& o) {
             use_engine(o.out, resolve_catalog_entry(d, "engine", "models/engines", "engine preset"));
           });
  t.custom({"max_model_len", "integer >= 0", "0 = the card's `max_context`",
            "the KV pool must hold one such sequence (vLLM's start-up check)"},
           [](const ConfigNode& d, DeploymentDraft& o) {
             o.out.max_model_len = d.integer("max_model_len", 0, o.in.card->max_context);
           });
  t.integer(
       "frontend_workers", [](auto& o) -> auto& { return o.out.frontend_workers; }, 0, 4096,
       "workers per replica that tokenise prompts at the engine's `frontend_per_prompt_token` before the "
       "scheduler sees them (vLLM: one tokenizer thread per API server, one API server per data-parallel "
       "rank); 0 = requests arrive as token ids (a decode pool behind its prefill pool, a harness that sends "
       "ids) (docs/cost-model.md, \"Front end\")")
      .default_words("one per data-parallel attention rank (1 under tensor-parallel attention)");
}

void add_section_keys(FieldTable<DeploymentDraft>& t, const sim::RouterRegistry& routers) {
  t.custom({"engram", "map", "its keys' own", "below"}, [](const ConfigNode& d, DeploymentDraft& o) {
    o.out.engram = parse_engram(d.child("engram"), *o.in.card, *o.in.node, o.out.host);
  });
  t.custom({"scheduler", "map", "its keys' own", "below"}, [](const ConfigNode& d, DeploymentDraft& o) {
    o.out.scheduler = parse_scheduler_section(d.child("scheduler"), *o.in.schedulers);
  });
  t.custom({"spec_decode", "map", "the card's", "below"}, [](const ConfigNode& d, DeploymentDraft& o) {
    const ConfigNode s = d.child("spec_decode");
    o.out.spec_decode = parse_spec_decode(&s, *o.in.card);
  });
  t.custom(
      {"router", names_words(routers.names(), " (the router registry)"), "`round_robin`",
       "docs/simulator.md; `sticky_session` keeps a session on its replica between turns (agentic replay over "
       "several replicas)"},
      [](const ConfigNode& d, DeploymentDraft& o) { o.out.router = o.in.routers->checked_name(d.child("router")); });
}

void add_deployment_keys(FieldTable<DeploymentDraft>& t, const sim::RouterRegistry& routers) {
  add_size_keys(t);
  add_expert_keys(t);
  add_engine_keys(t);
  add_section_keys(t, routers);
}

// A pool's own node, with the scenario's price file applied as to the scenario's node.
void read_pool_node(const ConfigNode& pool, DeploymentDraft& o) {
  o.own_node_path = resolve_catalog_entry(pool, "node", "hardware/nodes", "node preset");
  NodeSpec node = load_node(o.own_node_path);
  if (!o.in.prices_path.empty()) node = apply_price_file(load_price_file(o.in.prices_path), node, o.in.price_tier);
  o.own_node = std::make_shared<const NodeSpec>(std::move(node));
  o.in.node = o.own_node.get();
}

// Whole nodes: every replica inside one node, or a replica spanning whole nodes.
void check_whole_nodes(const ConfigNode& d, const ScenarioDeployment& out, const NodeSpec& node) {
  const int g = node.gpu_count;
  if (out.nodes == 0 || out.tp <= g) return;
  if (out.tp % g != 0)
    d.fail_key("tp", "a replica of " + std::to_string(out.tp) + " GPUs must span whole " + std::to_string(g) +
                         "-GPU nodes of " + node.name + " when the deployment is given in nodes");
  if ((out.nodes * g) % out.tp != 0)
    d.fail_key("nodes", std::to_string(out.nodes) + " nodes do not hold a whole number of TP" + std::to_string(out.tp) +
                            " replicas");
}

void check_expert_placement(const ConfigNode& d, const ScenarioDeployment& out, const ModelCard& card) {
  const ExpertBalance& b = out.expert_balance;
  if (b.redundant_experts > 0 && b.placement != ExpertPlacement::eplb)
    d.fail_key("redundant_experts", "redundant expert replicas need expert_placement: eplb");
  if (b.placement != ExpertPlacement::eplb) return;
  if (!card.moe) d.fail_key("expert_placement", "eplb places routed experts; " + card.name + " has none");
  FootprintOptions resolve;
  resolve.tp = out.tp;
  resolve.ep = out.ep;
  resolve.attention = out.attention;
  const std::string why = expert_slots_problem(card.moe->num_experts, resolved_ep(card, resolve), b);
  if (!why.empty())
    d.fail_key(d.has("redundant_experts") ? "redundant_experts" : "expert_placement",
               why + (out.ep > 0 ? "" : " (automatic)"));
}

// The sections a deployment always has, read from an empty map when absent.
void read_absent_sections(const ConfigNode& d, DeploymentDraft& o) {
  if (!d.has("engram"))
    o.out.engram = parse_engram(ConfigNode(YAML::Node(YAML::NodeType::Map), d.file(), d.path() + ".engram"), *o.in.card,
                                *o.in.node, o.out.host);
  if (!d.has("scheduler")) o.out.scheduler.policy.name = "vllm";
  if (!d.has("spec_decode")) o.out.spec_decode = parse_spec_decode(nullptr, *o.in.card);
}

}  // namespace

FieldTable<EngramDraft> engram_schema() {
  FieldTable<EngramDraft> t("deployment.engram");
  add_placement_keys(t);
  add_ssd_keys(t);
  add_sharing_keys(t);
  return t;
}

FieldTable<SpecDecodeDraft> spec_decode_schema() {
  FieldTable<SpecDecodeDraft> t("deployment.spec_decode");
  t.boolean(
       "enabled", [](auto& o) -> auto& { return o.out.enabled; }, "off removes the drafter (its weights leave HBM too)")
      .default_words("true when the card has a drafter")
      .check([](const SpecDecodeDraft& o) -> std::string {
        if (!o.out.enabled || card_has_drafter(*o.card)) return "";
        return "the model card '" + o.card->name + "' has no drafter (its spec_decode kind is none)";
      });
  t.integer(
       "draft_tokens", [](auto& o) -> auto& { return o.out.draft_tokens; }, 1, 64,
       "positions drafted per step (verify 1 + k)")
      .default_words("the card's");
  t.number(
       "acceptance_length", [](auto& o) -> auto& { return o.out.acceptance_length; }, 1.0, 65.0,
       "mean tokens emitted per verify step; changing `draft_tokens` below the card's acceptance length requires it")
      .type_words("number in [1, 1 + draft_tokens]")
      .default_words("the card's");
  return t;
}

FieldTable<DeploymentDraft> deployment_schema(const sim::RouterRegistry& routers) {
  FieldTable<DeploymentDraft> t("deployment");
  t.custom({"kind", names_words(kDeploymentKindNames.names(), ""), "`colocated`",
            "`colocated`: one pool of replicas serves whole requests (the keys below); `disaggregated`: a "
            "prefill pool and a decode pool, each with these keys, and the KV transfer between them (below, "
            "docs/disaggregation.md)"},
           [](const ConfigNode& d, DeploymentDraft&) { deployment_kind(d); });
  add_deployment_keys(t, routers);
  return t;
}

FieldTable<DeploymentDraft> pool_schema(const sim::RouterRegistry& routers) {
  FieldTable<DeploymentDraft> t("deployment pool");
  t.custom({"node", "node name or path", "the scenario's `node`",
            "the pool's node preset (`hardware/nodes/NAME.yaml`); its GPU must hold the KV cache in the other "
            "pool's format, and the KV leaves or enters it over its NICs (`scale_out_bandwidth`) unless both pools "
            "fit one NVLink domain spanning nodes"},
           read_pool_node);
  add_deployment_keys(t, routers);
  return t;
}

bool is_deployment_key(const std::string& key, const sim::RouterRegistry& routers) {
  const FieldTable<DeploymentDraft> table = pool_schema(routers);
  for (const auto& f : table.fields())
    if (f.doc.key == key) return key != "node";
  return false;
}

namespace {

// The deployment keys of `d` read by `table` into `draft`, and the rules that join them.
ScenarioDeployment read_deployment(const ConfigNode& d, DeploymentDraft& draft,
                                   const FieldTable<DeploymentDraft>& table) {
  if (!d.is_map()) d.finish();  // "expected a map"
  if (d.has("nodes") == d.has("replicas")) d.fail("give exactly one of nodes (whole nodes) or replicas");
  if (!d.has("engine")) use_engine(draft.out, resolve_catalog_path("models/engines", draft.out.engine));
  table.read(d, draft);
  read_absent_sections(d, draft);
  const ScenarioDeployment& out = draft.out;
  if (out.ep > 0 && out.tp % out.ep != 0)
    d.fail_key("ep", "must divide tp (" + std::to_string(out.tp) + "); 0 chooses automatically");
  check_whole_nodes(d, out, *draft.in.node);
  check_expert_placement(d, out, *draft.in.card);
  d.finish();
  return draft.out;
}

}  // namespace

DeploymentKind deployment_kind(const ConfigNode& d) {
  if (!d.is_map()) d.finish();  // "expected a map"
  if (!d.has("kind")) return DeploymentKind::colocated;
  return *kDeploymentKindNames.parse(d.one_of("kind", kDeploymentKindNames.names()));
}

ScenarioDeployment parse_deployment(const ConfigNode& d, const DeploymentInputs& in) {
  if (deployment_kind(d) != DeploymentKind::colocated)
    d.fail_key("kind", "takes one colocated deployment here (a disaggregated one is read from a scenario file)");
  DeploymentDraft draft{{}, in, nullptr, {}};
  return read_deployment(d, draft, deployment_schema(*in.routers));
}

ScenarioPool parse_pool(const ConfigNode& pool, const DeploymentInputs& in) {
  DeploymentDraft draft{{}, in, nullptr, {}};
  ScenarioPool out;
  out.deployment = read_deployment(pool, draft, pool_schema(*in.routers));
  out.node = draft.own_node ? *draft.own_node : *in.node;
  out.node_path = draft.own_node_path;
  const auto& tier = out.deployment.engram.tier;
  if (out.deployment.engram.in_run.enabled && (!tier || *tier == EngramTier::hbm))
    pool.child("engram").fail_key("in_run",
                                  "the in-run tier moves rows over the host links: it needs tier dram or ssd");
  return out;
}

std::string resolve_catalog_entry(const ConfigNode& map, const std::string& key, const std::string& folder,
                                  const std::string& what) {
  const ConfigNode v = map.child(key);
  const std::string text = v.as_str();
  if (text.empty()) v.fail("expected a " + what + " name or path");
  const std::string path = names_a_path(text) ? resolve_data_path(map, text) : resolve_catalog_path(folder, text);
  std::error_code ec;  // a name the file system refuses (one too long, say) is a missing entry too
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::string known;
    for (const auto& e : list_catalog(folder)) known += (known.empty() ? "" : ", ") + e.name;
    v.fail("no " + what + " '" + text + "' (" + path + " does not exist; known: " + known + ")");
  }
  return path;
}

}  // namespace engramsim::scenario
