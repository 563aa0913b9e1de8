#include "scenario/build/scenario_build.hpp"

#include "models/engram_host_path.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/cost_metrics.hpp"
#include "core/json_text.hpp"
#include "core/number_text.hpp"
#include "models/kv_size.hpp"
#include "scenario/schema/deployment_schema.hpp"
#include "scenario/schema/disaggregation_schema.hpp"
#include "scenario/schema/scheduler_schema.hpp"
#include "sim/memory/node_fabric_params.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"

namespace engramsim::scenario {
namespace {

double json_number(double v) { return std::isfinite(v) ? v : 0.0; }

}  // namespace

std::string BuiltScenario::engram_label() const {
  return params.deployment.engram.tier ? to_string(*params.deployment.engram.tier) : "none";
}

std::string BuiltScenario::deployment_line() const {
  const ParallelLayout& l = footprint.layout;
  std::string s = std::to_string(replicas) + " x TP" + std::to_string(l.tp) + " (EP" + std::to_string(l.ep) + ", " +
                  (l.dp_attention ? "data" : "tensor") + "-parallel attention) on " + params.node.name + ", " +
                  (params.deployment.engram.tier ? "Engram in " + engram_label() : std::string("no Engram")) + ", " +
                  with_commas(kv_blocks_per_replica) + " KV blocks x " +
                  std::to_string(params.deployment.scheduler.block_size) + " tokens per replica";
  return s;
}

std::vector<std::string> BuiltScenario::deployment_lines() const {
  if (!prefill_pool || !run.disaggregation) return {deployment_line()};
  const sim::KvTransferParams& t = run.disaggregation->transfer;
  const auto ranks = [](const sim::PoolPlacement& p) {
    return std::to_string(p.kv_ranks) + (p.kv_ranks == 1 ? " rank" : " ranks") +
           (p.layout == sim::KvLayout::sharded ? " (sharded)" : " (replicated)");
  };
  const auto nic = [](const sim::PoolPlacement& p) { return fixed_digits(p.node.nic_bandwidth.value() * 1e-9, 1); };
  const ScenarioKvTransfer& k = params.disaggregation->kv_transfer;
  const sim::ClusterPlacement c = sim::place_pools(
      t.prefill, std::vector<int>(static_cast<std::size_t>(prefill_pool->replicas), prefill_pool->gpus_per_replica),
      t.decode, std::vector<int>(static_cast<std::size_t>(replicas), gpus_per_replica));
  const bool one_domain =
      std::all_of(c.domains.begin(), c.domains.end(), [&](int d) { return d == c.domains.front(); });
  const std::string nodes =
      with_commas(static_cast<std::int64_t>(c.nodes.size())) + (c.nodes.size() == 1 ? " node" : " nodes");
  const std::string path =
      one_domain ? "over NVLink (" + nodes + ", one scale-up domain)"
                 : "over NICs " + nic(t.prefill) + " -> " + nic(t.decode) + " GB/s per GPU (" + nodes + ")";
  const std::string transfer =
      "KV transfer: " + with_commas(static_cast<std::int64_t>(t.bytes_per_token.value())) + " B per token from " +
      ranks(t.prefill) + " to " + ranks(t.decode) + " " + path + ", setup " + fixed_digits(t.setup.millis(), 3) +
      " ms, " + t.backend + " backend, local prefill " + "up to " + with_commas(k.local_prefill_threshold) + " tokens";
  return {"prefill: " + prefill_pool->deployment_line(), "decode: " + deployment_line(), transfer};
}

int BuiltScenario::run_gpus() const {
  const int own = replicas * gpus_per_replica;
  return prefill_pool ? own + prefill_pool->run_gpus() : own;
}

std::string BuiltScenario::host_memory_line() const {
  const HostMemory& h = host_memory;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "host memory per node %.1f GiB: reserve %.1f, pinned Engram tables %.1f, DRAM row caches %.1f, "
                "KV offload %.1f, Engram pages in the page cache %.1f (it may hold %.1f), rest %.1f GiB",
                h.capacity.gib(), h.reserve.gib(), h.pinned_engram.gib(), h.row_caches.gib(), h.kv_offload_pools.gib(),
                h.page_cache_used.gib(), h.page_cache_capacity.gib(), h.rest().gib());
  return buf;
}

