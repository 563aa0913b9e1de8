#include "models/engine_loader.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "hardware/hardware_loader.hpp"

namespace engramsim {
namespace {

constexpr const char* kFolder = "models/engines";

void add_host_keys(FieldTable<HostOverhead>& t) {
  const Time hi = Time::from_seconds(1.0);
  t.custom(
       {"name", "string", "required", "the preset's name (`deployment.engine`)"},
       [](const ConfigNode& n, HostOverhead& h) {
         h.engine = n.str("name");
         if (h.engine.empty()) n.fail_key("name", "must not be empty");
       },
       [](const HostOverhead& h) { return nlohmann::json(h.engine); })
      .required();
  t.custom({"description", "string", "empty", "one line for `engramsim list engines`"},
           [](const ConfigNode& n, HostOverhead&) { n.str("description"); });
  t.time("per_step", &HostOverhead::per_step, Time::zero(), hi,
         "host time a scheduler step exposes beyond the GPU's work")
      .required();
  t.time("per_sequence", &HostOverhead::per_sequence, Time::zero(), hi,
         "exposed host time per sequence in the batch (decode sequences + prefill chunks; per rank under "
         "data-parallel attention)")
      .required();
  t.time("piecewise_per_layer", &HostOverhead::piecewise_per_layer, Time::zero(), hi,
         "eager host time per backbone layer of a step that runs PIECEWISE CUDA graphs (docs/cost-model.md)");
  t.time("frontend_per_prompt_token", &HostOverhead::frontend_per_prompt_token, Time::zero(), Time::from_seconds(1e-3),
         "front-end time per prompt token (tokenising the prompt text), spent on one of the replica's front-end "
         "workers (deployment `frontend_workers`) in arrival order before the request reaches the scheduler "
         "(docs/cost-model.md \"Front end\")");
  t.custom(
      {"kv_send", "`after_prefill` \\| `per_chunk`", "`after_prefill`",
       "disaggregated deployments: the prefill side's KV goes to the decode side after the whole prefill "
       "(pulled into blocks reserved then), or after every prompt chunk into blocks the decode side reserved "
       "before the prefill began (docs/disaggregation.md \"Transfer modes\")"},
      [](const ConfigNode& n, HostOverhead& h) {
        h.kv_send = *kKvSendNames.parse(n.one_of("kv_send", kKvSendNames.names()));
      },
      [](const HostOverhead& h) { return nlohmann::json(to_string(h.kv_send)); });
  t.at_least_zero(
      "indexer_logits_profile_cap", [](auto& h) -> auto& { return h.memory.indexer_logits_profile_cap; },
      "the start-up profile's stand-in for a sparse indexer's logits buffer, at most this much of the card's "
      "fixed buffers (0: the whole buffer; docs/footprint.md \"KV pool\")");
  t.number(
      "graph_indexer_logit_rows", [](auto& h) -> auto& { return h.memory.graph_indexer_logit_rows; }, 0.0, 64.0,
      "FP32 indexer logits rows of max_model_len / ratio entries that graph memory holds per token of the largest "
      "captured batch (docs/footprint.md \"KV pool\")");
  t.number("kernel_time_scale", &HostOverhead::kernel_time_scale, 1.0, 100.0,
           "every GPU op time, collectives included, times this (an engine whose kernels are not yet tuned for "
           "the GPU)");
}

// A map precision -> share in (0, 1] into `shares` (one slot per precision).
void read_precision_shares(const ConfigNode& root, const char* key, std::array<double, kPrecisionCount>& shares) {
  const ConfigNode m = root.child(key);
  if (!m.is_map()) m.fail("expected a map of precision -> share in (0, 1], e.g. fp4: 0.45");
  for (const std::string& name : m.keys()) {
    const ConfigNode c = m.child(name);
    const auto p = precision_from_string(name);
    if (!p) c.fail("unknown precision \"" + name + "\"; expected one of fp4, fp8, bf16, fp16, fp32");
    const double v = c.as_number();
    if (!(v > 0.0 && v <= 1.0)) c.fail("must be in (0, 1]");
    shares[static_cast<std::size_t>(*p)] = v;
  }
  m.finish();
}

nlohmann::json precision_shares_json(const std::array<double, kPrecisionCount>& shares) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < kPrecisionCount; ++i)
    if (shares[i] != 1.0) out[to_string(static_cast<Precision>(i))] = shares[i];
  return out;
}

// `activation_quant_fused_into`: a list of distinct producers.
void read_quant_fusion(const ConfigNode& root, ActivationQuantFusion& f) {
  const ConfigNode list = root.child("activation_quant_fused_into");
  if (!list.is_sequence()) list.fail("expected a list of norm, activation, attention");
  for (const ConfigNode& e : list.elements()) {
    const std::string v = e.as_str();
    bool* slot = v == "norm" ? &f.norm : v == "activation" ? &f.activation : v == "attention" ? &f.attention : nullptr;
    if (slot == nullptr) e.fail("unknown producer \"" + v + "\"; expected one of norm, activation, attention");
    if (*slot) e.fail("\"" + v + "\" is listed twice");
    *slot = true;
  }
}

