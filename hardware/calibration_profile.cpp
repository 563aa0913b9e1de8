// Calibration profile: names, rendering, atomic writing, descriptions and the GPU match rule.
// The strict loader lives in calibration_profile_loader.cpp; this file needs no YAML library so
// that the GPU calibration tool can be built on a machine with only the CUDA toolkit.
#include "hardware/calibration_profile.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/config_input.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"

namespace engramsim {

const char* to_string(IndexDistribution d) {
  switch (d) {
    case IndexDistribution::uniform: return "uniform";
    case IndexDistribution::zipf: return "zipf";
  }
  return "uniform";
}

std::optional<IndexDistribution> index_distribution_from_string(const std::string& s) {
  if (s == "uniform") return IndexDistribution::uniform;
  if (s == "zipf") return IndexDistribution::zipf;
  return std::nullopt;
}

const char* to_string(SectionState s) {
  switch (s) {
    case SectionState::measured: return "measured";
    case SectionState::not_measured: return "not measured";
    case SectionState::default_value: return "default";
  }
  return "default";
}

const std::vector<std::string>& calibration_section_names() {
  static const std::vector<std::string> names = {
      "memcpy",     "dram_gather", "ssd_random_read", "ssd_mmap",      "ssd_sequential",
      "hbm",        "hbm_gather",  "host_link",       "uva_gather",    "staged_gather",
      "gemm",       "attention_decode", "kernel_launch", "collectives"};
  return names;
}

bool is_gpu_section(const std::string& name) {
  return name == "hbm" || name == "hbm_gather" || name == "host_link" || name == "uva_gather" ||
         name == "staged_gather" || name == "gemm" || name == "attention_decode" || name == "kernel_launch" ||
         name == "collectives";
}

bool has_section_data(const CalibrationProfile& p, const std::string& n) {
  if (n == "memcpy") return p.memcpy.has_value();
  if (n == "dram_gather") return p.dram_gather.has_value();
  if (n == "ssd_random_read") return p.ssd_random_read.has_value();
  if (n == "ssd_mmap") return p.ssd_mmap.has_value();
  if (n == "ssd_sequential") return p.ssd_sequential.has_value();
  if (n == "hbm") return p.hbm.has_value();
  if (n == "hbm_gather") return p.hbm_gather.has_value();
  if (n == "host_link") return p.host_link.has_value();
  if (n == "uva_gather") return p.uva_gather.has_value();
  if (n == "staged_gather") return p.staged_gather.has_value();
  if (n == "gemm") return p.gemm.has_value();
  if (n == "attention_decode") return p.attention_decode.has_value();
  if (n == "kernel_launch") return p.kernel_launch.has_value();
  if (n == "collectives") return p.collectives.has_value();
  return false;
}

// ---------------------------------------------------------------------------------------------
// Rendering. Six significant digits: far below measurement noise, and reproducible across
// platforms (printf rounding is exact for these magnitudes).
namespace {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp4: return "fp4";
    case Precision::fp8: return "fp8";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp32: return "fp32";
  }
  return "bf16";
}

std::string g6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string bytes_str(Bytes b) {
  const double v = b.value();
  const double r = std::round(v);
  if (r == v && v >= 1.0 && v < 9.0e15) {
    const auto i = static_cast<long long>(r);
    constexpr long long k = 1024;
    if (i % (k * k * k) == 0) return std::to_string(i / (k * k * k)) + "GiB";
    if (i % (k * k) == 0) return std::to_string(i / (k * k)) + "MiB";
    if (i % k == 0) return std::to_string(i / k) + "KiB";
    return std::to_string(i) + "B";
  }
  return g6(v) + "B";
}

std::string time_str(Time t) {
  const double ns = static_cast<double>(t.count_ns());
  if (ns < 1e3) return std::to_string(t.count_ns()) + "ns";
  if (ns < 1e6) return g6(ns * 1e-3) + "us";
  if (ns < 1e9) return g6(ns * 1e-6) + "ms";
  return g6(ns * 1e-9) + "s";
}

std::string bw_str(Bandwidth b) {
  const double v = b.value();
  if (v >= 1e12) return g6(v * 1e-12) + "TB/s";
  if (v >= 1e9) return g6(v * 1e-9) + "GB/s";
  if (v >= 1e6) return g6(v * 1e-6) + "MB/s";
  return g6(v) + "B/s";
}

