#include "tools/engramsim/deployment_flags.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "core/config_override.hpp"
#include "core/error.hpp"
#include "scenario/schema/scheduler_schema.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"

namespace engramsim::cli {
namespace {

DeploymentFlag value_flag(std::string flag, std::string key, std::string help) {
  return {std::move(flag), std::move(key), std::move(help), false, nullptr};
}

DeploymentFlag switch_flag(std::string flag, std::string key, std::string value, std::string help) {
  DeploymentFlag f{std::move(flag), key, std::move(help), true, nullptr};
  f.to_keys = [key, value](const std::string&) { return KeyValues{{key, value}}; };
  return f;
}

// `--zipf-exponent X`: access {model: zipf, exponent: X}; 0 is uniform popularity.
KeyValues zipf_keys(const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (end != v.c_str() && *end == '\0' && x == 0.0) return {{"engram.access", "{model: uniform}"}};
  return {{"engram.access", "{model: zipf, exponent: " + v + "}"}};
}

// `--draft-tokens N`: N drafted positions; 0 runs without speculative decoding.
KeyValues draft_keys(const std::string& v) {
  if (v == "0") return {{"spec_decode.enabled", "false"}};
  return {{"spec_decode.draft_tokens", v}};
}

void add_layout_flags(std::vector<DeploymentFlag>& out) {
  out.push_back(value_flag("--tp", "tp", "GPUs in one replica (tensor-parallel size)"));
  out.push_back(value_flag("--ep", "ep", "Expert-parallel ranks, dividing --tp (0 = automatic)"));
  out.push_back(value_flag("--attention", "attention", "Attention parallelism: automatic, tensor or data"));
  out.push_back(value_flag("--expert-placement", "expert_placement",
                           "Routed experts over the EP ranks: static (no balancer, default), eplb or ideal"));
  out.push_back(value_flag("--redundant-experts", "redundant_experts", "Extra expert replicas under eplb"));
  out.push_back(value_flag("--expert-routing", "expert_routing",
                           "How tokens pick experts: random (default) or balanced (as kernel benchmarks route)"));
  out.push_back(value_flag("--engine", "engine",
                           "Serving-engine preset for the host overhead: a name (engramsim list engines) or a file"));
  out.push_back(value_flag("--max-model-len", "max_model_len",
                           "Longest sequence the KV pool must hold (0 = the card's context)"));
}

void add_engram_flags(std::vector<DeploymentFlag>& out) {
  out.push_back(value_flag("--engram-tier", "engram.tier",
                           "Where the Engram tables live: hbm, dram, ssd, or none to drop the module (default: dram "
                           "with Engram tables, none without)"));
  DeploymentFlag zipf =
      value_flag("--zipf-exponent", "engram.access.exponent", "Zipf exponent of Engram row popularity (0 = uniform)");
  zipf.to_keys = zipf_keys;
  out.push_back(zipf);
  out.push_back(value_flag("--fetch", "engram.fetch", "How DRAM rows reach the GPU: zero_copy or staged"));
  out.push_back(
      switch_flag("--no-dedup", "engram.dedup", "false", "The engine fetches every lookup (no within-step dedup)"));
  out.push_back(value_flag("--dram-cache", "engram.dram_cache",
                           "DRAM row cache per replica in front of the ssd tier (e.g. 64GiB)"));
  out.push_back(
      value_flag("--hbm-cache", "engram.hbm_cache", "HBM hot-row cache per replica in front of dram/ssd (e.g. 4GiB)"));
  out.push_back(value_flag("--ssd-queue-depth", "engram.ssd_queue_depth", "Outstanding 4 KiB reads per NVMe drive"));
  out.push_back(value_flag("--active-gpus", "engram.active_gpus", "GPUs of the node fetching at once (0 = all)"));
  out.push_back(switch_flag("--share-across-replicas", "engram.share_across_replicas", "true",
                            "One pinned host copy of the tables per node, shared by replicas"));
}

void add_spec_flags(std::vector<DeploymentFlag>& out) {
  out.push_back(switch_flag("--no-spec", "spec_decode.enabled", "false", "Run without speculative decoding"));
  DeploymentFlag draft = value_flag("--draft-tokens", "spec_decode.draft_tokens",
                                    "Drafted positions per sequence (default: the card's; 0 = off)");
  draft.to_keys = draft_keys;
  out.push_back(draft);
  out.push_back(value_flag("--acceptance-length", "spec_decode.acceptance_length",
                           "Mean tokens emitted per verify step (default: the card's)"));
}

// The scheduler keys, described by the scheduler schema.
void add_scheduler_flags(std::vector<DeploymentFlag>& out) {
  sim::SchedulerRegistry registry;
  sim::register_builtin_schedulers(registry);
  const FieldTable<scenario::ScenarioScheduler> schema = scenario::scheduler_schema(registry);
  for (const char* key : {"max_num_batched_tokens", "max_num_seqs", "gpu_memory_utilization",
                          "kv_cache_free_gpu_mem_fraction", "block_size", "max_cudagraph_capture_size"}) {
    const FieldDoc& doc = schema.at(key).doc;
    out.push_back(value_flag(flag_name(key), std::string("scheduler.") + key,
                             doc.type + " (default " + doc.dflt + "): " + doc.meaning));
  }
}

const DeploymentFlag& flag_named(const std::string& name) {
  for (const DeploymentFlag& f : deployment_flags())
    if (f.flag == name) return f;
  throw std::logic_error("no deployment flag " + name);
}

}  // namespace

const std::vector<DeploymentFlag>& deployment_flags() {
  static const std::vector<DeploymentFlag> flags = [] {
    std::vector<DeploymentFlag> out;
    add_layout_flags(out);
    add_engram_flags(out);
    add_spec_flags(out);
    add_scheduler_flags(out);
    return out;
  }();
  return flags;
}

void DeploymentFlagValues::add_to(CLI::App* cmd, const std::vector<std::string>& flags) {
  for (const std::string& name : flags) {
    const DeploymentFlag* f = &flag_named(name);
    const std::string help = "deployment." + f->key + ": " + f->help;
    if (f->is_switch) {
      cmd->add_flag_callback(
          f->flag, [this, f] { given_.emplace_back(f, ""); }, help);
    } else {
      cmd->add_option_function<std::string>(
          f->flag, [this, f](const std::string& v) { given_.emplace_back(f, v); }, help);
    }
  }
}

std::string DeploymentFlagValues::given(const std::string& flag) const {
  for (const auto& [f, v] : given_)
    if (f->flag == flag) return f->is_switch ? "true" : v;
  return "";
}

KeyValues DeploymentFlagValues::keys_of(const DeploymentFlag& f, const std::string& value) {
  return f.to_keys ? f.to_keys(value) : KeyValues{{f.key, value}};
}

scenario::ScenarioDeployment DeploymentFlagValues::read(const ModelCard& card, const NodeSpec& node) const {
  YAML::Node d(YAML::NodeType::Map);
  d["replicas"] = 1;
  for (const auto& [f, v] : given_)
    for (const auto& [key, value] : keys_of(*f, v)) apply_override(d, key, value);
  try {
    return scenario::parse_deployment_section(ConfigNode(d, "command line", "deployment"), card, node);
  } catch (const ConfigError& e) {
    // Name the flag that set the key the error is about (or a key inside it).
    for (const auto& [f, v] : given_)
      for (const auto& [key, value] : keys_of(*f, v)) {
        const std::string path = "deployment." + key;
        if (e.field() == path || e.field().rfind(path + ".", 0) == 0)
          throw ConfigError({f->flag, 0, 0}, e.field(), e.message());
      }
    throw;
  }
}

}  // namespace engramsim::cli