nlohmann::json quant_fusion_json(const ActivationQuantFusion& f) {
  nlohmann::json out = nlohmann::json::array();
  if (f.norm) out.push_back("norm");
  if (f.activation) out.push_back("activation");
  if (f.attention) out.push_back("attention");
  return out;
}

void add_moe_kernel_keys(FieldTable<HostOverhead>& t) {
  t.custom(
      {"moe_bandwidth_share", "map precision -> number in (0, 1]", "none (1 for every precision)",
       "share of the grouped-GEMM bandwidth curve the engine's routed-expert kernels reach at that expert "
       "precision, measured on the engine's own MoE module (docs/cost-model.md §2)"},
      [](const ConfigNode& n, HostOverhead& h) { read_precision_shares(n, "moe_bandwidth_share", h.moe.bandwidth); },
      [](const HostOverhead& h) { return precision_shares_json(h.moe.bandwidth); });
  t.custom(
      {"moe_compute_share", "map precision -> number in (0, 1]", "none (1 for every precision)",
       "share of the grouped-GEMM FLOP rate (peak x GPU share x curve) the engine's routed-expert kernels "
       "reach at that expert precision, measured on the engine's own MoE module (docs/cost-model.md §2)"},
      [](const ConfigNode& n, HostOverhead& h) { read_precision_shares(n, "moe_compute_share", h.moe.compute); },
      [](const HostOverhead& h) { return precision_shares_json(h.moe.compute); });
  t.time("block_fp8_gemm_k_step", &HostOverhead::block_fp8_gemm_k_step, Time::zero(), Time::from_seconds(1e-3),
         "time per 128-deep K step of the engine's dense GEMMs on FP8 weights with block scales (attention "
         "projections, dense FFN): such an op takes at least its K steps times this, measured on the engine's "
         "own kernels (docs/cost-model.md §2)");
  t.custom(
      {"activation_quant_fused_into", "list of `norm`, `activation`, `attention`",
       "none (every input quantized "
       "by a kernel of its own)",
       "the kernels that write a projection's input already quantized for per-tensor FP8 or FP4 weights: the "
       "RMSNorm (attention and FFN inputs), the FFN activation (down projection), attention (output "
       "projection); every other such input costs a quantizing kernel (docs/cost-model.md \"Activation "
       "quantization\")"},
      [](const ConfigNode& n, HostOverhead& h) { read_quant_fusion(n, h.quant_fusion); },
      [](const HostOverhead& h) { return quant_fusion_json(h.quant_fusion); });
}

// `sparse_attention_head_pad`: per GPU vendor, ascending positive head counts.
void read_head_pad(const ConfigNode& root, std::map<std::string, SparseAttentionKernels>& by_vendor) {
  const ConfigNode map = root.child("sparse_attention_head_pad");
  if (!map.is_map()) map.fail("expected a map of GPU vendor (nvidia, amd) to a list of head counts");
  for (const std::string& vendor : map.keys()) {
    if (vendor != "nvidia" && vendor != "amd") map.fail_key(vendor, "expected a GPU vendor: nvidia or amd");
    const ConfigNode list = map.child(vendor);
    if (!list.is_sequence()) list.fail("expected a list of head counts, ascending");
    SparseAttentionKernels& k = by_vendor[vendor];
    for (const ConfigNode& e : list.elements()) {
      const std::int64_t v = e.as_integer();
      if (v < 1 || v > 4096) e.fail("expected a head count in [1, 4096]");
      if (!k.head_pad.empty() && v <= k.head_pad.back()) e.fail("head counts must ascend");
      k.head_pad.push_back(static_cast<int>(v));
    }
  }
}

void add_attention_kernel_keys(FieldTable<HostOverhead>& t) {
  t.custom(
      {"sparse_attention_head_pad", "map GPU vendor (`nvidia`, `amd`) -> list of integers in [1, 4096], ascending",
       "none (no padding)",
       "the query-head counts the engine's sparse-attention kernels for compressed-KV (CSA) layers take on "
       "that vendor's GPUs: a rank's heads are padded up to the first at or above them, and the attention "
       "FLOPs are the padded heads' (docs/cost-model.md \"Long-context terms\")"},
      [](const ConfigNode& n, HostOverhead& h) { read_head_pad(n, h.sparse_attention_by_vendor); },
      [](const HostOverhead& h) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [vendor, k] : h.sparse_attention_by_vendor) out[vendor] = k.head_pad;
        return out;
      });
}

void add_collective_keys(FieldTable<HostOverhead>& t) {
  t.custom(
      {"all_reduce_table", "string: a table in models/data/engine-allreduce/all_reduce.csv", "none (the NCCL fit)",
       "the engine's own all-reduce kernel as measured on a GPU: on that GPU it prices the all-reduces at the rank "
       "counts it covers, instead of the NCCL fit (docs/cost-model.md §4)"},
      [](const ConfigNode& n, HostOverhead& h) {
        const std::string name = n.str("all_reduce_table");
        const std::vector<std::string> known = engine_all_reduce_tables();
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          std::string list;
          for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
          n.fail_key("all_reduce_table", "no table \"" + name + "\" (known: " + list + ")");
        }
        h.all_reduce_table = name;
      },
      [](const HostOverhead& h) { return nlohmann::json(h.all_reduce_table); });
}