std::string rate_str(FlopRate r) {
  const double v = r.value();
  if (v >= 1e12) return g6(v * 1e-12) + "TFLOPS";
  return g6(v * 1e-9) + "GFLOPS";
}

// YAML double-quoted scalar.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

std::string percentiles(const LatencyPercentiles& l) {
  return "p50: " + time_str(l.p50) + ", p90: " + time_str(l.p90) + ", p99: " + time_str(l.p99);
}

std::string alpha_beta(const AlphaBeta& f) {
  return "{alpha: " + time_str(f.alpha) + ", beta: " + bw_str(f.beta) +
         ", rms_relative_residual: " + g6(f.rms_relative_residual) +
         ", max_relative_residual: " + g6(f.max_relative_residual) + ", samples: " + std::to_string(f.samples) +
         "}";
}

void transfers(std::ostringstream& os, const char* key, const std::vector<TransferPoint>& pts) {
  os << "  " << key << ":\n";
  for (const auto& t : pts) os << "    - {size: " << bytes_str(t.size) << ", time: " << time_str(t.time) << "}\n";
}

void gather_section(std::ostringstream& os, const char* key, const GpuGatherSection& s) {
  os << key << ":\n";
  os << "  table_size: " << bytes_str(s.table_size) << "\n";
  os << "  zipf_exponent: " << g6(s.zipf_exponent) << "\n";
  os << "  reference: " << quoted(s.reference) << "\n";
  os << "  points:\n";
  for (const auto& q : s.points) {
    os << "    - {row_size: " << bytes_str(q.row_size) << ", distribution: " << to_string(q.distribution)
       << ", rows: " << q.rows << ", time: " << time_str(q.time) << ", bandwidth: " << bw_str(q.bandwidth) << "}\n";
  }
  os << "  curves:" << (s.curves.empty() ? " []" : "") << "\n";
  for (const auto& c : s.curves) {
    os << "    - {row_size: " << bytes_str(c.row_size) << ", distribution: " << to_string(c.distribution)
       << ", efficiency: " << g6(c.efficiency) << ", fit: " << alpha_beta(c.fit) << "}\n";
  }
}

}  // namespace