namespace {

void effective_card(BuiltScenario& b, const ScenarioParams& params) {
  b.card = deployed_card(params.card, params.deployment);
}

// The HBM footprint of one replica; a deployment that does not fit is infeasible.
void size_footprint(BuiltScenario& b, const ScenarioParams& params) {
  const ScenarioDeployment& d = params.deployment;
  const NodeSpec& node = params.node;
  FootprintOptions& fo = b.footprint_options;
  fo = footprint_options(d);
  try {
    b.footprint = compute_footprint(b.card, node, fo);
  } catch (const std::invalid_argument& e) {
    throw ConfigError({params.file, 0, 0}, "deployment", e.what());
  }
  if (!b.footprint.feasible) {
    const std::string tier = d.engram.tier ? to_string(*d.engram.tier) : "none";
    throw InfeasibleScenario(b.card.name + " TP" + std::to_string(d.tp) + " on " + node.name + " (Engram " + tier +
                             "): " + b.footprint.infeasible_reason);
  }
}

// Replicas and the GPUs they occupy on one node.
void place_replicas(BuiltScenario& b, const ScenarioParams& params) {
  const ScenarioDeployment& d = params.deployment;
  const NodeSpec& node = params.node;
  b.gpus_per_replica = d.tp;
  if (d.replicas > 0) {
    b.replicas = d.replicas;
  } else if (d.tp <= node.gpu_count) {
    b.replicas = d.nodes * (node.gpu_count / d.tp);
  } else {
    b.replicas = d.nodes * node.gpu_count / d.tp;
  }
  if (b.replicas < 1) throw InfeasibleScenario("no whole TP" + std::to_string(d.tp) + " replica on the GPUs given");
  b.active_gpus_per_node = std::min(node.gpu_count, b.replicas * d.tp);
  b.scheduler_ranks = b.footprint.dp_attention ? d.tp : 1;
}

// Engram caches the footprint does not know about. The HBM hot-row set (in front of dram/ssd) is
// split over the replica's GPUs and comes out of the KV pool; the DRAM row cache (in front of ssd)
// is host memory per replica, beside any pinned tables.
// Returns the KV tokens one replica holds once the hot-row set is taken out.
std::int64_t kv_tokens_beside_hbm_cache(BuiltScenario& b, const ScenarioParams& params) {
  const ScenarioDeployment& d = params.deployment;
  const NodeSpec& node = params.node;
  const GpuFootprint& g = b.footprint.per_gpu;
  std::int64_t replica_kv_tokens = b.footprint.replica_kv_tokens;
  const bool off_gpu = d.engram.tier && *d.engram.tier != EngramTier::hbm;
  if (off_gpu && d.engram.fetch.hbm_hot_cache.value() > 0.0) {
    b.hbm_cache_per_gpu = d.engram.fetch.hbm_hot_cache / static_cast<double>(d.tp);
    const double block_bytes = g.kv_bytes_per_token.value() * d.scheduler.block_size;
    const double room = (g.kv_pool - g.kv_window_reserve - b.hbm_cache_per_gpu).value();
    const std::int64_t tokens = room > 0.0 && block_bytes > 0.0
                                    ? static_cast<std::int64_t>(std::floor(room / block_bytes)) * d.scheduler.block_size
                                    : 0;
    if (tokens < b.footprint.max_model_len) {
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "the HBM hot-row cache (%.2f GiB per GPU) leaves room for %lld KV tokens per GPU, "
                    "short of one max_model_len sequence (%lld tokens)",
                    b.hbm_cache_per_gpu.gib(), static_cast<long long>(tokens),
                    static_cast<long long>(b.footprint.max_model_len));
      throw InfeasibleScenario(b.card.name + " TP" + std::to_string(d.tp) + " on " + node.name + ": " + buf);
    }
    replica_kv_tokens = b.footprint.dp_attention ? tokens * d.tp : tokens;
  }
  return replica_kv_tokens;
}

