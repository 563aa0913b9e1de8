// GPU benchmarks -> profile sections: hbm, hbm_gather, host_link, uva_gather, staged_gather, gemm,
// attention_decode, kernel_launch, collectives. Each section's medians go into the profile, every timed
// repetition into the samples, and the affine fits (fit.hpp) into its curves.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "calibration/calibration_runner.hpp"
#include "calibration/fit.hpp"
#include "calibration/host_info.hpp"
#include "calibration/rank_scatter.hpp"
#include "calibration/stats.hpp"
#include "core/rng.hpp"
#include "core/zipf_sampler.hpp"

namespace engramsim::calibration {
namespace {

constexpr std::uint64_t KiB = 1ull << 10;
constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;

bool wanted(const CalibrationOptions& o, const char* s) { return o.sections.count(s) > 0; }

std::vector<std::uint64_t> geometric(std::uint64_t lo, std::uint64_t hi, std::uint64_t factor) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t x = lo; x <= hi; x *= factor) v.push_back(x);
  return v;
}

std::vector<TransferPoint> transfer_points(const std::vector<TimedSize>& t) {
  std::vector<TransferPoint> out;
  for (const auto& s : t) out.push_back({Bytes(static_cast<double>(s.bytes)), Time::from_seconds(median(s.seconds))});
  return out;
}

AlphaBeta fit_transfers(const std::vector<TimedSize>& t) {
  std::vector<double> x, y;
  for (const auto& s : t) {
    x.push_back(static_cast<double>(s.bytes));
    y.push_back(median(s.seconds));
  }
  return fit_alpha_beta(x, y);
}

void log_sizes(SampleLog& log, const std::string& section, const std::string& case_name,
               const std::vector<TimedSize>& t) {
  for (const auto& s : t)
    for (const double sec : s.seconds)
      log.add(section, case_name, "bytes", static_cast<double>(s.bytes), "seconds", sec);
}

