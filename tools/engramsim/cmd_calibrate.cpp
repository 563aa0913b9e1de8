// `engramsim calibrate`: measure this machine (host DRAM gathers, SSD reads, memcpy; the GPU when
// one is present and engramsim was built with nvcc), fit cost curves, and write a profile
// (--out, default calibration.yaml) with its raw samples beside it. Prints a progress line per
// benchmark, which sections were measured, and a table of measured values against the datasheet
// values of a node/GPU preset (--node / --gpu).
// Exit codes: 0 ok; 2 bad input (options, sizes, paths, presets); 1 a benchmark failed, nothing
// could be measured, or the profile could not be written.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "calibration/calibration_runner.hpp"
#include "calibration/gpu_benchmarks.hpp"
#include "core/error.hpp"
#include "core/unit_parse.hpp"
#include "hardware/calibration_profile.hpp"
#include "hardware/hardware_loader.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {
namespace {

struct CalibrateArgs {
  bool quick = false;
  std::string only;
  bool only_given = false;
  std::string ssd_path;
  std::string ssd_size;
  std::string dram_table_size;
  std::string gpu_table_size;
  int threads = 0;
  std::string out = "calibration.yaml";
  std::string name;
  std::string node;
  std::string gpu;
  double zipf_s = 1.0;
  std::uint64_t seed = 1;
  int device = 0;
  std::string gemm_shapes;
  std::string command_line;
};

[[noreturn]] void bad(const std::string& field, const std::string& msg) {
  throw ConfigError({"command line", 0, 0}, field, msg);
}

std::uint64_t size_option(const std::string& field, const std::string& text) {
  try {
    const double b = parse_bytes(text).value();
    if (!(b >= 1.0)) bad(field, "must be a positive size");
    if (b > 0x1p50) bad(field, "at most 1PiB");
    return static_cast<std::uint64_t>(b);
  } catch (const UnitParseError& e) {
    bad(field, e.what());
  }
}

std::vector<calibration::GemmShape> parse_shapes(const std::string& text) {
  std::vector<calibration::GemmShape> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    calibration::GemmShape s;
    char x1 = 0, x2 = 0;
    std::istringstream is(item);
    if (!(is >> s.m >> x1 >> s.n >> x2 >> s.k) || x1 != 'x' || x2 != 'x' || !is.eof() || s.m < 1 || s.n < 1 || s.k < 1)
      bad("--gemm-shapes", "expected MxNxK[,MxNxK...] with positive integers, got \"" + item + "\"");
    out.push_back(s);
  }
  if (out.empty()) bad("--gemm-shapes", "names no shape");
  return out;
}

std::string g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string iops_str(double v) {
  char buf[32];
  if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2fM IOPS", v * 1e-6);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fk IOPS", v * 1e-3);
  else
    std::snprintf(buf, sizeof buf, "%.0f IOPS", v);
  return buf;
}

// One row of the closing table: a quantity, its measured value, and the preset's figure if any.
using RowFn = std::function<void(const std::string& what, double measured, const std::string& measured_text,
                                 std::optional<double> preset, const std::string& preset_text)>;

// Host rows: memcpy, DRAM gather, SSD reads and page faults against the node preset.
void host_comparison_rows(const CalibrationProfile& p, const std::optional<NodeSpec>& node, const RowFn& row) {
  if (p.memcpy && !p.memcpy->points.empty()) {
    const auto& best = p.memcpy->points.back();
    row("host memcpy traffic, " + std::to_string(best.threads) + " threads", best.traffic.value(),
        to_string(best.traffic), node ? std::optional<double>(node->host_dram_bandwidth.value()) : std::nullopt,
        node ? to_string(node->host_dram_bandwidth) + " DRAM" : "");
  }
  if (p.dram_gather) {
    for (const auto& q : p.dram_gather->points)
      if (q.row_size.value() == 264.0 && q.threads == p.dram_gather->points.back().threads)
        row(std::string("DRAM gather 264 B ") + to_string(q.distribution) + ", " + std::to_string(q.threads) +
                " threads",
            q.bandwidth.value(), to_string(q.bandwidth) + " (" + g3(q.rows_per_s / 1e6) + "M rows/s)", std::nullopt,
            "");
  }
  if (p.ssd_random_read && !p.ssd_random_read->points.empty()) {
    double best = 0.0;
    int qd = 0;
    for (const auto& q : p.ssd_random_read->points)
      if (q.iops > best) {
        best = q.iops;
        qd = q.queue_depth;
      }
    row("SSD 4 KiB random read, best (QD" + std::to_string(qd) + ")", best, iops_str(best),
        node ? std::optional<double>(node->nvme.random_read_iops_4k_per_drive) : std::nullopt,
        node ? iops_str(node->nvme.random_read_iops_4k_per_drive) + " per drive" : "");
    const auto& q1 = p.ssd_random_read->points.front();
    row("SSD 4 KiB read p50 latency, QD" + std::to_string(q1.queue_depth), q1.latency.p50.seconds(),
        to_string(q1.latency.p50), node ? std::optional<double>(node->nvme.read_latency.seconds()) : std::nullopt,
        node ? to_string(node->nvme.read_latency) : "");
  }
  if (p.ssd_mmap && !p.ssd_mmap->points.empty()) {
    const auto& q = p.ssd_mmap->points.back();
    row("mmap page faults, " + std::to_string(q.threads) + " threads", q.faults_per_s,
        iops_str(q.faults_per_s) + ", p50 " + to_string(q.latency.p50), std::nullopt, "");
  }
  if (p.ssd_sequential)
    row("SSD sequential read", p.ssd_sequential->bandwidth.value(), to_string(p.ssd_sequential->bandwidth),
        node ? std::optional<double>(node->nvme.seq_read_per_drive.value()) : std::nullopt,
        node ? to_string(node->nvme.seq_read_per_drive) + " per drive" : "");
}