// Host pools beside the pinned tables: the DRAM row caches (in front of ssd) and the KV-offload
// pools; more than the node has is infeasible. Returns the KV-offload bytes per node.
Bytes size_host_pools(BuiltScenario& b, const ScenarioParams& params) {
  const ScenarioDeployment& d = params.deployment;
  const NodeSpec& node = params.node;
  const GpuFootprint& g = b.footprint.per_gpu;
  const NodeFootprint& nf = b.footprint.per_node;
  if (d.engram.tier == EngramTier::ssd)
    b.dram_cache_per_node = d.engram.fetch.dram_cache * static_cast<double>(nf.replicas);
  // KV offload: a block holds block_size tokens on every GPU of a TP-attention replica (each keeps
  // its heads' share, or a copy of a latent) and on one GPU under data-parallel attention.
  b.kv_block_bytes_per_replica =
      g.kv_bytes_per_token * static_cast<double>(d.scheduler.block_size) * (b.footprint.dp_attention ? 1.0 : d.tp);
  // Pools of the replicas actually placed on a node (a replica spanning nodes counts once per node).
  const Bytes kv_offload_per_node =
      d.scheduler.kv_offloading_size * static_cast<double>(std::min(nf.replicas, b.replicas));
  if (d.scheduler.kv_offloading_size.value() > 0.0) {
    const double blocks = std::floor(d.scheduler.kv_offloading_size / b.kv_block_bytes_per_replica);
    if (!(blocks >= 1.0))
      throw InfeasibleScenario("the KV-offload pool (kv_offloading_size) holds no KV block of " +
                               std::to_string(b.kv_block_bytes_per_replica.value()) + " bytes");
    b.kv_offload_blocks_per_replica = static_cast<std::int64_t>(std::min(blocks, 4.0e9));
  }
  if ((nf.host_dram_engram + b.dram_cache_per_node + kv_offload_per_node).value() > nf.host_dram_available.value()) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "host DRAM over budget: pinned tables %.1f GiB + DRAM row caches %.1f GiB + "
                  "KV-offload pools %.1f GiB > %.1f GiB available per node",
                  nf.host_dram_engram.gib(), b.dram_cache_per_node.gib(), kv_offload_per_node.gib(),
                  nf.host_dram_available.gib());
    throw InfeasibleScenario(b.card.name + " TP" + std::to_string(d.tp) + " on " + node.name + ": " + buf);
  }
  return kv_offload_per_node;
}

// Host memory by use; the page cache holds what the pinned pools and the reserve leave. The
// KV-offload pools are the replicas' kv_offloading_size (the in-run tier's preemption traffic has
// no sized pool).
void account_host_memory(BuiltScenario& b, const ScenarioDeployment& d, Bytes kv_offload_per_node) {
  const NodeFootprint& nf = b.footprint.per_node;
  auto& h = b.host_memory;
  h.capacity = nf.host_dram_capacity;
  h.reserve = nf.host_dram_capacity - nf.host_dram_available;
  h.pinned_engram = nf.host_dram_engram;
  h.row_caches = b.dram_cache_per_node;
  h.kv_offload_pools = kv_offload_per_node;
  h.page_cache_used = engram_page_cache(d, nf, h.row_caches, h.kv_offload_pools, &h.page_cache_capacity);
}

// The step model, with the calibration profile applied.
void build_step_model(BuiltScenario& b, const ScenarioParams& params) {
  const ScenarioDeployment& d = params.deployment;
  const NodeSpec& node = params.node;
  RooflineOptions ro = step_model_options(d, b.footprint.layout);
  if (ro.engram.active_gpus == 0) ro.engram.active_gpus = b.active_gpus_per_node;
  // Replicas on a node map the same shard files: one page cache serves one copy of the tables.
  ro.engram.page_cache = b.host_memory.page_cache_used;
  if (params.calibration) {
    try {
      b.calibration_applied = apply_calibration_profile(*params.calibration, node, ro);
    } catch (const std::invalid_argument& e) {
      throw ConfigError({params.calibration_path, 0, 0}, "calibration", e.what());
    }
    b.calibration_sections = describe_sections(*params.calibration);
  }
  b.step_model = std::make_shared<const RooflineStepModel>(b.card, node, ro);
  b.step_memo = std::make_shared<const MemoStepModel>(b.step_model);
}

// Price per GPU-hour: the tier's rate and the Engram capacity (host DRAM, SSD) amortised over the
// node's GPUs in use.
void price_gpus(BuiltScenario& b, const ScenarioParams& params) {
  const ScenarioDeployment& d = params.deployment;
  const NodeSpec& node = params.node;
  const NodeFootprint& nf = b.footprint.per_node;
  b.price.gpu_hour = gpu_hour_price(node.gpu_hour, params.price_tier);
  const double capital_usd = (nf.host_dram_engram + b.dram_cache_per_node).value() * node.dram_price.value() +
                             nf.ssd_engram.value() * node.ssd_price.value();
  const double life_h = node.amortization_life.seconds() / 3600.0;
  const int node_gpus = std::min(node.gpu_count, nf.replicas * d.tp);
  b.price.engram_capacity = MoneyRate(life_h > 0 && node_gpus > 0 ? capital_usd / life_h / node_gpus : 0.0);
  b.price.paid_per_used = paid_gpus_per_used_gpu(b.gpus_per_replica, node.gpu_count);
}

// Front-end workers per replica: as stated, else one per data-parallel attention rank (vLLM defaults
// its API servers to the data-parallel size, one tokenizer thread each).
int frontend_workers(const ScenarioDeployment& d, std::int64_t scheduler_ranks) {
  return d.frontend_workers >= 0 ? d.frontend_workers : static_cast<int>(scheduler_ranks);
}