// Index pools for the gather cases: 2 x the largest batch (+ slack) per (row size, distribution),
// drawn on the host with the same samplers as the DRAM benchmark.
std::vector<GpuGatherCase> gather_cases(const std::vector<std::uint32_t>& rows,
                                        const std::vector<std::uint64_t>& batches, std::uint64_t table_bytes,
                                        double zipf_s, std::uint64_t seed, const char* tag) {
  std::vector<GpuGatherCase> out;
  const std::uint64_t pool = 2 * *std::max_element(batches.begin(), batches.end()) + 4096;
  for (const std::uint32_t row : rows) {
    const std::uint64_t n = table_bytes / row;
    for (const IndexDistribution d : {IndexDistribution::uniform, IndexDistribution::zipf}) {
      GpuGatherCase c;
      c.row_bytes = row;
      c.distribution = d;
      c.batch_rows = batches;
      c.indices.resize(pool);
      RngStream rng(seed, std::string(tag) + "/" + to_string(d) + "/" + std::to_string(row));
      if (d == IndexDistribution::uniform) {
        for (auto& i : c.indices) i = static_cast<std::uint64_t>(rng.uniform_int(0, static_cast<std::int64_t>(n) - 1));
      } else {
        const ZipfSampler z(static_cast<std::int64_t>(n), zipf_s);
        const RankScatter sc(n);
        for (auto& i : c.indices) i = sc(static_cast<std::uint64_t>(z.sample(rng) - 1));
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

GpuGatherSection gather_section(const std::vector<GpuGatherPoint>& pts, std::uint64_t table_bytes, double zipf_s,
                                const std::string& reference, double reference_bw, double reference_factor,
                                SampleLog& log, const char* section) {
  GpuGatherSection s;
  s.table_size = Bytes(static_cast<double>(table_bytes));
  s.zipf_exponent = zipf_s;
  s.reference = reference;
  std::map<std::pair<std::uint32_t, int>, std::pair<std::vector<double>, std::vector<double>>> curves;
  for (const auto& p : pts) {
    const double med = median(p.seconds);
    const double payload = static_cast<double>(p.rows) * p.row_bytes;
    const std::string case_name = "row=" + std::to_string(p.row_bytes) + "B dist=" + to_string(p.distribution);
    for (const double sec : p.seconds) log.add(section, case_name, "rows", static_cast<double>(p.rows), "seconds", sec);
    s.points.push_back({Bytes(p.row_bytes), p.distribution, static_cast<std::int64_t>(p.rows), Time::from_seconds(med),
                        Bandwidth(payload / med)});
    auto& c = curves[{p.row_bytes, static_cast<int>(p.distribution)}];
    c.first.push_back(payload);
    c.second.push_back(med);
  }
  for (const auto& [key, xy] : curves) {
    if (xy.first.size() < 2) continue;
    GpuGatherCurve c;
    c.row_size = Bytes(key.first);
    c.distribution = static_cast<IndexDistribution>(key.second);
    c.fit = fit_alpha_beta(xy.first, xy.second);
    c.efficiency = std::clamp(reference_factor * c.fit.beta.value() / reference_bw, 1e-6, 4.0);
    s.curves.push_back(c);
  }
  return s;
}

template <class F>
void guarded(const char* section, CalibrationRun& run, F body) {
  try {
    body();
  } catch (const GpuCorrectnessError& e) {
    // A wrong result fails the run (exit 1) and its section gets no number; the other sections
    // still run, so one device session yields everything that is right.
    run.failures.push_back(std::string("CORRECTNESS FAILURE in ") + section + ": " + e.what());
    run.profile.not_measured[section] = std::string("correctness check failed: ") + e.what();
  } catch (const std::exception& e) {
    run.failures.push_back(std::string(section) + ": " + e.what());
    run.profile.not_measured[section] = std::string("failed: ") + e.what();
  }
}

// What every GPU section's measurement reads: the options, the run it fills, the device, and the
// references measured first (gathers and attention are reported as shares of the copy and link rates).
struct GpuSections {
  const CalibrationOptions& o;
  CalibrationRun& run;
  const Progress& progress;
  const GpuDeviceInfo& dev;
  GpuBenchConfig cfg;
  bool quick = false;
  std::vector<std::uint32_t> rows;  // gather row sizes
  double hbm_copy_traffic = 0.0;    // set by hbm
  double h2d_beta = 0.0;            // set by host_link
  std::uint64_t host_table = 0;
  std::vector<std::uint64_t> host_batches;
};

void measure_hbm(GpuSections& g) {
  g.progress("hbm", "device-to-device copies");
  const auto sizes =
      g.quick ? std::vector<std::uint64_t>{64 * MiB, 256 * MiB, 1 * GiB} : geometric(16 * MiB, 4 * GiB, 4);
  const auto r = gpu_hbm_copy(g.cfg, sizes);
  log_sizes(g.run.samples, "hbm", "d2d_copy", r);
  HbmSection h;
  for (const auto& s : r) {
    const double traffic = 2.0 * static_cast<double>(s.bytes) / median(s.seconds);
    if (traffic > g.hbm_copy_traffic) {
      g.hbm_copy_traffic = traffic;
      h.buffer_size = Bytes(static_cast<double>(s.bytes));
    }
  }
  h.copy_traffic = Bandwidth(g.hbm_copy_traffic);
  g.run.profile.hbm = h;
}

void measure_host_link(GpuSections& g) {
  g.progress("host_link", "pinned H2D / D2H copies");
  const auto sizes = g.quick ? std::vector<std::uint64_t>{4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 64 * MiB}
                             : geometric(4 * KiB, 256 * MiB, 4);
  const auto r = gpu_host_link(g.cfg, sizes);
  log_sizes(g.run.samples, "host_link", "h2d", r.h2d);
  log_sizes(g.run.samples, "host_link", "d2h", r.d2h);
  HostLinkSection h;
  h.h2d = transfer_points(r.h2d);
  h.d2h = transfer_points(r.d2h);
  h.h2d_fit = fit_transfers(r.h2d);
  h.d2h_fit = fit_transfers(r.d2h);
  g.h2d_beta = h.h2d_fit.beta.value();
  g.run.profile.host_link = h;
}

void measure_hbm_gather(GpuSections& g) {
  const std::uint64_t table =
      g.o.gpu_table_size.value_or(std::min<std::uint64_t>(g.quick ? 2 * GiB : 8 * GiB, g.dev.memory_bytes / 4));
  const auto batches = g.quick ? std::vector<std::uint64_t>{1024, 16384, 262144}
                               : std::vector<std::uint64_t>{256, 1024, 4096, 16384, 65536, 262144, 1048576};
  g.progress("hbm_gather", std::to_string(table / MiB) + " MiB table in HBM");
  const auto cases = gather_cases(g.rows, batches, table, g.o.zipf_exponent, g.o.seed, "hbm_gather");
  const auto pts = gpu_gather(g.cfg, GatherSource::hbm, table, cases, 1);
  g.run.profile.hbm_gather =
      gather_section(pts, table, g.o.zipf_exponent, "2 x beta / hbm.copy_traffic (a gather reads and writes each row)",
                     g.hbm_copy_traffic, 2.0, g.run.samples, "hbm_gather");
}

void measure_uva_gather(GpuSections& g) {
  g.progress("uva_gather", std::to_string(g.host_table / MiB) + " MiB pinned host table, zero-copy kernel");
  const auto cases = gather_cases(g.rows, g.host_batches, g.host_table, g.o.zipf_exponent, g.o.seed, "uva_gather");
  const auto pts = gpu_gather(g.cfg, GatherSource::uva, g.host_table, cases, 1);
  g.run.profile.uva_gather = gather_section(pts, g.host_table, g.o.zipf_exponent, "beta / host_link.h2d_fit.beta",
                                            g.h2d_beta, 1.0, g.run.samples, "uva_gather");
}

void measure_staged_gather(GpuSections& g) {
  const int threads = std::clamp(g.o.threads > 0 ? g.o.threads : online_cpus(), 1, 16);
  g.progress("staged_gather", std::to_string(g.host_table / MiB) + " MiB pinned host table, " +
                                  std::to_string(threads) + " CPU threads + H2D copy");
  const auto cases = gather_cases(g.rows, g.host_batches, g.host_table, g.o.zipf_exponent, g.o.seed, "staged_gather");
  const auto pts = gpu_gather(g.cfg, GatherSource::staged, g.host_table, cases, threads);
  g.run.profile.staged_gather = gather_section(pts, g.host_table, g.o.zipf_exponent, "beta / host_link.h2d_fit.beta",
                                               g.h2d_beta, 1.0, g.run.samples, "staged_gather");
}

void measure_gemm(GpuSections& g) {
  const auto shapes = g.o.gemm_shapes.empty() ? default_gemm_shapes(g.quick) : g.o.gemm_shapes;
  g.progress("gemm", std::to_string(shapes.size()) + " shapes, bf16 and fp8 through cuBLASLt");
  const auto r = gpu_gemm(g.cfg, shapes, {Precision::bf16, Precision::fp8});
  for (const auto& s : r.skipped) g.run.warnings.push_back("gemm: skipped " + s);
  if (r.points.empty()) throw std::runtime_error("no GEMM shape ran");
  GemmSection gs;
  gs.library = r.library;
  std::map<std::tuple<int, std::int64_t, std::int64_t>, std::pair<std::vector<double>, std::vector<double>>> fits;
  for (const auto& p : r.points) {
    const double med = median(p.seconds);
    const double flops =
        2.0 * static_cast<double>(p.shape.m) * static_cast<double>(p.shape.n) * static_cast<double>(p.shape.k);
    const std::string case_name =
        std::string(to_string(p.precision)) + " n=" + std::to_string(p.shape.n) + " k=" + std::to_string(p.shape.k);
    for (const double sec : p.seconds)
      g.run.samples.add("gemm", case_name, "m", static_cast<double>(p.shape.m), "seconds", sec);
    g.run.samples.add("gemm", case_name, "m", static_cast<double>(p.shape.m), "relative_error", p.relative_error);
    gs.points.push_back({p.precision, p.shape.m, p.shape.n, p.shape.k, Time::from_seconds(med), FlopRate(flops / med)});
    auto& f = fits[{static_cast<int>(p.precision), p.shape.n, p.shape.k}];
    f.first.push_back(flops);
    f.second.push_back(med);
  }
  for (const auto& [key, xy] : fits) {
    if (xy.first.size() < 2) continue;
    const auto f = fit_overhead_rate(xy.first, xy.second);
    gs.fits.push_back({static_cast<Precision>(std::get<0>(key)), std::get<1>(key), std::get<2>(key), f.overhead, f.rate,
                       f.rms_relative_residual, f.max_relative_residual, f.samples});
  }
  g.run.profile.gemm = gs;
}

void measure_attention_decode(GpuSections& g) {
  const std::vector<AttentionCase> cases =
      g.quick ? std::vector<AttentionCase>{{32, 1024}, {32, 8192}, {8, 32768}}
              : std::vector<AttentionCase>{{64, 512}, {64, 2048}, {64, 8192}, {32, 32768}, {8, 131072}};
  g.progress("attention_decode", std::to_string(cases.size()) + " (batch, context) cases");
  const auto r = gpu_attention_decode(g.cfg, cases, 8);
  AttentionDecodeSection a;
  a.kernel = r.kernel;
  a.kv_heads = r.kv_heads;
  a.q_heads_per_kv = r.q_heads_per_kv;
  a.head_dim = r.head_dim;
  for (const auto& p : r.points) {
    const double med = median(p.seconds);
    const std::string case_name = "batch=" + std::to_string(p.c.batch);
    for (const double sec : p.seconds)
      g.run.samples.add("attention_decode", case_name, "context", static_cast<double>(p.c.context), "seconds", sec);
    const double bw = static_cast<double>(p.kv_bytes) / med;
    a.points.push_back({p.c.batch, p.c.context, Bytes(static_cast<double>(p.kv_bytes)), Time::from_seconds(med),
                        Bandwidth(bw), std::clamp(bw / g.hbm_copy_traffic, 1e-6, 4.0)});
  }
  g.run.profile.attention_decode = a;
}

void measure_kernel_launch(GpuSections& g) {
  constexpr int kKernels = 200;
  constexpr std::uint32_t kRowFloats = 4096;  // 16 KiB, about one token's hidden row
  g.progress("kernel_launch", "CUDA graphs of " + std::to_string(kKernels) + " empty and tiny kernels");
  const auto r = gpu_kernel_launch(g.cfg, kKernels, kRowFloats);
  for (const double sec : r.empty_seconds)
    g.run.samples.add("kernel_launch", "empty", "kernels", kKernels, "seconds", sec);
  for (const double sec : r.tiny_seconds)
    g.run.samples.add("kernel_launch", "tiny", "kernels", kKernels, "seconds", sec);
  KernelLaunchSection k;
  k.kernels_per_graph = r.kernels;
  k.row_size = Bytes(4.0 * r.row_floats);
  k.empty_kernel = Time::from_seconds(median(r.empty_seconds) / r.kernels);
  k.tiny_kernel = Time::from_seconds(median(r.tiny_seconds) / r.kernels);
  g.run.profile.kernel_launch = k;
}

void measure_collectives(GpuSections& g) {
  g.progress("collectives", "P2P copies and ring all-reduce");
  const auto sizes =
      g.quick ? std::vector<std::uint64_t>{64 * KiB, 1 * MiB, 16 * MiB, 64 * MiB} : geometric(4 * KiB, 256 * MiB, 4);
  const auto r = gpu_collectives(g.cfg, sizes);
  if (!r.measured) {
    g.run.profile.not_measured["collectives"] = r.reason;
    return;
  }
  log_sizes(g.run.samples, "collectives", "p2p", r.p2p);
  log_sizes(g.run.samples, "collectives", "all_reduce", r.all_reduce);
  CollectivesSection c;
  c.gpus = r.gpus;
  c.all_reduce_algorithm = r.all_reduce_algorithm;
  c.p2p = transfer_points(r.p2p);
  c.all_reduce = transfer_points(r.all_reduce);
  c.p2p_fit = fit_transfers(r.p2p);
  c.all_reduce_fit = fit_transfers(r.all_reduce);
  for (const auto& pair : r.pairs) {
    for (const double sec : pair.seconds)
      g.run.samples.add("collectives", "p2p src=" + std::to_string(pair.src) + " dst=" + std::to_string(pair.dst),
                        "bytes", static_cast<double>(pair.bytes), "seconds", sec);
    c.p2p_pairs.push_back({pair.src, pair.dst, Bytes(static_cast<double>(pair.bytes)),
                           Bandwidth(static_cast<double>(pair.bytes) / median(pair.seconds))});
  }
  g.run.profile.collectives = c;
}

// The device to measure, or null with every asked section marked not measured (no GPU, no such
// device).
const GpuDeviceInfo* pick_device(const GpuEnvironment& env, const CalibrationOptions& o,
                                 const std::vector<std::string>& asked, CalibrationRun& run) {
  if (env.available && o.gpu_device < static_cast<int>(env.devices.size()))
    return &env.devices[static_cast<std::size_t>(o.gpu_device)];
  const std::string why = !env.available ? env.reason
                                         : "no CUDA device " + std::to_string(o.gpu_device) + " (found " +
                                               std::to_string(env.devices.size()) + ")";
  for (const auto& n : asked) run.profile.not_measured[n] = why;
  return nullptr;
}

}  // namespace

void run_gpu_benchmarks(const CalibrationOptions& o, CalibrationRun& run, const Progress& progress) {
  std::vector<std::string> asked;
  for (const auto& n : calibration_section_names())
    if (is_gpu_section(n) && wanted(o, n.c_str())) asked.push_back(n);
  if (asked.empty()) return;
  const GpuEnvironment env = probe_gpu_environment();
  const GpuDeviceInfo* dev = pick_device(env, o, asked, run);
  if (dev == nullptr) return;
  progress("gpu", dev->name + ", " + std::to_string(dev->sm_count) + " SMs, " +
                      std::to_string(dev->memory_bytes / GiB) + " GiB, driver " + env.driver_version +
                      ", CUDA runtime " + env.runtime_version);
  GpuSections g{o, run, progress, *dev};
  g.cfg.device = o.gpu_device;
  g.cfg.seed = o.seed;
  g.cfg.warmup = 2;
  g.cfg.repetitions = o.quick ? 5 : 15;
  g.quick = o.quick;
  g.rows = o.quick ? std::vector<std::uint32_t>{64, 264, 1024, 4096}
                   : std::vector<std::uint32_t>{64, 128, 256, 264, 512, 1024, 2048, 4096};
  g.host_table = o.gpu_table_size.value_or(o.quick ? 1 * GiB : 4 * GiB);
  g.host_batches = o.quick ? std::vector<std::uint64_t>{1024, 16384, 131072}
                           : std::vector<std::uint64_t>{256, 1024, 4096, 16384, 65536, 262144};
  // References first: gathers and attention are reported as shares of the copy and link rates.
  if (wanted(o, "hbm") || wanted(o, "hbm_gather") || wanted(o, "attention_decode"))
    guarded("hbm", run, [&] { measure_hbm(g); });
  if (wanted(o, "host_link") || wanted(o, "uva_gather") || wanted(o, "staged_gather"))
    guarded("host_link", run, [&] { measure_host_link(g); });
  if (wanted(o, "hbm_gather") && g.hbm_copy_traffic > 0.0) guarded("hbm_gather", run, [&] { measure_hbm_gather(g); });
  if (wanted(o, "uva_gather") && g.h2d_beta > 0.0) guarded("uva_gather", run, [&] { measure_uva_gather(g); });
  if (wanted(o, "staged_gather") && g.h2d_beta > 0.0) guarded("staged_gather", run, [&] { measure_staged_gather(g); });
  if (wanted(o, "gemm")) guarded("gemm", run, [&] { measure_gemm(g); });
  if (wanted(o, "attention_decode") && g.hbm_copy_traffic > 0.0)
    guarded("attention_decode", run, [&] { measure_attention_decode(g); });
  if (wanted(o, "kernel_launch")) guarded("kernel_launch", run, [&] { measure_kernel_launch(g); });
  if (wanted(o, "collectives")) guarded("collectives", run, [&] { measure_collectives(g); });
  // A section asked for whose reference failed is not measured, with the reason.
  for (const auto& n : asked)
    if (!has_section_data(run.profile, n) && run.profile.not_measured.count(n) == 0)
      run.profile.not_measured[n] = "its reference measurement (hbm copy or host link) failed";
}

}  // namespace engramsim::calibration