void add_engram_keys(FieldTable<HostOverhead>& t) {
  const Time hi = Time::from_seconds(1.0);
  t.boolean("engram_lookup_on_host_thread", &HostOverhead::engram_lookup_on_host_thread,
            "the engine prepares each Engram layer's lookup on its one host thread before the forward (nano-vllm)");
  t.time("engram_lookup_per_step", &HostOverhead::engram_lookup_per_step, Time::zero(), hi,
         "with `engram_lookup_on_host_thread` (then required): host calls per Engram layer and step");
  t.time("engram_lookup_per_position", &HostOverhead::engram_lookup_per_position, Time::zero(), hi,
         "with `engram_lookup_on_host_thread` (then required): N-gram hashes per position per Engram layer");
  t.number("engram_side_stream_sm_share", &HostOverhead::engram_side_stream_sm_share, 0.0, 0.95,
           "dram tier, zero_copy: share of the SMs the side-stream gather holds while it runs");
  t.custom(
      {"engram_ssd_path", "`direct` \\| `page_cache`", "`direct`",
       "how the engine reads the ssd tier: its own direct reads, or memory-mapped files through the OS page "
       "cache (then the three keys below are required)"},
      [](const ConfigNode& n, HostOverhead& h) {
        h.engram_ssd_path = *kSsdPathNames.parse(n.one_of("engram_ssd_path", kSsdPathNames.names()));
      },
      [](const HostOverhead& h) { return nlohmann::json(to_string(h.engram_ssd_path)); });
  t.time("engram_host_round_trip", &HostOverhead::engram_host_round_trip, Time::zero(), hi,
         "page_cache: fixed host calls per Engram layer and step");
  t.time("engram_host_dedup_per_id", &HostOverhead::engram_host_dedup_per_id, Time::zero(), hi,
         "page_cache: host dedup per row id");
  t.integer("engram_page_fault_concurrency", &HostOverhead::engram_page_fault_concurrency, 1, 4096,
            "page_cache: page faults in flight per rank");
  t.boolean("engram_host_gather_overlap", &HostOverhead::engram_host_gather_overlap,
            "page_cache: the round trip overlaps the layers before the Engram layer");
}

// Keys that apply only when another key says so: absent otherwise, required then.
void check_conditional_keys(const ConfigNode& n, const HostOverhead& h) {
  for (const char* key : {"engram_lookup_per_step", "engram_lookup_per_position"}) {
    if (!h.engram_lookup_on_host_thread && n.has(key))
      n.fail_key(key, "applies only with engram_lookup_on_host_thread: true");
    if (h.engram_lookup_on_host_thread) n.child(key);  // required: throws when absent
  }
  for (const char* key : {"engram_host_round_trip", "engram_host_dedup_per_id", "engram_page_fault_concurrency",
                          "engram_host_gather_overlap"}) {
    if (h.engram_ssd_path == SsdPath::direct && n.has(key))
      n.fail_key(key, "applies only with engram_ssd_path: page_cache");
    if (h.engram_ssd_path == SsdPath::page_cache && std::string(key) != "engram_host_gather_overlap") n.child(key);
  }
}

HostOverhead parse_engine(const ConfigNode& n) {
  if (!n.is_map()) n.fail("an engine preset must be a map");
  HostOverhead h;
  engine_schema().read(n, h);
  check_conditional_keys(n, h);
  n.finish();
  return h;
}

}  // namespace

const FieldTable<HostOverhead>& engine_schema() {
  static const FieldTable<HostOverhead> table = [] {
    FieldTable<HostOverhead> t("engine preset");
    add_host_keys(t);
    add_moe_kernel_keys(t);
    add_attention_kernel_keys(t);
    add_collective_keys(t);
    add_engram_keys(t);
    return t;
  }();
  return table;
}

HostOverhead load_engine(const std::string& name_or_path) {
  const std::string path = resolve_catalog_path(kFolder, name_or_path);
  if (const std::string why = ConfigNode::file_problem(path); !why.empty()) {
    std::string known;
    for (const auto& name : known_engines()) known += (known.empty() ? "" : ", ") + name;
    throw ConfigError({path, 0, 0}, "", "no engine preset '" + name_or_path + "' (" + why + "; known: " + known + ")");
  }
  return parse_engine(ConfigNode::load_file(path));
}

HostOverhead engine_from_yaml(const std::string& text, const std::string& file_name) {
  const ConfigNode root = ConfigNode::load_string(text, file_name);
  if (!root.raw().IsDefined() || root.raw().IsNull()) throw ConfigError({file_name, 1, 1}, "", "file is empty");
  return parse_engine(root);
}

std::vector<std::string> known_engines() {
  std::vector<std::string> names;
  for (const CatalogEntry& e : list_catalog(kFolder)) names.push_back(e.name);
  return names;
}

}  // namespace engramsim