// The run configuration: one replica entry each (named `replica_name` and its index), the scheduler
// limits over the scheduler ranks, the workload, SLO, price and seed.
void configure_run(BuiltScenario& b, const ScenarioParams& params, const std::string& replica_name) {
  const ScenarioDeployment& d = params.deployment;
  const NodeSpec& node = params.node;
  sim::RunConfig& rc = b.run;
  const auto ranks = b.scheduler_ranks;
  const sim::DecodePadding padding = sim::make_decode_padding(
      d.scheduler.cuda_graph_batch_sizes, d.scheduler.policy.max_num_seqs, d.scheduler.policy.max_num_batched_tokens,
      d.spec_decode.enabled ? d.spec_decode.draft_tokens : 0, ranks);
  for (int i = 0; i < b.replicas; ++i) {
    sim::ReplicaParams r;
    r.name = replica_name + std::to_string(i);
    r.step_model = b.step_memo.get();
    r.kv = sim::KvPoolParams{b.kv_blocks_per_replica, d.scheduler.block_size, d.scheduler.enable_prefix_caching,
                             b.kv_offload_blocks_per_replica};
    r.offload_link = sim::KvOffloadLink{b.kv_block_bytes_per_replica / static_cast<double>(d.tp),
                                        node.gpu.host_link_bandwidth, node.host_link_latency};
    r.gpus = d.tp;
    r.decode_padding = padding;
    r.max_model_len = b.footprint.max_model_len;
    r.frontend = sim::FrontendParams{d.host.frontend_per_prompt_token, frontend_workers(d, ranks)};
    r.spec = sim::SpecDecodeParams{d.spec_decode.enabled ? d.spec_decode.draft_tokens : 0,
                                   d.spec_decode.enabled ? d.spec_decode.acceptance_length : 1.0};
    rc.replicas.push_back(r);
  }
  rc.scheduler = d.scheduler.policy;
  rc.scheduler.max_num_seqs = static_cast<std::int32_t>(
      std::min<std::int64_t>(INT32_MAX, static_cast<std::int64_t>(rc.scheduler.max_num_seqs) * ranks));
  // Under data-parallel attention a prompt chunk runs on one rank, within that rank's budget.
  if (ranks > 1) {
    const std::int32_t per_rank = rc.scheduler.max_num_batched_tokens;
    std::int32_t& cap = rc.scheduler.long_prefill_token_threshold;
    cap = cap > 0 ? std::min(cap, per_rank) : per_rank;
  }
  rc.scheduler.max_num_batched_tokens = static_cast<std::int32_t>(
      std::min<std::int64_t>(INT32_MAX, static_cast<std::int64_t>(rc.scheduler.max_num_batched_tokens) * ranks));
  rc.router = d.router;
  rc.workload = params.workload.spec;
  rc.slo = params.slo.per_request;
  rc.price_per_gpu_hour = b.price.per_gpu_used();
  rc.power_kw_per_gpu = node.gpu.power_kw * b.price.paid_per_used;
  rc.seed = params.seed;
  rc.horizon = params.horizon;
  rc.timeseries_interval = params.timeseries_interval;
}

}  // namespace

ModelCard deployed_card(const ModelCard& card, const ScenarioDeployment& d) {
  ModelCard out = card;
  if (!d.engram.tier) out.engram.reset();
  if (!d.spec_decode.enabled) {
    out.spec_decode = SpecDecodeSpec{};
  } else {
    out.spec_decode.draft_tokens = d.spec_decode.draft_tokens;
    out.spec_decode.acceptance_length = d.spec_decode.acceptance_length;
  }
  return out;
}

namespace {

// The in-run tier of a built scenario: table shape and hashing from the card, caches and access
// from the scenario, transfer efficiencies from the step model's (calibrated) options, the node's
// fabric from its preset (calibrated NVMe IOPS and latency applied), KV bytes from the footprint.
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
  p.swap_preempted_kv = ir.swap_preempted_kv;
  p.kv_bytes_per_token = b.footprint.per_gpu.kv_bytes_per_token;
  p.seed = sp.seed;
  return p;
}

// The largest batch the engine captures as a CUDA graph, in tokens: its capture-size limit, or the
// largest listed graph batch (sequences) times the positions each verifies. 0: none stated.
std::int64_t capture_tokens(const ScenarioDeployment& d) {
  const ScenarioScheduler& s = d.scheduler;
  if (s.max_cudagraph_capture_size > 0) return s.max_cudagraph_capture_size;
  if (s.cuda_graph_batch_sizes.empty()) return 0;
  const std::int64_t positions = 1 + (d.spec_decode.enabled ? d.spec_decode.draft_tokens : 0);
  return *std::max_element(s.cuda_graph_batch_sizes.begin(), s.cuda_graph_batch_sizes.end()) * positions;
}

}  // namespace