// GPU rows: HBM, host link, gathers, GEMM, decode attention and peer copies against the GPU preset.
void gpu_comparison_rows(const CalibrationProfile& p, const std::optional<NodeSpec>& node,
                         const std::optional<GpuSpec>& gpu, const RowFn& row) {
  if (p.hbm)
    row("HBM copy traffic", p.hbm->copy_traffic.value(), to_string(p.hbm->copy_traffic),
        gpu ? std::optional<double>(gpu->hbm_bandwidth.value()) : std::nullopt,
        gpu ? to_string(gpu->hbm_bandwidth) : "");
  if (p.host_link) {
    row("H2D bandwidth (fit beta)", p.host_link->h2d_fit.beta.value(), to_string(p.host_link->h2d_fit.beta),
        gpu ? std::optional<double>(gpu->host_link_bandwidth.value()) : std::nullopt,
        gpu ? to_string(gpu->host_link_bandwidth) : "");
    row("D2H bandwidth (fit beta)", p.host_link->d2h_fit.beta.value(), to_string(p.host_link->d2h_fit.beta),
        gpu ? std::optional<double>(gpu->host_link_bandwidth.value()) : std::nullopt,
        gpu ? to_string(gpu->host_link_bandwidth) : "");
    row("H2D fixed cost (fit alpha)", p.host_link->h2d_fit.alpha.seconds(), to_string(p.host_link->h2d_fit.alpha),
        node ? std::optional<double>(node->host_link_latency.seconds()) : std::nullopt,
        node ? to_string(node->host_link_latency) + " link latency" : "");
  }
  for (const auto* sec : {&p.hbm_gather, &p.uva_gather, &p.staged_gather}) {
    if (!*sec) continue;
    const char* name = sec == &p.hbm_gather ? "HBM" : sec == &p.uva_gather ? "UVA zero-copy" : "staged";
    for (const auto& c : (*sec)->curves)
      if (c.row_size.value() == 264.0 && c.distribution == IndexDistribution::uniform)
        row(std::string(name) + " gather 264 B uniform (beta)", c.fit.beta.value(),
            to_string(c.fit.beta) + " + " + to_string(c.fit.alpha) + "/batch", std::nullopt, "");
  }
  if (p.gemm) {
    for (const Precision pr : {Precision::bf16, Precision::fp8}) {
      double best = 0.0;
      for (const auto& q : p.gemm->points)
        if (q.precision == pr) best = std::max(best, q.achieved.value());
      if (best <= 0.0) continue;
      std::optional<double> peak;
      std::string peak_text;
      if (gpu) {
        if (auto it = gpu->dense_flops.find(pr); it != gpu->dense_flops.end()) {
          peak = it->second.value();
          peak_text = to_string(it->second);
        }
      }
      row(std::string("GEMM best ") + (pr == Precision::bf16 ? "bf16" : "fp8"), best, to_string(FlopRate(best)), peak,
          peak_text);
    }
  }
  if (p.attention_decode) {
    double best = 0.0;
    for (const auto& q : p.attention_decode->points) best = std::max(best, q.bandwidth.value());
    row("decode attention proxy, best KV read", best, to_string(Bandwidth(best)),
        gpu ? std::optional<double>(gpu->hbm_bandwidth.value()) : std::nullopt,
        gpu ? to_string(gpu->hbm_bandwidth) : "");
  }
  if (p.collectives)
    row("P2P copy (fit beta)", p.collectives->p2p_fit.beta.value(), to_string(p.collectives->p2p_fit.beta),
        gpu ? std::optional<double>(gpu->scale_up_bandwidth.value() / 2) : std::nullopt,
        gpu ? to_string(gpu->scale_up_bandwidth / 2.0) + " per direction" : "");
}

