#include "models/engine_loader.hpp"

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "hardware/hardware_loader.hpp"

namespace engramsim {
namespace {

constexpr const char* kFolder = "models/engines";

Time bounded_time(const ConfigNode& n, const std::string& key) {
  const Time t = n.time(key);
  if (t < Time::zero() || t > Time::from_seconds(1.0)) n.fail_key(key, "must be in [0, 1s]");
  return t;
}

// The Engram read paths (docs/memory-tiers.md): the side-stream share of the dram path, and the
// ssd path with the page_cache terms it requires.
void parse_engram_paths(const ConfigNode& n, HostOverhead& h) {
  h.engram_side_stream_sm_share = n.number_or("engram_side_stream_sm_share", 0.0, 0.0, 0.95);
  const std::string path = n.one_of_or("engram_ssd_path", {"direct", "page_cache"}, "direct");
  const char* keys[] = {"engram_host_round_trip", "engram_host_dedup_per_id", "engram_page_fault_concurrency",
                        "engram_host_gather_overlap"};
  if (path == "direct") {
    for (const char* key : keys)
      if (n.has(key)) n.fail_key(key, "applies only with engram_ssd_path: page_cache");
    return;
  }
  h.engram_ssd_path = SsdPath::page_cache;
  h.engram_host_round_trip = bounded_time(n, "engram_host_round_trip");
  h.engram_host_dedup_per_id = bounded_time(n, "engram_host_dedup_per_id");
  h.engram_page_fault_concurrency = static_cast<int>(n.integer("engram_page_fault_concurrency", 1, 4096));
  h.engram_host_gather_overlap = n.boolean_or("engram_host_gather_overlap", false);
}

HostOverhead parse_engine(const ConfigNode& n) {
  if (!n.is_map()) n.fail("an engine preset must be a map");
  HostOverhead h;
  h.engine = n.str("name");
  if (h.engine.empty()) n.fail_key("name", "must not be empty");
  n.str_or("description", "");
  h.per_step = bounded_time(n, "per_step");
  h.per_sequence = bounded_time(n, "per_sequence");
  if (n.has("piecewise_per_layer")) h.piecewise_per_layer = bounded_time(n, "piecewise_per_layer");
  h.engram_lookup_on_host_thread = n.boolean_or("engram_lookup_on_host_thread", false);
  if (h.engram_lookup_on_host_thread) {
    h.engram_lookup_per_step = bounded_time(n, "engram_lookup_per_step");
    h.engram_lookup_per_position = bounded_time(n, "engram_lookup_per_position");
  } else {
    for (const char* key : {"engram_lookup_per_step", "engram_lookup_per_position"})
      if (n.has(key)) n.fail_key(key, "applies only with engram_lookup_on_host_thread: true");
  }
  parse_engram_paths(n, h);
  h.kernel_time_scale = n.number_or("kernel_time_scale", 1.0, 1.0, 100.0);
  n.finish();
  return h;
}

}  // namespace

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