std::string render_calibration_profile(const CalibrationProfile& p) {
  std::ostringstream os;
  os << "# engramsim calibration profile: measured on one machine. Units are in the strings;\n"
        "# schema and meaning in hardware/calibration_profile.hpp and docs/calibration.md.\n";
  os << "schema: " << kCalibrationSchema << "\n";
  os << "name: " << quoted(p.name) << "\n";
  const auto& v = p.provenance;
  os << "provenance:\n";
  os << "  host: " << quoted(v.host) << "\n";
  os << "  cpu_model: " << quoted(v.cpu_model) << "\n";
  os << "  cpu_threads: " << v.cpu_threads << "\n";
  os << "  gpu: " << quoted(v.gpu) << "\n";
  os << "  gpu_count: " << v.gpu_count << "\n";
  os << "  gpu_driver: " << quoted(v.gpu_driver) << "\n";
  os << "  cuda_runtime: " << quoted(v.cuda_runtime) << "\n";
  os << "  date: " << quoted(v.date) << "\n";
  os << "  engramsim_version: " << quoted(v.engramsim_version) << "\n";
  os << "  options: " << quoted(v.options) << "\n";
  os << "  samples_file: " << quoted(v.samples_file) << "\n";
  os << "  samples_hash: " << quoted(v.samples_hash) << "\n";
  os << "  notes: " << quoted(v.notes) << "\n";

  for (const auto& name : calibration_section_names()) {
    if (auto it = p.not_measured.find(name); it != p.not_measured.end() && !has_section_data(p, name)) {
      os << name << ":\n  not_measured: " << quoted(it->second) << "\n";
      continue;
    }
    if (name == "memcpy" && p.memcpy) {
      os << "memcpy:\n  buffer_size: " << bytes_str(p.memcpy->buffer_size) << "\n  points:\n";
      for (const auto& q : p.memcpy->points)
        os << "    - {threads: " << q.threads << ", traffic: " << bw_str(q.traffic) << "}\n";
    } else if (name == "dram_gather" && p.dram_gather) {
      const auto& s = *p.dram_gather;
      os << "dram_gather:\n  table_size: " << bytes_str(s.table_size) << "\n  zipf_exponent: " << g6(s.zipf_exponent)
         << "\n  points:\n";
      for (const auto& q : s.points)
        os << "    - {row_size: " << bytes_str(q.row_size) << ", distribution: " << to_string(q.distribution)
           << ", threads: " << q.threads << ", rows_per_s: " << g6(q.rows_per_s) << ", bandwidth: " << bw_str(q.bandwidth)
           << "}\n";
    } else if (name == "ssd_random_read" && p.ssd_random_read) {
      const auto& s = *p.ssd_random_read;
      os << "ssd_random_read:\n  engine: " << quoted(s.engine) << "\n  block_size: " << bytes_str(s.block_size)
         << "\n  file_size: " << bytes_str(s.file_size) << "\n  points:\n";
      for (const auto& q : s.points)
        os << "    - {queue_depth: " << q.queue_depth << ", iops: " << g6(q.iops) << ", " << percentiles(q.latency)
           << "}\n";
    } else if (name == "ssd_mmap" && p.ssd_mmap) {
      const auto& s = *p.ssd_mmap;
      os << "ssd_mmap:\n  page_size: " << bytes_str(s.page_size) << "\n  file_size: " << bytes_str(s.file_size)
         << "\n  points:\n";
      for (const auto& q : s.points)
        os << "    - {threads: " << q.threads << ", faults_per_s: " << g6(q.faults_per_s) << ", "
           << percentiles(q.latency) << "}\n";
    } else if (name == "ssd_sequential" && p.ssd_sequential) {
      const auto& s = *p.ssd_sequential;
      os << "ssd_sequential:\n  engine: " << quoted(s.engine) << "\n  block_size: " << bytes_str(s.block_size)
         << "\n  queue_depth: " << s.queue_depth << "\n  bandwidth: " << bw_str(s.bandwidth) << "\n";
    } else if (name == "hbm" && p.hbm) {
      os << "hbm:\n  buffer_size: " << bytes_str(p.hbm->buffer_size) << "\n  copy_traffic: " << bw_str(p.hbm->copy_traffic)
         << "\n";
    } else if (name == "hbm_gather" && p.hbm_gather) {
      gather_section(os, "hbm_gather", *p.hbm_gather);
    } else if (name == "host_link" && p.host_link) {
      const auto& s = *p.host_link;
      os << "host_link:\n";
      os << "  h2d_fit: " << alpha_beta(s.h2d_fit) << "\n";
      os << "  d2h_fit: " << alpha_beta(s.d2h_fit) << "\n";
      transfers(os, "h2d", s.h2d);
      transfers(os, "d2h", s.d2h);
    } else if (name == "uva_gather" && p.uva_gather) {
      gather_section(os, "uva_gather", *p.uva_gather);
    } else if (name == "staged_gather" && p.staged_gather) {
      gather_section(os, "staged_gather", *p.staged_gather);
    } else if (name == "gemm" && p.gemm) {
      const auto& s = *p.gemm;
      os << "gemm:\n  library: " << quoted(s.library) << "\n  points:\n";
      for (const auto& q : s.points)
        os << "    - {precision: " << precision_name(q.precision) << ", m: " << q.m << ", n: " << q.n << ", k: " << q.k
           << ", time: " << time_str(q.time) << ", achieved: " << rate_str(q.achieved) << "}\n";
      os << "  fits:" << (s.fits.empty() ? " []" : "") << "\n";
      for (const auto& f : s.fits)
        os << "    - {precision: " << precision_name(f.precision) << ", n: " << f.n << ", k: " << f.k
           << ", overhead: " << time_str(f.overhead) << ", rate: " << rate_str(f.rate)
           << ", rms_relative_residual: " << g6(f.rms_relative_residual)
           << ", max_relative_residual: " << g6(f.max_relative_residual) << ", samples: " << f.samples << "}\n";
    } else if (name == "attention_decode" && p.attention_decode) {
      const auto& s = *p.attention_decode;
      os << "attention_decode:\n  kernel: " << quoted(s.kernel) << "\n  kv_heads: " << s.kv_heads
         << "\n  q_heads_per_kv: " << s.q_heads_per_kv << "\n  head_dim: " << s.head_dim << "\n  points:\n";
      for (const auto& q : s.points)
        os << "    - {batch: " << q.batch << ", context: " << q.context << ", kv_bytes: " << bytes_str(q.kv_bytes)
           << ", time: " << time_str(q.time) << ", bandwidth: " << bw_str(q.bandwidth)
           << ", efficiency: " << g6(q.efficiency) << "}\n";
    } else if (name == "kernel_launch" && p.kernel_launch) {
      const auto& s = *p.kernel_launch;
      os << "kernel_launch:\n  kernels_per_graph: " << s.kernels_per_graph << "\n  row_size: " << bytes_str(s.row_size)
         << "\n  empty_kernel: " << time_str(s.empty_kernel) << "\n  tiny_kernel: " << time_str(s.tiny_kernel) << "\n";
    } else if (name == "collectives" && p.collectives) {
      const auto& s = *p.collectives;
      os << "collectives:\n  gpus: " << s.gpus << "\n  all_reduce_algorithm: " << quoted(s.all_reduce_algorithm)
         << "\n  p2p_fit: " << alpha_beta(s.p2p_fit) << "\n  all_reduce_fit: " << alpha_beta(s.all_reduce_fit) << "\n";
      transfers(os, "p2p", s.p2p);
      transfers(os, "all_reduce", s.all_reduce);
      os << "  p2p_pairs:" << (s.p2p_pairs.empty() ? " []" : "") << "\n";
      for (const auto& q : s.p2p_pairs)
        os << "    - {src: " << q.src << ", dst: " << q.dst << ", size: " << bytes_str(q.size)
           << ", bandwidth: " << bw_str(q.bandwidth) << "}\n";
    }
  }
  return os.str();
}