// Rows of the closing table: what was measured, and the preset's datasheet value where one is given.
void comparison_table(const CalibrationProfile& p, const std::optional<NodeSpec>& node,
                      const std::optional<GpuSpec>& gpu, std::ostream& os) {
  TextTable t({"QUANTITY", "MEASURED", "PRESET", "MEASURED/PRESET"});
  const RowFn row = [&](const std::string& what, double measured, const std::string& measured_text,
                        std::optional<double> preset, const std::string& preset_text) {
    t.add_row({what, measured_text, preset ? preset_text : "-", preset && *preset > 0 ? g3(measured / *preset) : "-"});
  };
  host_comparison_rows(p, node, row);
  gpu_comparison_rows(p, node, gpu, row);
  os << t.render();
}

calibration::CalibrationOptions options_from(const CalibrateArgs& a) {
  calibration::CalibrationOptions o;
  o.quick = a.quick;
  if (a.only_given && a.only.empty()) bad("--only", "names no benchmark (leave the flag out to run them all)");
  o.sections = calibration::resolve_benchmark_list(a.only);
  o.ssd_path = a.ssd_path;
  if (!a.ssd_size.empty()) o.ssd_size = size_option("--ssd-size", a.ssd_size);
  if (!a.dram_table_size.empty()) o.dram_table_size = size_option("--dram-table-size", a.dram_table_size);
  if (!a.gpu_table_size.empty()) o.gpu_table_size = size_option("--gpu-table-size", a.gpu_table_size);
  if (a.threads < 0) bad("--threads", "must be >= 1 (or 0 for all CPUs)");
  o.threads = a.threads;
  if (!(a.zipf_s > 0.0)) bad("--zipf-exponent", "must be > 0");
  o.zipf_exponent = a.zipf_s;
  o.seed = a.seed;
  if (a.device < 0) bad("--device", "must be >= 0");
  o.gpu_device = a.device;
  if (!a.gemm_shapes.empty()) o.gemm_shapes = parse_shapes(a.gemm_shapes);
  o.name = a.name;
  o.command_line = a.command_line;

  return o;
}

// Checked before any benchmark: the SSD scratch file fits where it goes (with 1 GiB to spare), and
// --out may replace an earlier profile, never a folder or another file.
void check_destinations(const CalibrateArgs& a, const calibration::CalibrationOptions& o) {
  namespace fs = std::filesystem;
  const bool ssd =
      o.sections.count("ssd_random_read") || o.sections.count("ssd_mmap") || o.sections.count("ssd_sequential");
  if (ssd && (a.ssd_path.empty() || fs::is_directory(a.ssd_path))) {
    std::error_code ec;
    const fs::space_info space = fs::space(a.ssd_path.empty() ? fs::temp_directory_path(ec) : fs::path(a.ssd_path), ec);
    const std::uint64_t need = calibration::ssd_scratch_bytes(o);
    if (!ec && space.available < need + (std::uint64_t{1} << 30))
      bad("--ssd-size", "the " + std::to_string(need >> 20) + " MiB scratch file does not fit: " +
                            std::to_string(space.available >> 20) + " MiB free there (1 GiB kept spare)");
  }
  const fs::path out(a.out);
  const fs::path out_dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(out_dir)) bad("--out", "folder \"" + out_dir.string() + "\" does not exist");
  if (fs::is_directory(out)) bad("--out", "\"" + a.out + "\" is a folder; give the profile's file name");
  if (fs::exists(out)) {
    std::ifstream existing(out);
    std::string line;
    bool profile = false;
    for (int i = 0; i < 20 && std::getline(existing, line); ++i)
      profile = profile || line.rfind("schema: engramsim-calibration/", 0) == 0;
    if (!profile) bad("--out", "\"" + a.out + "\" exists and is not a calibration profile; it is left as it is");
  }
}