FootprintOptions footprint_options(const ScenarioDeployment& d) {
  FootprintOptions fo;
  fo.tp = d.tp;
  fo.ep = d.ep;
  fo.attention = d.attention;
  fo.expert_balance = d.expert_balance;
  fo.engram_tier = d.engram.tier.value_or(EngramTier::dram);  // priced only when the card keeps its module
  fo.max_num_batched_tokens = step_token_budget(d.scheduler.policy);
  fo.max_num_seqs = d.scheduler.policy.max_num_seqs;
  fo.max_model_len = d.max_model_len;
  fo.gpu_memory_utilization = d.scheduler.gpu_memory_utilization;
  fo.kv_free_fraction = d.scheduler.kv_cache_free_gpu_mem_fraction;
  fo.block_size = d.scheduler.block_size;
  fo.share_engram_across_replicas = d.engram.share_across_replicas;
  fo.engine_memory = d.host.memory;
  fo.cuda_graph_capture_tokens = capture_tokens(d);
  return fo;
}

RooflineOptions step_model_options(const ScenarioDeployment& d, const ParallelLayout& layout) {
  RooflineOptions ro;
  ro.layout = layout;
  ro.engram = d.engram.fetch;
  ro.engram.tier = d.engram.tier.value_or(EngramTier::dram);
  ro.host = d.host;
  ro.prefill_prefetch = d.engram.prefill_prefetch;
  return ro;
}

namespace {

// One deployment of `params` (a colocated one, or one pool of a disaggregated one, which it reads
// as params.deployment on params.node).
BuiltScenario build_deployment(ScenarioParams params, const std::string& replica_name) {
  BuiltScenario b;
  effective_card(b, params);
  size_footprint(b, params);
  place_replicas(b, params);
  const std::int64_t replica_kv_tokens = kv_tokens_beside_hbm_cache(b, params);
  const Bytes kv_offload_per_node = size_host_pools(b, params);
  account_host_memory(b, params.deployment, kv_offload_per_node);
  b.kv_blocks_per_replica = replica_kv_tokens / params.deployment.scheduler.block_size;
  if (b.kv_blocks_per_replica < 1) throw InfeasibleScenario("the KV pool holds no block");
  build_step_model(b, params);
  price_gpus(b, params);
  configure_run(b, params, replica_name);
  b.params = std::move(params);
  if (b.params.deployment.engram.in_run.enabled) b.run.engram_tier = engram_tier_params(b);
  return b;
}

// ---- kind disaggregated ----

// A pool built as a deployment; what does not fit names the pool, and so does an error of the
// deployment's keys found only here.
BuiltScenario build_pool(ScenarioParams params, const std::string& pool) {
  try {
    return build_deployment(std::move(params), pool);
  } catch (const InfeasibleScenario& e) {
    throw InfeasibleScenario(pool + " pool: " + e.what());
  } catch (const ConfigError& e) {
    if (e.field() != "deployment") throw;
    throw ConfigError(e.where(), "deployment." + pool, e.message());
  }
}

// The scenario's parameters with the prefill pool in place of the deployment.
ScenarioParams prefill_params(const ScenarioParams& s) {
  ScenarioParams p = s;
  const ScenarioPool& pool = s.disaggregation->prefill;
  p.deployment = pool.deployment;
  p.node = pool.node;
  p.node_path = pool.node_path;
  p.disaggregation.reset();
  return p;
}

// Where one pool's replicas hold a request's KV, and the node fabric it leaves or enters by. Under
// data-parallel attention a request lives on one rank; under tensor parallelism every rank holds
// either its share of the KV heads (sharded) or the whole latent or KV head (replicated). Nodes of
// one NVLink domain (the preset's scale_up_domain_gpus) reach each other over NVLink.
sim::PoolPlacement pool_placement(const BuiltScenario& pool) {
  const NodeSpec& node = pool.params.node;
  sim::PoolPlacement p;
  p.node_name = node.name;
  p.node = node_fabric_params(node);
  p.domain_gpus = node.scale_up_domain_gpus;
  const int tp = pool.gpus_per_replica;
  const KvSize kv = kv_size_per_gpu(pool.card, tp, pool.footprint.dp_attention, node.gpu.sm_family);
  const bool one_rank = pool.footprint.dp_attention || tp == 1;
  p.kv_ranks = one_rank ? 1 : tp;
  p.layout = !one_rank && kv.shard_fraction < 1.0 ? sim::KvLayout::sharded : sim::KvLayout::replicated;
  return p;
}

// One token's whole KV (every layer and KV head): a rank's share under sharding is this over the
// ranks, a replicated rank holds all of it. The parser checked that both pools' GPUs agree.
Bytes kv_bytes_per_token_whole(const BuiltScenario& pool) {
  const KvSize kv =
      kv_size_per_gpu(pool.card, pool.gpus_per_replica, pool.footprint.dp_attention, pool.params.node.gpu.sm_family);
  return kv.per_token / kv.shard_fraction;
}

sim::DisaggregationParams disaggregation_params(const BuiltScenario& prefill, const BuiltScenario& decode) {
  const ScenarioDisaggregation& s = *decode.params.disaggregation;
  sim::DisaggregationParams out;
  out.prefill_replicas = prefill.run.replicas;
  out.prefill_scheduler = prefill.run.scheduler;
  out.prefill_router = prefill.run.router;
  out.local_prefill_threshold = s.kv_transfer.local_prefill_threshold;
  sim::KvTransferParams& t = out.transfer;
  t.bytes_per_token = kv_bytes_per_token_whole(decode);
  t.prefill = pool_placement(prefill);
  t.decode = pool_placement(decode);
  t.setup = s.kv_transfer.setup_latency;
  t.backend = s.kv_transfer.backend;
  t.send = prefill.params.deployment.host.kv_send;  // the sending engine's way
  out.prefill_engram_tier = prefill.run.engram_tier;
  return out;
}

// The run's one price per GPU-hour and power per GPU: each pool's, weighted by its GPUs, so that
// the run's GPUs at this price cost what both pools cost.
void blend_price(BuiltScenario& decode) {
  const BuiltScenario& prefill = *decode.prefill_pool;
  const double p = static_cast<double>(prefill.replicas) * prefill.gpus_per_replica;
  const double d = static_cast<double>(decode.replicas) * decode.gpus_per_replica;
  sim::RunConfig& rc = decode.run;
  rc.price_per_gpu_hour = (prefill.price.per_gpu_used() * p + decode.price.per_gpu_used() * d) / (p + d);
  rc.power_kw_per_gpu = (prefill.run.power_kw_per_gpu * p + decode.run.power_kw_per_gpu * d) / (p + d);
}

BuiltScenario build_disaggregated(ScenarioParams params) {
  auto prefill = std::make_unique<BuiltScenario>(build_pool(prefill_params(params), "prefill"));
  BuiltScenario b = build_pool(std::move(params), "decode");
  b.prefill_pool = std::move(prefill);
  b.run.disaggregation = disaggregation_params(*b.prefill_pool, b);
  blend_price(b);
  return b;
}

}  // namespace