void write_text_file_atomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".tmp-%d-%08x", static_cast<int>(::getpid()), rd());
  const fs::path tmp = dir / (target.filename().string() + suffix);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + tmp.string() + ": " + std::strerror(errno));
  const char* data = text.data();
  std::size_t left = text.size();
  bool ok = true;
  int err = 0;
  while (left > 0) {
    const ssize_t w = ::write(fd, data, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      ok = false;
      err = errno;
      break;
    }
    data += w;
    left -= static_cast<std::size_t>(w);
  }
  // Flush before the rename so that a crash leaves either the old file or the whole new one.
  if (ok && ::fsync(fd) != 0) {
    ok = false;
    err = errno;
  }
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp.string() + " to " + path + ": " + std::strerror(err));
  }
  // Make the rename itself durable; failure here leaves a valid file, so it is not an error.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_calibration_profile(const CalibrationProfile& p, const std::string& path) {
  write_text_file_atomically(path, render_calibration_profile(p));
}

std::string samples_hash_of(const std::string& bytes) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(stable_hash(bytes)));
  return buf;
}

// A samples file above this is refused rather than read (a device that never ends, a wrong path):
// a full calibration writes a few MiB.
constexpr std::size_t kMaxSamplesFileBytes = std::size_t{256} << 20;  // 256 MiB

std::string verify_samples_file(const CalibrationProfile& p, const std::string& profile_path) {
  namespace fs = std::filesystem;
  if (p.provenance.samples_file.empty()) return "the profile names no samples file";
  fs::path f(p.provenance.samples_file);
  if (f.is_relative()) f = fs::path(profile_path).parent_path() / f;
  std::string bytes;
  try {
    bytes = read_input_file(f.string(), kMaxSamplesFileBytes);
  } catch (const ConfigError& e) {
    return "samples file " + f.string() + ": " + e.message();
  }
  const std::string h = samples_hash_of(bytes);
  if (h != p.provenance.samples_hash)
    return "samples file " + f.string() + " has hash " + h + ", the profile records " + p.provenance.samples_hash;
  return "";
}

