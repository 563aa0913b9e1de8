// Strict loader for calibration profiles (schema in calibration_profile.hpp). Every field goes
// through ConfigNode, so a typo, a bare number where a unit belongs, NaN or an unknown section is
// an error naming file:line:col and the field path.
#include <cctype>
#include <cmath>
#include <string>

#include "core/config_node.hpp"
#include "hardware/calibration_profile.hpp"

namespace engramsim {
namespace {

Bytes pos_bytes(const ConfigNode& n, const std::string& key) {
  const Bytes v = n.bytes(key);
  if (!(v.value() > 0.0)) n.fail_key(key, "must be greater than zero");
  return v;
}

Bandwidth pos_bw(const ConfigNode& n, const std::string& key) {
  const Bandwidth v = n.bandwidth(key);
  if (!(v.value() > 0.0)) n.fail_key(key, "must be greater than zero");
  return v;
}

FlopRate pos_rate(const ConfigNode& n, const std::string& key) {
  const FlopRate v = n.flop_rate(key);
  if (!(v.value() > 0.0)) n.fail_key(key, "must be greater than zero");
  return v;
}

Time pos_time(const ConfigNode& n, const std::string& key) {
  const Time v = n.time(key);
  if (v <= Time::zero()) n.fail_key(key, "must be greater than zero");
  return v;
}

double pos_number(const ConfigNode& n, const std::string& key) {
  const double v = n.number(key);
  if (!(v > 0.0)) n.fail_key(key, "must be greater than zero");
  return v;
}

double residual(const ConfigNode& n, const std::string& key) { return n.number(key, 0.0, 1e6); }

IndexDistribution distribution(const ConfigNode& n) {
  return *index_distribution_from_string(n.one_of("distribution", {"uniform", "zipf"}));
}

Precision precision(const ConfigNode& n) {
  const std::string s = n.one_of("precision", {"fp4", "fp8", "bf16", "fp16", "fp32"});
  if (s == "fp4") return Precision::fp4;
  if (s == "fp8") return Precision::fp8;
  if (s == "fp16") return Precision::fp16;
  if (s == "fp32") return Precision::fp32;
  return Precision::bf16;
}

double efficiency(const ConfigNode& n) {
  const double e = n.number("efficiency", 0.0, 4.0);
  if (!(e > 0.0)) n.fail_key("efficiency", "must be greater than zero");
  return e;
}

LatencyPercentiles percentiles(const ConfigNode& n) {
  LatencyPercentiles l{pos_time(n, "p50"), pos_time(n, "p90"), pos_time(n, "p99")};
  if (l.p90 < l.p50) n.fail_key("p90", "p90 is below p50");
  if (l.p99 < l.p90) n.fail_key("p99", "p99 is below p90");
  return l;
}

AlphaBeta alpha_beta(const ConfigNode& n) {
  AlphaBeta f;
  f.alpha = n.time("alpha");
  f.beta = pos_bw(n, "beta");
  f.rms_relative_residual = residual(n, "rms_relative_residual");
  f.max_relative_residual = residual(n, "max_relative_residual");
  f.samples = static_cast<int>(n.integer("samples", 2, 1000000));
  n.finish();
  return f;
}

std::vector<ConfigNode> points(const ConfigNode& s, const std::string& key) {
  auto pts = s.child(key).elements();
  if (pts.empty()) s.fail_key(key, "must hold at least one entry");
  return pts;
}

std::vector<TransferPoint> transfers(const ConfigNode& s, const std::string& key) {
  std::vector<TransferPoint> out;
  for (const auto& e : points(s, key)) {
    out.push_back({pos_bytes(e, "size"), pos_time(e, "time")});
    e.finish();
  }
  return out;
}

MemcpySection memcpy_section(const ConfigNode& s) {
  MemcpySection m;
  m.buffer_size = pos_bytes(s, "buffer_size");
  for (const auto& e : points(s, "points")) {
    m.points.push_back({static_cast<int>(e.integer("threads", 1, 1 << 20)), pos_bw(e, "traffic")});
    e.finish();
  }
  return m;
}

DramGatherSection dram_gather_section(const ConfigNode& s) {
  DramGatherSection d;
  d.table_size = pos_bytes(s, "table_size");
  d.zipf_exponent = pos_number(s, "zipf_exponent");
  for (const auto& e : points(s, "points")) {
    DramGatherPoint q;
    q.row_size = pos_bytes(e, "row_size");
    q.distribution = distribution(e);
    q.threads = static_cast<int>(e.integer("threads", 1, 1 << 20));
    q.rows_per_s = pos_number(e, "rows_per_s");
    q.bandwidth = pos_bw(e, "bandwidth");
    e.finish();
    d.points.push_back(q);
  }
  return d;
}

SsdRandomReadSection ssd_random_read_section(const ConfigNode& s) {
  SsdRandomReadSection r;
  r.engine = s.str("engine");
  r.block_size = pos_bytes(s, "block_size");
  r.file_size = pos_bytes(s, "file_size");
  for (const auto& e : points(s, "points")) {
    SsdRandomReadPoint q;
    q.queue_depth = static_cast<int>(e.integer("queue_depth", 1, 65536));
    q.iops = pos_number(e, "iops");
    q.latency = percentiles(e);
    e.finish();
    r.points.push_back(q);
  }
  return r;
}

SsdMmapSection ssd_mmap_section(const ConfigNode& s) {
  SsdMmapSection r;
  r.page_size = pos_bytes(s, "page_size");
  r.file_size = pos_bytes(s, "file_size");
  for (const auto& e : points(s, "points")) {
    SsdMmapPoint q;
    q.threads = static_cast<int>(e.integer("threads", 1, 1 << 20));
    q.faults_per_s = pos_number(e, "faults_per_s");
    q.latency = percentiles(e);
    e.finish();
    r.points.push_back(q);
  }
  return r;
}

SsdSequentialSection ssd_sequential_section(const ConfigNode& s) {
  SsdSequentialSection r;
  r.engine = s.str("engine");
  r.block_size = pos_bytes(s, "block_size");
  r.queue_depth = static_cast<int>(s.integer("queue_depth", 1, 65536));
  r.bandwidth = pos_bw(s, "bandwidth");
  return r;
}

HbmSection hbm_section(const ConfigNode& s) { return {pos_bytes(s, "buffer_size"), pos_bw(s, "copy_traffic")}; }

KernelLaunchSection kernel_launch_section(const ConfigNode& s) {
  KernelLaunchSection k;
  k.kernels_per_graph = static_cast<int>(s.integer("kernels_per_graph", 1, 1 << 20));
  k.row_size = pos_bytes(s, "row_size");
  k.empty_kernel = pos_time(s, "empty_kernel");
  k.tiny_kernel = pos_time(s, "tiny_kernel");
  return k;
}

GpuGatherSection gather_section(const ConfigNode& s) {
  GpuGatherSection g;
  g.table_size = pos_bytes(s, "table_size");
  g.zipf_exponent = pos_number(s, "zipf_exponent");
  g.reference = s.str("reference");
  for (const auto& e : points(s, "points")) {
    GpuGatherPoint q;
    q.row_size = pos_bytes(e, "row_size");
    q.distribution = distribution(e);
    q.rows = e.integer("rows", 1);
    q.time = pos_time(e, "time");
    q.bandwidth = pos_bw(e, "bandwidth");
    e.finish();
    g.points.push_back(q);
  }
  for (const auto& e : s.child("curves").elements()) {
    GpuGatherCurve c;
    c.row_size = pos_bytes(e, "row_size");
    c.distribution = distribution(e);
    c.efficiency = efficiency(e);
    c.fit = alpha_beta(e.child("fit"));
    e.finish();
    g.curves.push_back(c);
  }
  return g;
}

HostLinkSection host_link_section(const ConfigNode& s) {
  HostLinkSection h;
  h.h2d_fit = alpha_beta(s.child("h2d_fit"));
  h.d2h_fit = alpha_beta(s.child("d2h_fit"));
  h.h2d = transfers(s, "h2d");
  h.d2h = transfers(s, "d2h");
  return h;
}

GemmSection gemm_section(const ConfigNode& s) {
  GemmSection g;
  g.library = s.str("library");
  for (const auto& e : points(s, "points")) {
    GemmPoint q;
    q.precision = precision(e);
    q.m = e.integer("m", 1);
    q.n = e.integer("n", 1);
    q.k = e.integer("k", 1);
    q.time = pos_time(e, "time");
    q.achieved = pos_rate(e, "achieved");
    e.finish();
    g.points.push_back(q);
  }
  for (const auto& e : s.child("fits").elements()) {
    GemmFit f;
    f.precision = precision(e);
    f.n = e.integer("n", 1);
    f.k = e.integer("k", 1);
    f.overhead = e.time("overhead");
    f.rate = pos_rate(e, "rate");
    f.rms_relative_residual = residual(e, "rms_relative_residual");
    f.max_relative_residual = residual(e, "max_relative_residual");
    f.samples = static_cast<int>(e.integer("samples", 2, 1000000));
    e.finish();
    g.fits.push_back(f);
  }
  return g;
}

AttentionDecodeSection attention_section(const ConfigNode& s) {
  AttentionDecodeSection a;
  a.kernel = s.str("kernel");
  a.kv_heads = static_cast<int>(s.integer("kv_heads", 1, 1 << 16));
  a.q_heads_per_kv = static_cast<int>(s.integer("q_heads_per_kv", 1, 1 << 16));
  a.head_dim = static_cast<int>(s.integer("head_dim", 1, 1 << 16));
  for (const auto& e : points(s, "points")) {
    AttentionDecodePoint q;
    q.batch = e.integer("batch", 1);
    q.context = e.integer("context", 1);
    q.kv_bytes = pos_bytes(e, "kv_bytes");
    q.time = pos_time(e, "time");
    q.bandwidth = pos_bw(e, "bandwidth");
    q.efficiency = efficiency(e);
    e.finish();
    a.points.push_back(q);
  }
  return a;
}

CollectivesSection collectives_section(const ConfigNode& s) {
  CollectivesSection c;
  c.gpus = static_cast<int>(s.integer("gpus", 2, 1 << 16));
  c.all_reduce_algorithm = s.str("all_reduce_algorithm");
  c.p2p_fit = alpha_beta(s.child("p2p_fit"));
  c.all_reduce_fit = alpha_beta(s.child("all_reduce_fit"));
  c.p2p = transfers(s, "p2p");
  c.all_reduce = transfers(s, "all_reduce");
  if (s.has("p2p_pairs")) {
    for (const auto& e : s.child("p2p_pairs").elements()) {
      PeerPairPoint q;
      q.src = static_cast<int>(e.integer("src", 0, c.gpus - 1));
      q.dst = static_cast<int>(e.integer("dst", 0, c.gpus - 1));
      if (q.src == q.dst) e.fail_key("dst", "a peer copy needs two different GPUs");
      q.size = pos_bytes(e, "size");
      q.bandwidth = pos_bw(e, "bandwidth");
      e.finish();
      c.p2p_pairs.push_back(q);
    }
  } else {
    s.ignore("p2p_pairs");
  }
  return c;
}

template <class T, class F>
void read_section(const ConfigNode& root, const std::string& name, std::optional<T>& slot,
                  std::map<std::string, std::string>& not_measured, F parse) {
  auto s = root.optional_child(name);
  if (!s) return;
  if (!s->is_map()) s->fail("expected a section map or {not_measured: \"reason\"}");
  if (s->has("not_measured")) {
    const std::string reason = s->str("not_measured");
    if (reason.empty()) s->fail_key("not_measured", "give the reason the section could not be measured");
    s->finish();  // a not-measured section holds nothing else
    not_measured[name] = reason;
    return;
  }
  slot = parse(*s);
  s->finish();
}

CalibrationProvenance provenance(const ConfigNode& n) {
  CalibrationProvenance v;
  v.host = n.str("host");
  v.cpu_model = n.str("cpu_model");
  v.cpu_threads = static_cast<int>(n.integer("cpu_threads", 1, 1 << 20));
  v.gpu = n.str_or("gpu", "");
  v.gpu_count = static_cast<int>(n.integer_or("gpu_count", 0, 0, 1 << 16));
  v.gpu_driver = n.str_or("gpu_driver", "");
  v.cuda_runtime = n.str_or("cuda_runtime", "");
  v.date = n.str("date");
  v.engramsim_version = n.str("engramsim_version");
  v.options = n.str_or("options", "");
  v.samples_file = n.str_or("samples_file", "");
  v.samples_hash = n.str_or("samples_hash", "");
  v.notes = n.str_or("notes", "");
  if (!v.samples_file.empty()) {
    const std::string& h = v.samples_hash;
    bool ok = h.size() == 24 && h.rfind("fnv1a64:", 0) == 0;
    for (std::size_t i = 8; ok && i < h.size(); ++i) ok = std::isxdigit(static_cast<unsigned char>(h[i])) != 0;
    if (!ok) n.fail_key("samples_hash", "expected \"fnv1a64:\" and 16 hex digits (the hash of samples_file)");
  }
  n.finish();
  return v;
}

CalibrationProfile parse_calibration_profile_node(const ConfigNode& root) {
  if (!root.is_map()) root.fail("a calibration profile must be a map");
  const std::string schema = root.str("schema");
  if (schema != kCalibrationSchema)
    root.fail_key("schema", std::string("unsupported schema \"") + schema + "\", expected \"" + kCalibrationSchema + "\"");
  CalibrationProfile p;
  p.name = root.str("name");
  if (p.name.empty()) root.fail_key("name", "must not be empty");
  p.provenance = provenance(root.child("provenance"));
  auto& nm = p.not_measured;
  read_section(root, "memcpy", p.memcpy, nm, memcpy_section);
  read_section(root, "dram_gather", p.dram_gather, nm, dram_gather_section);
  read_section(root, "ssd_random_read", p.ssd_random_read, nm, ssd_random_read_section);
  read_section(root, "ssd_mmap", p.ssd_mmap, nm, ssd_mmap_section);
  read_section(root, "ssd_sequential", p.ssd_sequential, nm, ssd_sequential_section);
  read_section(root, "hbm", p.hbm, nm, hbm_section);
  read_section(root, "hbm_gather", p.hbm_gather, nm, gather_section);
  read_section(root, "host_link", p.host_link, nm, host_link_section);
  read_section(root, "uva_gather", p.uva_gather, nm, gather_section);
  read_section(root, "staged_gather", p.staged_gather, nm, gather_section);
  read_section(root, "gemm", p.gemm, nm, gemm_section);
  read_section(root, "attention_decode", p.attention_decode, nm, attention_section);
  read_section(root, "kernel_launch", p.kernel_launch, nm, kernel_launch_section);
  read_section(root, "collectives", p.collectives, nm, collectives_section);
  // Unknown sections (typos such as "dram_gathr") are errors, never silently ignored.
  root.finish();
  for (const auto& n : calibration_section_names()) {
    if (is_gpu_section(n) && has_section_data(p, n) && p.provenance.gpu.empty())
      root.child(n).fail("GPU section without provenance.gpu: name the GPU it was measured on");
  }
  return p;
}

}  // namespace

CalibrationProfile load_calibration_profile(const std::string& path) {
  return parse_calibration_profile_node(ConfigNode::load_file(path));
}

CalibrationProfile parse_calibration_profile(const std::string& yaml_text, const std::string& name) {
  ConfigNode root = ConfigNode::load_string(yaml_text, name);
  if (!root.raw().IsDefined() || root.raw().IsNull()) throw ConfigError({name, 1, 1}, "", "profile is empty");
  return parse_calibration_profile_node(root);
}

}  // namespace engramsim
