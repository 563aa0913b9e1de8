#include "calibration/calibration_runner.hpp"

#include <algorithm>

#include <filesystem>
#include <sstream>

#include "calibration/host_info.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"

namespace engramsim::calibration {
namespace {

const std::vector<std::pair<std::string, std::vector<std::string>>>& groups() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> g = {
      {"memcpy", {"memcpy"}},
      {"dram", {"dram_gather"}},
      {"ssd", {"ssd_random_read", "ssd_mmap", "ssd_sequential"}},
      {"host", {"memcpy", "dram_gather", "ssd_random_read", "ssd_mmap", "ssd_sequential"}},
      {"gpu",
       {"hbm", "hbm_gather", "host_link", "uva_gather", "staged_gather", "gemm", "attention_decode", "kernel_launch",
        "collectives"}},
  };
  return g;
}

}  // namespace

std::set<std::string> resolve_benchmark_list(const std::string& csv) {
  std::set<std::string> out;
  if (csv.empty()) {
    for (const auto& n : calibration_section_names()) out.insert(n);
    return out;
  }
  std::stringstream ss(csv);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    bool found = false;
    for (const auto& [g, members] : groups())
      if (g == item) {
        out.insert(members.begin(), members.end());
        found = true;
      }
    for (const auto& n : calibration_section_names())
      if (n == item) {
        out.insert(n);
        found = true;
      }
    if (!found)
      throw ConfigError({"command line", 0, 0}, "--only",
                        "unknown benchmark \"" + item + "\"; known: " + benchmark_list_help());
  }
  if (out.empty()) throw ConfigError({"command line", 0, 0}, "--only", "names no benchmark");
  return out;
}

std::string benchmark_list_help() {
  std::string s;
  // Groups first, then the sections; a section that shares its group's name is listed once.
  std::vector<std::string> names;
  for (const auto& [g, members] : groups()) names.push_back(g);
  for (const auto& n : calibration_section_names())
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

void fill_provenance(const CalibrationOptions& o, const GpuEnvironment& gpu, CalibrationRun& run) {
  auto& v = run.profile.provenance;
  v.host = host_name();
  v.cpu_model = cpu_model_name();
  v.cpu_threads = online_cpus();
  v.date = utc_timestamp();
  v.engramsim_version = engramsim_version();
  v.options = o.command_line;
  bool any_gpu = false;
  for (const auto& n : calibration_section_names())
    if (is_gpu_section(n) && has_section_data(run.profile, n)) any_gpu = true;
  if (any_gpu && gpu.available) {
    const int dev = o.gpu_device < static_cast<int>(gpu.devices.size()) ? o.gpu_device : 0;
    v.gpu = gpu.devices[static_cast<std::size_t>(dev)].name;
    v.gpu_count = static_cast<int>(gpu.devices.size());
    v.gpu_driver = gpu.driver_version;
    v.cuda_runtime = gpu.runtime_version;
  }
  if (run.profile.name.empty()) run.profile.name = o.name.empty() ? (v.host.empty() ? "calibration" : v.host) : o.name;
}

std::string samples_path_for(const std::string& profile_path) {
  std::filesystem::path p(profile_path);
  std::string stem = p.filename().string();
  for (const char* ext : {".yaml", ".yml"}) {
    const std::string e(ext);
    if (stem.size() > e.size() && stem.compare(stem.size() - e.size(), e.size(), e) == 0) {
      stem.resize(stem.size() - e.size());
      break;
    }
  }
  return (p.parent_path() / (stem + ".samples.csv")).string();
}

void write_calibration_run(CalibrationRun& run, const std::string& profile_path) {
  const std::string csv = run.samples.to_csv();
  const std::string samples = samples_path_for(profile_path);
  write_text_file_atomically(samples, csv);
  run.profile.provenance.samples_file = std::filesystem::path(samples).filename().string();
  run.profile.provenance.samples_hash = samples_hash_of(csv);
  write_calibration_profile(run.profile, profile_path);
}

std::vector<GemmShape> default_gemm_shapes(bool quick) {
  // (n, k) from the catalog's model cards: V4.1-Flash routed expert gate+up (2 x 2304 out of 5120)
  // and down (5120 out of 2304); DeepSeek-V3/R1 routed expert gate+up (2 x 2048 out of 7168) and
  // down (7168 out of 2048); Llama-3-70B MLP up (28672 out of 8192) and down, plus its QKV and
  // output projections in the full sweep. m = 32 is the rows per expert of a DEP8 decode step at
  // 128 sequences per GPU (8 of 256 experts per token).
  std::vector<std::pair<std::int64_t, std::int64_t>> nk = {{4608, 5120}, {5120, 2304},  {4096, 7168},
                                                           {7168, 2048}, {28672, 8192}, {8192, 28672}};
  if (!quick) {
    nk.push_back({10240, 8192});
    nk.push_back({8192, 8192});
  }
  const std::vector<std::int64_t> ms = quick ? std::vector<std::int64_t>{1, 32, 128, 2048, 16384}
                                             : std::vector<std::int64_t>{1, 16, 32, 64, 256, 1024, 4096, 16384};
  std::vector<GemmShape> out;
  for (const auto& [n, k] : nk)
    for (const auto m : ms) out.push_back({m, n, k});
  return out;
}

}  // namespace engramsim::calibration