// ---------------------------------------------------------------------------------------------
// Descriptions.
namespace {

std::string human(Bandwidth b) { return to_string(b); }

std::string default_meaning(const std::string& name) {
  if (name == "memcpy" || name == "dram_gather") return "host DRAM bandwidth from the node preset";
  if (name == "ssd_random_read" || name == "ssd_mmap" || name == "ssd_sequential")
    return "NVMe IOPS, latency and bandwidth from the node preset";
  if (name == "hbm" || name == "hbm_gather" || name == "attention_decode")
    return "HBM bandwidth from the GPU preset times the model's default efficiency";
  if (name == "host_link" || name == "uva_gather" || name == "staged_gather")
    return "host link bandwidth and latency from the presets times the model's default efficiency";
  if (name == "gemm") return "GPU preset peak FLOP rates times the model's default efficiency";
  if (name == "kernel_launch") return "the model's default launch gap (1.5 us) and minimum kernel duration (3 us)";
  if (name == "collectives") return "scale-up bandwidth from the GPU preset times the model's default efficiency";
  return "model default";
}

template <class Pts, class F>
auto best_of(const Pts& pts, F f) {
  double best = 0.0;
  for (const auto& q : pts) best = std::max(best, f(q));
  return best;
}

std::string measured_detail(const CalibrationProfile& p, const std::string& n) {
  std::ostringstream os;
  if (n == "memcpy") {
    const auto& s = *p.memcpy;
    os << "best traffic " << human(Bandwidth(best_of(s.points, [](const MemcpyPoint& q) { return q.traffic.value(); })))
       << " over " << s.points.size() << " thread counts";
  } else if (n == "dram_gather") {
    const auto& s = *p.dram_gather;
    os << "best " << human(Bandwidth(best_of(s.points, [](const DramGatherPoint& q) { return q.bandwidth.value(); })))
       << " over " << s.points.size() << " points, " << to_string(s.table_size) << " table";
    for (const auto& q : s.points)
      if (q.row_size.value() == 264.0 && q.distribution == IndexDistribution::uniform) {
        os << "; 264 B uniform x" << q.threads << ": " << human(q.bandwidth);
      }
  } else if (n == "ssd_random_read") {
    const auto& s = *p.ssd_random_read;
    os << "max " << g6(best_of(s.points, [](const SsdRandomReadPoint& q) { return q.iops; })) << " IOPS over "
       << s.points.size() << " queue depths";
    if (!s.points.empty()) os << "; QD" << s.points.front().queue_depth << " p50 " << to_string(s.points.front().latency.p50);
  } else if (n == "ssd_mmap") {
    const auto& s = *p.ssd_mmap;
    os << "max " << g6(best_of(s.points, [](const SsdMmapPoint& q) { return q.faults_per_s; })) << " faults/s over "
       << s.points.size() << " thread counts";
  } else if (n == "ssd_sequential") {
    os << "bandwidth " << human(p.ssd_sequential->bandwidth) << " (" << p.ssd_sequential->engine << ")";
  } else if (n == "hbm") {
    os << "copy traffic " << human(p.hbm->copy_traffic);
  } else if (n == "hbm_gather" || n == "uva_gather" || n == "staged_gather") {
    const GpuGatherSection& s = n == "hbm_gather" ? *p.hbm_gather : n == "uva_gather" ? *p.uva_gather : *p.staged_gather;
    os << "fits for " << s.curves.size() << " curves over " << s.points.size() << " points";
    for (const auto& c : s.curves)
      if (c.row_size.value() == 264.0 && c.distribution == IndexDistribution::uniform)
        os << "; 264 B uniform: beta " << human(c.fit.beta) << ", alpha " << to_string(c.fit.alpha);
  } else if (n == "host_link") {
    os << "H2D " << human(p.host_link->h2d_fit.beta) << " + " << to_string(p.host_link->h2d_fit.alpha) << ", D2H "
       << human(p.host_link->d2h_fit.beta) << " + " << to_string(p.host_link->d2h_fit.alpha);
  } else if (n == "gemm") {
    const auto& s = *p.gemm;
    os << "best " << to_string(FlopRate(best_of(s.points, [](const GemmPoint& q) { return q.achieved.value(); })))
       << " over " << s.points.size() << " shapes";
  } else if (n == "attention_decode") {
    const auto& s = *p.attention_decode;
    os << "best " << human(Bandwidth(best_of(s.points, [](const AttentionDecodePoint& q) { return q.bandwidth.value(); })))
       << " over " << s.points.size() << " points";
  } else if (n == "kernel_launch") {
    const auto& s = *p.kernel_launch;
    os << "empty kernel " << to_string(s.empty_kernel) << ", tiny kernel " << to_string(s.tiny_kernel) << " (graphs of "
       << s.kernels_per_graph << ")";
  } else if (n == "collectives") {
    const auto& s = *p.collectives;
    os << "P2P " << human(s.p2p_fit.beta) << ", all-reduce " << human(s.all_reduce_fit.beta) << " over " << s.gpus << " GPUs";
  }
  return os.str();
}

}  // namespace