BuiltScenario build_scenario(ScenarioParams params) {
  if (params.disaggregation) return build_disaggregated(std::move(params));
  return build_deployment(std::move(params), "replica");
}

void release_step_model(BuiltScenario& b) {
  for (sim::ReplicaParams& r : b.run.replicas) r.step_model = nullptr;
  b.step_memo.reset();
  b.step_model.reset();
  if (!b.prefill_pool) return;
  release_step_model(*b.prefill_pool);
  for (sim::ReplicaParams& r : b.run.disaggregation->prefill_replicas) r.step_model = nullptr;
}

void restore_step_model(BuiltScenario& b) {
  if (b.prefill_pool) {
    restore_step_model(*b.prefill_pool);
    for (sim::ReplicaParams& r : b.run.disaggregation->prefill_replicas) r.step_model = b.prefill_pool->step_memo.get();
  }
  if (b.step_memo) return;
  build_step_model(b, b.params);
  for (sim::ReplicaParams& r : b.run.replicas) r.step_model = b.step_memo.get();
}

namespace {
using nlohmann::json;

json calibration_json(const BuiltScenario& b) {
  const ScenarioParams& p = b.params;
  if (!p.calibration) return nullptr;
  json sections = json::array();
  for (const auto& s : b.calibration_sections)
    sections.push_back({{"name", s.name}, {"state", to_string(s.state)}, {"detail", s.detail}});
  return {{"path", p.calibration_path},
          {"profile", p.calibration->name},
          {"applied", b.calibration_applied.applied},
          {"kept", b.calibration_applied.kept},
          {"sections", sections}};
}

json slo_json(const ScenarioParams& p) {
  json slo = json::object();
  for (const auto& t : p.slo.targets) slo[t.key + "_ms"] = t.limit.millis();
  if (p.slo.min_interactivity > 0) slo["min_interactivity"] = p.slo.min_interactivity;
  return slo;
}

// The section as the schema writes it (the built-in policy names only describe the key; writing
// checks none), and how many schedulers a replica runs.
json scheduler_json(const BuiltScenario& b) {
  sim::SchedulerRegistry registry;
  register_builtin_schedulers(registry);
  json out = scheduler_schema(registry).write(b.params.deployment.scheduler);
  out["schedulers_per_replica"] = b.scheduler_ranks;
  return out;
}

// HBM per GPU, Engram capacity beside it, and host memory per node.
void add_memory_json(const BuiltScenario& b, json& out) {
  const GpuFootprint& g = b.footprint.per_gpu;
  out["hbm_per_gpu_gib"] = {{"usable", g.hbm_capacity.gib()},    {"budget", g.budget.gib()},
                            {"weights", g.weights.gib()},        {"engram", g.engram.gib()},
                            {"activations", g.activation.gib()}, {"reserve", g.reserved.gib()},
                            {"kv_pool", g.kv_pool.gib()}};
  out["host_dram_engram_per_node_gib"] = b.footprint.per_node.host_dram_engram.gib();
  out["hbm_hot_cache_per_gpu_gib"] = b.hbm_cache_per_gpu.gib();
  out["dram_row_cache_per_node_gib"] = b.dram_cache_per_node.gib();
  out["ssd_engram_per_node_gib"] = b.footprint.per_node.ssd_engram.gib();
  const auto& h = b.host_memory;
  out["host_memory_per_node_gib"] = {{"capacity", h.capacity.gib()},
                                     {"reserve", h.reserve.gib()},
                                     {"pinned_engram", h.pinned_engram.gib()},
                                     {"dram_row_caches", h.row_caches.gib()},
                                     {"kv_offload", h.kv_offload_pools.gib()},
                                     {"page_cache_capacity", h.page_cache_capacity.gib()},
                                     {"page_cache_used", h.page_cache_used.gib()},
                                     {"rest", h.rest().gib()}};
}

// The agentic replay's settings (scenario-wide).
void add_agentic_json(const ScenarioParams& p, json& out) {
  if (!p.workload.spec.agentic) return;
  const sim::AgenticReplayParams& a = p.workload.spec.agentic->replay;
  out["agentic"] = {{"corpus", p.workload.trace_path.empty() ? json(nullptr) : json(p.workload.trace_path)},
                    {"concurrency", a.lanes},
                    {"duration_s", a.duration.seconds()},
                    {"warmup_requests", a.warmup_requests},
                    {"grace_s", a.grace.seconds()},
                    {"tree_idle_cap_s", a.tree_idle_cap.seconds()},
                    {"system_idle_cap_s", a.system_idle_cap.seconds()},
                    {"start_ratio", {a.start_ratio_min, a.start_ratio_max}}};
}

// A deployment's optional sections: host KV-offload pool, in-run Engram tier.
void add_optional_json(const BuiltScenario& b, json& out) {
  const ScenarioParams& p = b.params;
  const ScenarioDeployment& d = p.deployment;
  if (b.kv_offload_blocks_per_replica > 0) {
    out["kv_offload_pool"] = {{"gib_per_replica", d.scheduler.kv_offloading_size.gib()},
                              {"blocks_per_replica", b.kv_offload_blocks_per_replica},
                              {"block_bytes_per_replica", b.kv_block_bytes_per_replica.value()},
                              {"host_link_gb_s_per_gpu", p.node.gpu.host_link_bandwidth.value() * 1e-9},
                              {"host_link_latency_us", p.node.host_link_latency.seconds() * 1e6}};
  }
  if (d.engram.in_run.enabled) {
    const ScenarioInRun& ir = d.engram.in_run;
    out["engram_in_run"] = {{"access", to_string(ir.access_model)},
                            {"hbm_cache_policy", to_string(ir.hbm_policy)},
                            {"dram_cache_policy", to_string(ir.dram_policy)},
                            {"sample_rows_per_step", ir.sample_rows_per_step},
                            {"fabric_backend", ir.backend},
                            {"placement", ir.spread ? "spread" : "packed"},
                            {"kv_offload", ir.swap_preempted_kv}};
  }
}

// One deployment as built: node, layout, replicas, scheduler, KV pool, price, memory.
json deployment_json(const BuiltScenario& b) {
  const ScenarioParams& p = b.params;
  const ScenarioDeployment& d = p.deployment;
  json out = {
      {"node", p.node.name},
      {"gpu", p.node.gpu.name},
      {"tp", b.footprint.layout.tp},
      {"ep", b.footprint.layout.ep},
      {"attention", b.footprint.dp_attention ? "data" : "tensor"},
      {"engram_tier", b.engram_label()},
      {"engine", d.engine},
      {"engine_preset", d.engine_path},
      {"host_overhead_us",
       {{"per_step", d.host.per_step.seconds() * 1e6},
        {"per_sequence", d.host.per_sequence.seconds() * 1e6},
        {"frontend_per_prompt_token", d.host.frontend_per_prompt_token.seconds() * 1e6}}},
      {"frontend_workers", frontend_workers(d, b.scheduler_ranks)},
      {"replicas", b.replicas},
      {"gpus", b.replicas * b.gpus_per_replica},
      {"scheduler", scheduler_json(b)},
      {"spec_decode", spec_decode_schema().write({d.spec_decode})},
      {"router", d.router},
      {"kv_blocks_per_replica", b.kv_blocks_per_replica},
      {"kv_tokens_per_replica", b.footprint.replica_kv_tokens},
      {"kv_tokens_engine_logged", b.footprint.engine_logged_kv_tokens},
      {"max_model_len", b.footprint.max_model_len},
      {"engram_active_gpus_per_node", b.step_model->options().engram.active_gpus},
      {"engram_ssd_path", to_string(d.host.engram_ssd_path)},
      {"usd_per_gpu_hour",
       {{"gpu", json_number(b.price.gpu_hour.value())},
        {"engram_capacity", json_number(b.price.engram_capacity.value())},
        {"total", json_number(b.price.total().value())},
        {"paid_gpus_per_used_gpu", json_number(b.price.paid_per_used)}}},
  };
  add_memory_json(b, out);
  add_optional_json(b, out);
  return out;
}

json placement_json(const sim::PoolPlacement& p) {
  return {{"kv_ranks", p.kv_ranks},
          {"kv_layout", p.layout == sim::KvLayout::sharded ? "sharded" : "replicated"},
          {"nic_gb_s_per_gpu", p.node.nic_bandwidth.value() * 1e-9},
          {"nic_latency_us", p.node.nic_latency.seconds() * 1e6}};
}

// Kind disaggregated: the decode pool is the top level (as a colocated deployment is); the prefill
// pool, the transfer and the run's GPU-weighted price go beside it.
void add_disaggregation_json(const BuiltScenario& b, json& out) {
  if (!b.prefill_pool || !b.run.disaggregation) return;
  const sim::DisaggregationParams& g = *b.run.disaggregation;
  const sim::KvTransferParams& t = g.transfer;
  out["deployment_kind"] = "disaggregated";
  out["prefill"] = deployment_json(*b.prefill_pool);
  out["kv_transfer"] = {{"bytes_per_token", t.bytes_per_token.value()},
                        {"prefill", placement_json(t.prefill)},
                        {"decode", placement_json(t.decode)},
                        {"setup_s", t.setup.seconds()},
                        {"backend", t.backend},
                        {"local_prefill_threshold", g.local_prefill_threshold}};
  out["run_gpus"] = b.run_gpus();
  out["run_usd_per_gpu_hour"] = json_number(b.run.price_per_gpu_hour.value_or(MoneyRate(0.0)).value());
  out["run_power_kw_per_gpu"] = json_number(b.run.power_kw_per_gpu);
}

}  // namespace