int run_calibrate(const CalibrateArgs& a) {
  const calibration::CalibrationOptions o = options_from(a);
  check_destinations(a, o);
  std::optional<NodeSpec> node;
  std::optional<GpuSpec> gpu;
  if (!a.node.empty()) {
    node = load_node(a.node);
    gpu = node->gpu;
  }
  if (!a.gpu.empty()) gpu = load_gpu(a.gpu);

  std::cout << "engramsim calibrate" << (o.quick ? " --quick" : "") << ": measuring";
  for (const auto& s : o.sections) std::cout << " " << s;
  std::cout << std::endl;
  const auto start = std::chrono::steady_clock::now();
  const calibration::Progress progress = [&](const std::string& section, const std::string& what) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%6.1fs] ",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::cout << stamp << section << ": " << what << std::endl;
  };

  calibration::CalibrationRun run;
  run.profile.name = a.name;
  calibration::run_host_benchmarks(o, run, progress);
  calibration::run_gpu_benchmarks(o, run, progress);
  calibration::fill_provenance(o, calibration::probe_gpu_environment(), run);

  bool any = false;
  for (const auto& n : calibration_section_names()) any = any || has_section_data(run.profile, n);
  std::cout << "\n";
  TextTable sections({"SECTION", "STATE", "DETAIL"});
  for (const auto& d : describe_sections(run.profile)) sections.add_row({d.name, to_string(d.state), d.detail});
  std::cout << sections.render() << "\n";
  if (!any) {
    std::cerr << "error: nothing could be measured; no profile written\n";
    for (const auto& f : run.failures) std::cerr << "  failed: " << f << "\n";
    return exit_code::failure;
  }
  calibration::write_calibration_run(run, a.out);
  comparison_table(run.profile, node, gpu, std::cout);
  if (gpu) {
    const ProfileMatch m = check_profile_matches(run.profile, gpu->name);
    if (m.severity != MatchSeverity::ok) std::cout << "note: " << m.message << "\n";
  }
  for (const auto& w : run.warnings) std::cout << "warning: " << w << "\n";
  std::cout << "\nwrote " << a.out << " and " << calibration::samples_path_for(a.out) << " in "
            << g3(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) << " s\n";
  if (!run.failures.empty()) {
    for (const auto& f : run.failures) std::cerr << "error: " << f << "\n";
    return exit_code::failure;
  }
  return exit_code::ok;
}

}  // namespace

void add_calibrate_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure this machine (DRAM gathers, SSD reads, memcpy; GPU kernels when present) and write a profile");
  auto a = std::make_shared<CalibrateArgs>();
  cmd->add_flag("--quick", a->quick, "Smaller sizes and fewer points (under a minute on a small machine)");
  cmd->add_option("--only", a->only, "Comma-separated benchmarks: " + calibration::benchmark_list_help());
  cmd->add_option("--ssd-path", a->ssd_path,
                  "File to read (never written) or folder for a scratch file (default: the system temp folder)");
  cmd->add_option("--ssd-size", a->ssd_size, "Scratch file size, e.g. 4GiB (default 2GiB, 256MiB with --quick)");
  cmd->add_option("--dram-table-size", a->dram_table_size,
                  "DRAM gather table size (default: well above the last-level cache)");
  cmd->add_option("--gpu-table-size", a->gpu_table_size, "GPU gather table size (HBM and pinned host)");
  cmd->add_option("--threads", a->threads, "CPU threads (default: all online CPUs)");
  cmd->add_option("--out", a->out, "Profile to write; samples go beside it as NAME.samples.csv")->capture_default_str();
  cmd->add_option("--name", a->name, "Profile name (default: the host name)");
  cmd->add_option("--node", a->node, "Node preset to compare against (catalog name or path)");
  cmd->add_option("--gpu", a->gpu, "GPU preset to compare against (default: the node's GPU)");
  cmd->add_option("--zipf-exponent", a->zipf_s,
                  "Zipf exponent of the skewed index stream (the profile's zipf_exponent)")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the index streams and check positions")->capture_default_str();
  cmd->add_option("--device", a->device, "CUDA device ordinal")->capture_default_str();
  cmd->add_option("--gemm-shapes", a->gemm_shapes, "GEMM shapes MxNxK,... (default: the catalog models' projections)");
  cmd->callback([&action, a, cmd] {
    std::string line = "engramsim calibrate";
    for (const auto& opt : cmd->get_options()) {
      if (opt->get_name() == "--help" || opt->count() == 0) continue;
      line += " " + opt->get_name();
      if (opt->get_expected_max() > 0)
        for (const auto& r : opt->results()) line += " " + r;
    }
    a->command_line = line;
    a->only_given = cmd->get_option("--only")->count() > 0;
    action = [a] { return run_calibrate(*a); };
  });
}

}  // namespace engramsim::cli