std::vector<SectionDescription> describe_sections(const CalibrationProfile& p) {
  std::vector<SectionDescription> out;
  for (const auto& n : calibration_section_names()) {
    SectionDescription d;
    d.name = n;
    if (has_section_data(p, n)) {
      d.state = SectionState::measured;
      d.detail = measured_detail(p, n);
    } else if (auto it = p.not_measured.find(n); it != p.not_measured.end()) {
      d.state = SectionState::not_measured;
      d.detail = it->second + "; default applies: " + default_meaning(n);
    } else {
      d.state = SectionState::default_value;
      d.detail = default_meaning(n);
    }
    out.push_back(std::move(d));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// GPU name matching.
namespace {

std::vector<std::string> name_tokens(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Words that say nothing about which chip it is: vendor and family names, memory sizes and types,
// and the SXM form factor (the catalog's default). "pcie" and "nvl" are not here: they are
// variants with other clocks and power.
bool is_noise_token(const std::string& t) {
  static const std::vector<std::string> words = {"nvidia", "amd", "instinct", "tesla", "geforce", "tensor", "core", "gpu"};
  if (std::find(words.begin(), words.end(), t) != words.end()) return true;
  auto all_digits = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  if (t.size() > 2 && t.substr(t.size() - 2) == "gb" && all_digits(t.substr(0, t.size() - 2))) return true;
  if (t.rfind("hbm", 0) == 0) return true;
  if (t.rfind("sxm", 0) == 0 && (t.size() == 3 || all_digits(t.substr(3)))) return true;
  return false;
}

std::vector<std::string> significant_tokens(const std::string& s) {
  std::vector<std::string> out;
  for (auto& t : name_tokens(s))
    if (!is_noise_token(t)) out.push_back(t);
  return out;
}

bool subset(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const auto& t : a)
    if (std::find(b.begin(), b.end(), t) == b.end()) return false;
  return true;
}

bool has_gpu_sections(const CalibrationProfile& p) {
  for (const auto& n : calibration_section_names())
    if (is_gpu_section(n) && has_section_data(p, n)) return true;
  return false;
}

}  // namespace

ProfileMatch check_profile_matches(const CalibrationProfile& p, const std::string& gpu_name) {
  if (!has_gpu_sections(p)) return {MatchSeverity::ok, "profile has no GPU sections; its host sections apply to any GPU"};
  if (p.provenance.gpu.empty())
    return {MatchSeverity::error, "profile has GPU sections but provenance.gpu is empty: cannot tell which GPU they describe"};
  const auto have = significant_tokens(p.provenance.gpu);
  const auto want = significant_tokens(gpu_name);
  const std::string what = "profile measured on \"" + p.provenance.gpu + "\", scenario GPU \"" + gpu_name + "\"";
  if (have.empty() || want.empty()) return {MatchSeverity::error, what + ": a name has no model token"};
  if (have == want) return {MatchSeverity::ok, what + ": same GPU"};
  if (have.front() == want.front() && (subset(have, want) || subset(want, have)))
    return {MatchSeverity::warning, what + ": same chip, different variant; GPU sections may be off"};
  return {MatchSeverity::error, what + ": different GPU; its GPU sections would describe another chip"};
}

const CalibrationCandidate* choose_calibration(const std::vector<CalibrationCandidate>& candidates,
                                               const std::string& gpu_name) {
  // Rank 0: measured on this GPU; 1: on a variant of its chip; 2: host sections only; 3: does not apply.
  std::vector<int> rank(candidates.size(), 3);
  int best = 3;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const ProfileMatch m = check_profile_matches(candidates[i].profile, gpu_name);
    if (m.severity == MatchSeverity::error) continue;
    rank[i] = !has_gpu_sections(candidates[i].profile) ? 2 : m.severity == MatchSeverity::ok ? 0 : 1;
    best = std::min(best, rank[i]);
  }
  if (best == 3) return nullptr;
  const CalibrationCandidate* chosen = nullptr;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (rank[i] != best) continue;
    if (chosen != nullptr) {
      const char* why = best == 0 ? "both measured on it" : best == 1 ? "both measured on a variant of its chip"
                                                                       : "both hold host sections only";
      throw ConfigError({"--calibration", 0, 0}, "",
                        chosen->path + " and " + candidates[i].path + " both apply to GPU " + gpu_name + " (" + why +
                            "): give one profile per GPU");
    }
    chosen = &candidates[i];
  }
  return chosen;
}

}  // namespace engramsim