std::string scenario_json(const BuiltScenario& b) {
  const ScenarioParams& p = b.params;
  json out = deployment_json(b);
  out["scenario"] = p.name;
  out["description"] = p.description;
  out["file"] = p.file;
  out["seed"] = p.seed;
  out["model"] = b.card.name;
  out["price_tier"] = to_string(p.price_tier);
  out["workload"] = p.workload.description;
  out["horizon_s"] = p.horizon == Time::max() ? json(nullptr) : json(p.horizon.seconds());
  out["slo"] = slo_json(p);
  out["calibration"] = calibration_json(b);
  add_agentic_json(p, out);
  add_disaggregation_json(b, out);
  return json_text(out) + "\n";
}

Bytes engram_page_cache(const ScenarioDeployment& d, const NodeFootprint& nf, Bytes row_caches, Bytes kv_offload,
                        Bytes* capacity) {
  const Bytes reserve = nf.host_dram_capacity - nf.host_dram_available;
  Bytes cap = page_cache_capacity({nf.host_dram_capacity, reserve, nf.host_dram_engram, row_caches, kv_offload});
  if (d.engram.page_cache_limit) cap = std::min(cap, *d.engram.page_cache_limit);
  if (capacity != nullptr) *capacity = cap;
  if (d.engram.tier != EngramTier::ssd || d.host.engram_ssd_path != SsdPath::page_cache) return Bytes(0.0);
  return Bytes(std::min(cap.value(), nf.ssd_engram.value()));
}

}  // namespace engramsim::scenario
