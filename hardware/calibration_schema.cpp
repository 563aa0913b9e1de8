// The calibration profile's keys, one table per section (meaning of the values in
// calibration_profile.hpp). Compiled by the GPU calibration tool too, text-only (no YAML library).
#include "hardware/calibration_schema.hpp"

#include <cctype>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engramsim {
namespace {

using Profile = CalibrationProfile;

std::vector<std::pair<std::string, IndexDistribution>> distributions() {
  return {{to_string(IndexDistribution::uniform), IndexDistribution::uniform},
          {to_string(IndexDistribution::zipf), IndexDistribution::zipf}};
}

std::vector<std::pair<std::string, Precision>> precisions() {
  return {{"fp4", Precision::fp4},
          {"fp8", Precision::fp8},
          {"bf16", Precision::bf16},
          {"fp16", Precision::fp16},
          {"fp32", Precision::fp32}};
}

// --- shared pieces ---------------------------------------------------------------------------

// The quality of a least-squares fit (AlphaBeta, GemmFit).
template <class Fit>
void add_residuals(FieldTable<Fit>& t) {
  t.number(
       "rms_relative_residual", [](auto& f) -> auto& { return f.rms_relative_residual; }, 0.0, 1e6,
       "root mean square of (fit - sample) / sample")
      .required();
  t.number(
       "max_relative_residual", [](auto& f) -> auto& { return f.max_relative_residual; }, 0.0, 1e6,
       "largest \\|fit - sample\\| / sample")
      .required();
  t.integer(
       "samples", [](auto& f) -> auto& { return f.samples; }, 2, 1000000, "samples fitted")
      .required();
}

FieldTable<AlphaBeta> fit_keys() {
  FieldTable<AlphaBeta> t("alpha-beta fit");
  t.at_least_zero(
       "alpha", [](auto& f) -> auto& { return f.alpha; }, "fixed cost: time(bytes) = alpha + bytes / beta")
      .required();
  t.positive(
       "beta", [](auto& f) -> auto& { return f.beta; }, "asymptotic bandwidth")
      .required();
  add_residuals(t);
  return t;
}

// Per-operation latency percentiles, ordered p50 <= p90 <= p99 (the keys of a point).
template <class Point>
void add_percentiles(FieldTable<Point>& t, const std::string& of) {
  t.positive(
       "p50", [](auto& q) -> auto& { return q.latency.p50; }, "median latency of " + of)
      .required();
  t.positive(
       "p90", [](auto& q) -> auto& { return q.latency.p90; }, "90th percentile, at least p50")
      .required()
      .check([](const Point& q) -> std::string { return q.latency.p90 < q.latency.p50 ? "p90 is below p50" : ""; });
  t.positive(
       "p99", [](auto& q) -> auto& { return q.latency.p99; }, "99th percentile, at least p90")
      .required()
      .check([](const Point& q) -> std::string { return q.latency.p99 < q.latency.p90 ? "p99 is below p90" : ""; });
}

FieldTable<TransferPoint> transfer_keys() {
  FieldTable<TransferPoint> t("transfer");
  t.positive(
       "size", [](auto& q) -> auto& { return q.size; }, "bytes moved")
      .required();
  t.positive(
       "time", [](auto& q) -> auto& { return q.time; }, "median time of one transfer")
      .required();
  return t;
}

// --- host sections ---------------------------------------------------------------------------

FieldTable<MemcpySection> memcpy_keys() {
  FieldTable<MemcpyPoint> point("memcpy point");
  point
      .integer(
          "threads", [](auto& q) -> auto& { return q.threads; }, 1, 1 << 20, "copying threads")
      .required();
  point
      .positive(
          "traffic", [](auto& q) -> auto& { return q.traffic; }, "read + write bytes per second over all threads")
      .required();
  FieldTable<MemcpySection> t("memcpy");
  t.positive(
       "buffer_size", [](auto& s) -> auto& { return s.buffer_size; }, "bytes copied per pass, all threads")
      .required();
  t.list(
       "points", [](auto& s) -> auto& { return s.points; }, point, 1, "one per thread count")
      .required();
  return t;
}

FieldTable<DramGatherSection> dram_gather_keys() {
  FieldTable<DramGatherPoint> point("dram_gather point");
  point
      .positive(
          "row_size", [](auto& q) -> auto& { return q.row_size; }, "bytes per row")
      .required();
  point
      .choice(
          "distribution", [](auto& q) -> auto& { return q.distribution; }, distributions(), "row index distribution")
      .required();
  point
      .integer(
          "threads", [](auto& q) -> auto& { return q.threads; }, 1, 1 << 20, "gathering threads")
      .required();
  point
      .positive(
          "rows_per_s", [](auto& q) -> auto& { return q.rows_per_s; }, "rows gathered per second, all threads")
      .required();
  point
      .positive(
          "bandwidth", [](auto& q) -> auto& { return q.bandwidth; }, "payload: rows_per_s x row_size")
      .required();
  FieldTable<DramGatherSection> t("dram_gather");
  t.positive(
       "table_size", [](auto& s) -> auto& { return s.table_size; }, "bytes of the table gathered from")
      .required();
  t.positive(
       "zipf_exponent", [](auto& s) -> auto& { return s.zipf_exponent; }, "s of the `zipf` points")
      .required();
  t.list(
       "points", [](auto& s) -> auto& { return s.points; }, point, 1, "one per (row size, distribution, threads)")
      .required();
  return t;
}

FieldTable<SsdRandomReadSection> ssd_random_read_keys() {
  FieldTable<SsdRandomReadPoint> point("ssd_random_read point");
  point
      .integer(
          "queue_depth", [](auto& q) -> auto& { return q.queue_depth; }, 1, 65536, "reads in flight")
      .required();
  point
      .positive(
          "iops", [](auto& q) -> auto& { return q.iops; }, "reads completed per second")
      .required();
  add_percentiles(point, "one read");
  FieldTable<SsdRandomReadSection> t("ssd_random_read");
  t.any_text(
       "engine", [](auto& s) -> auto& { return s.engine; }, "how the reads were issued (`io_uring O_DIRECT`)")
      .required();
  t.positive(
       "block_size", [](auto& s) -> auto& { return s.block_size; }, "bytes per read")
      .required();
  t.positive(
       "file_size", [](auto& s) -> auto& { return s.file_size; }, "span the offsets were drawn from")
      .required();
  t.list(
       "points", [](auto& s) -> auto& { return s.points; }, point, 1, "one per queue depth")
      .required();
  return t;
}

FieldTable<SsdMmapSection> ssd_mmap_keys() {
  FieldTable<SsdMmapPoint> point("ssd_mmap point");
  point
      .integer(
          "threads", [](auto& q) -> auto& { return q.threads; }, 1, 1 << 20, "touching threads")
      .required();
  point
      .positive(
          "faults_per_s", [](auto& q) -> auto& { return q.faults_per_s; }, "major faults per second, all threads")
      .required();
  add_percentiles(point, "one first touch of a non-resident page");
  FieldTable<SsdMmapSection> t("ssd_mmap");
  t.positive(
       "page_size", [](auto& s) -> auto& { return s.page_size; }, "bytes per page")
      .required();
  t.positive(
       "file_size", [](auto& s) -> auto& { return s.file_size; }, "bytes of the mapped file")
      .required();
  t.list(
       "points", [](auto& s) -> auto& { return s.points; }, point, 1, "one per thread count")
      .required();
  return t;
}

FieldTable<SsdSequentialSection> ssd_sequential_keys() {
  FieldTable<SsdSequentialSection> t("ssd_sequential");
  t.any_text(
       "engine", [](auto& s) -> auto& { return s.engine; }, "`io_uring O_DIRECT` or `buffered pread`")
      .required();
  t.positive(
       "block_size", [](auto& s) -> auto& { return s.block_size; }, "bytes per read")
      .required();
  t.integer(
       "queue_depth", [](auto& s) -> auto& { return s.queue_depth; }, 1, 65536, "reads in flight")
      .required();
  t.positive(
       "bandwidth", [](auto& s) -> auto& { return s.bandwidth; }, "bytes read per second")
      .required();
  return t;
}

// --- GPU sections ----------------------------------------------------------------------------

FieldTable<HbmSection> hbm_keys() {
  FieldTable<HbmSection> t("hbm");
  t.positive(
       "buffer_size", [](auto& s) -> auto& { return s.buffer_size; }, "bytes copied per pass")
      .required();
  t.positive(
       "copy_traffic", [](auto& s) -> auto& { return s.copy_traffic; }, "device-to-device copy, read + write")
      .required();
  return t;
}

FieldTable<GpuGatherPoint> gather_point_keys() {
  FieldTable<GpuGatherPoint> t("gather point");
  t.positive(
       "row_size", [](auto& q) -> auto& { return q.row_size; }, "bytes per row")
      .required();
  t.choice(
       "distribution", [](auto& q) -> auto& { return q.distribution; }, distributions(), "row index distribution")
      .required();
  t.integer(
       "rows", [](auto& q) -> auto& { return q.rows; }, 1, INT64_MAX, "rows in one batch")
      .required();
  t.positive(
       "time", [](auto& q) -> auto& { return q.time; }, "median wall time of one batch")
      .required();
  t.positive(
       "bandwidth", [](auto& q) -> auto& { return q.bandwidth; }, "payload: rows x row_size / time")
      .required();
  return t;
}

FieldTable<GpuGatherSection> gather_keys() {
  FieldTable<GpuGatherCurve> curve("gather curve");
  curve
      .positive(
          "row_size", [](auto& c) -> auto& { return c.row_size; }, "bytes per row")
      .required();
  curve
      .choice(
          "distribution", [](auto& c) -> auto& { return c.distribution; }, distributions(), "row index distribution")
      .required();
  curve
      .number_above(
          "efficiency", [](auto& c) -> auto& { return c.efficiency; }, 0.0, 4.0,
          "asymptotic efficiency against the section's `reference`")
      .required();
  curve
      .section(
          "fit", [](auto& c) -> auto& { return c.fit; }, fit_keys(), "")
      .required();
  FieldTable<GpuGatherSection> t("gather");
  t.positive(
       "table_size", [](auto& s) -> auto& { return s.table_size; }, "bytes of the table gathered from")
      .required();
  t.positive(
       "zipf_exponent", [](auto& s) -> auto& { return s.zipf_exponent; }, "s of the `zipf` points")
      .required();
  t.any_text(
       "reference", [](auto& s) -> auto& { return s.reference; }, "what `efficiency` is relative to, in words")
      .required();
  t.list(
       "points", [](auto& s) -> auto& { return s.points; }, gather_point_keys(), 1, "one per batch")
      .required();
  t.list(
       "curves", [](auto& s) -> auto& { return s.curves; }, curve, 0,
       "alpha-beta over payload bytes, one per (row size, distribution)")
      .required();
  return t;
}

FieldTable<HostLinkSection> host_link_keys() {
  FieldTable<HostLinkSection> t("host_link");
  t.section(
       "h2d_fit", [](auto& s) -> auto& { return s.h2d_fit; }, fit_keys(), "")
      .required();
  t.section(
       "d2h_fit", [](auto& s) -> auto& { return s.d2h_fit; }, fit_keys(), "")
      .required();
  t.list(
       "h2d", [](auto& s) -> auto& { return s.h2d; }, transfer_keys(), 1, "pinned host -> device copies")
      .required();
  t.list(
       "d2h", [](auto& s) -> auto& { return s.d2h; }, transfer_keys(), 1, "device -> pinned host copies")
      .required();
  return t;
}

FieldTable<GemmPoint> gemm_point_keys() {
  FieldTable<GemmPoint> t("gemm point");
  t.choice(
       "precision", [](auto& q) -> auto& { return q.precision; }, precisions(), "input precision")
      .required();
  t.integer(
       "m", [](auto& q) -> auto& { return q.m; }, 1, INT64_MAX, "rows of X")
      .required();
  t.integer(
       "n", [](auto& q) -> auto& { return q.n; }, 1, INT64_MAX, "rows of W (outputs)")
      .required();
  t.integer(
       "k", [](auto& q) -> auto& { return q.k; }, 1, INT64_MAX, "inner dimension")
      .required();
  t.positive(
       "time", [](auto& q) -> auto& { return q.time; }, "median time of one GEMM")
      .required();
  t.positive(
       "achieved", [](auto& q) -> auto& { return q.achieved; }, "2 m n k / time")
      .required();
  return t;
}

FieldTable<GemmSection> gemm_keys() {
  FieldTable<GemmFit> fit("gemm fit");
  fit.choice(
         "precision", [](auto& f) -> auto& { return f.precision; }, precisions(), "input precision")
      .required();
  fit.integer(
         "n", [](auto& f) -> auto& { return f.n; }, 1, INT64_MAX, "rows of W (outputs)")
      .required();
  fit.integer(
         "k", [](auto& f) -> auto& { return f.k; }, 1, INT64_MAX, "inner dimension")
      .required();
  fit.at_least_zero(
         "overhead", [](auto& f) -> auto& { return f.overhead; }, "fixed cost per call")
      .required();
  fit.positive(
         "rate", [](auto& f) -> auto& { return f.rate; }, "asymptotic rate for large m")
      .required();
  add_residuals(fit);
  FieldTable<GemmSection> t("gemm");
  t.any_text(
       "library", [](auto& s) -> auto& { return s.library; }, "the GEMM library and its version")
      .required();
  t.list(
       "points", [](auto& s) -> auto& { return s.points; }, gemm_point_keys(), 1, "one per shape and precision")
      .required();
  t.list(
       "fits", [](auto& s) -> auto& { return s.fits; }, fit, 0,
       "time = overhead + 2 m n k / rate, one per (precision, n, k)")
      .required();
  return t;
}

FieldTable<AttentionDecodeSection> attention_decode_keys() {
  FieldTable<AttentionDecodePoint> point("attention_decode point");
  point
      .integer(
          "batch", [](auto& q) -> auto& { return q.batch; }, 1, INT64_MAX, "sequences")
      .required();
  point
      .integer(
          "context", [](auto& q) -> auto& { return q.context; }, 1, INT64_MAX, "tokens of KV per sequence")
      .required();
  point
      .positive(
          "kv_bytes", [](auto& q) -> auto& { return q.kv_bytes; }, "K and V bytes streamed per call")
      .required();
  point
      .positive(
          "time", [](auto& q) -> auto& { return q.time; }, "median time of one call")
      .required();
  point
      .positive(
          "bandwidth", [](auto& q) -> auto& { return q.bandwidth; }, "kv_bytes / time")
      .required();
  point
      .number_above(
          "efficiency", [](auto& q) -> auto& { return q.efficiency; }, 0.0, 4.0, "bandwidth / hbm.copy_traffic")
      .required();
  FieldTable<AttentionDecodeSection> t("attention_decode");
  t.any_text(
       "kernel", [](auto& s) -> auto& { return s.kernel; }, "what the proxy computes, in words")
      .required();
  t.integer(
       "kv_heads", [](auto& s) -> auto& { return s.kv_heads; }, 1, 1 << 16, "KV heads")
      .required();
  t.integer(
       "q_heads_per_kv", [](auto& s) -> auto& { return s.q_heads_per_kv; }, 1, 1 << 16, "query heads per KV head")
      .required();
  t.integer(
       "head_dim", [](auto& s) -> auto& { return s.head_dim; }, 1, 1 << 16, "elements per head")
      .required();
  t.list(
       "points", [](auto& s) -> auto& { return s.points; }, point, 1, "one per (batch, context)")
      .required();
  return t;
}

FieldTable<KernelLaunchSection> kernel_launch_keys() {
  FieldTable<KernelLaunchSection> t("kernel_launch");
  t.integer(
       "kernels_per_graph", [](auto& s) -> auto& { return s.kernels_per_graph; }, 1, 1 << 20,
       "back-to-back launches in one CUDA graph")
      .required();
  t.positive(
       "row_size", [](auto& s) -> auto& { return s.row_size; }, "bytes each tiny kernel normalises")
      .required();
  t.positive(
       "empty_kernel", [](auto& s) -> auto& { return s.empty_kernel; }, "per kernel that does nothing (the launch gap)")
      .required();
  t.positive(
       "tiny_kernel", [](auto& s) -> auto& { return s.tiny_kernel; }, "per kernel that RMS-normalises one row")
      .required();
  return t;
}

FieldTable<PeerPairPoint> peer_pair_keys() {
  FieldTable<PeerPairPoint> t("peer pair");
  t.integer(
       "src", [](auto& q) -> auto& { return q.src; }, 0, (1 << 16) - 1, "source GPU, below `gpus`")
      .required();
  t.integer(
       "dst", [](auto& q) -> auto& { return q.dst; }, 0, (1 << 16) - 1, "destination GPU, below `gpus`, not `src`")
      .required()
      .check([](const PeerPairPoint& q) -> std::string {
        return q.src == q.dst ? "a peer copy needs two different GPUs" : "";
      });
  t.positive(
       "size", [](auto& q) -> auto& { return q.size; }, "bytes per copy")
      .required();
  t.positive(
       "bandwidth", [](auto& q) -> auto& { return q.bandwidth; }, "size / median time of one copy")
      .required();
  return t;
}

// The first peer pair that names a GPU the section does not have.
std::string pair_outside(const CollectivesSection& c) {
  for (std::size_t i = 0; i < c.p2p_pairs.size(); ++i) {
    for (const int g : {c.p2p_pairs[i].src, c.p2p_pairs[i].dst})
      if (g >= c.gpus)
        return "entry " + std::to_string(i) + ": GPU " + std::to_string(g) + " out of range [0, " +
               std::to_string(c.gpus - 1) + "] (gpus: " + std::to_string(c.gpus) + ")";
  }
  return "";
}

FieldTable<CollectivesSection> collectives_keys() {
  FieldTable<CollectivesSection> t("collectives");
  t.integer(
       "gpus", [](auto& s) -> auto& { return s.gpus; }, 2, 1 << 16, "GPUs taking part")
      .required();
  t.any_text(
       "all_reduce_algorithm", [](auto& s) -> auto& { return s.all_reduce_algorithm; },
       "how the all-reduce runs, in words")
      .required();
  t.section(
       "p2p_fit", [](auto& s) -> auto& { return s.p2p_fit; }, fit_keys(), "")
      .required();
  t.section(
       "all_reduce_fit", [](auto& s) -> auto& { return s.all_reduce_fit; }, fit_keys(), "")
      .required();
  t.list(
       "p2p", [](auto& s) -> auto& { return s.p2p; }, transfer_keys(), 1, "GPU 0 -> GPU 1 copies")
      .required();
  t.list(
       "all_reduce", [](auto& s) -> auto& { return s.all_reduce; }, transfer_keys(), 1,
       "all-reduces; size = buffer bytes per GPU")
      .required();
  t.list(
       "p2p_pairs", [](auto& s) -> auto& { return s.p2p_pairs; }, peer_pair_keys(), 0,
       "every ordered GPU pair at one size")
      .check(pair_outside);
  return t;
}

// --- the profile -----------------------------------------------------------------------------

FieldTable<CalibrationProvenance> provenance_keys() {
  FieldTable<CalibrationProvenance> t("provenance");
  t.any_text(
       "host", [](auto& v) -> auto& { return v.host; }, "hostname")
      .required();
  t.any_text(
       "cpu_model", [](auto& v) -> auto& { return v.cpu_model; }, "`model name` of /proc/cpuinfo")
      .required();
  t.integer(
       "cpu_threads", [](auto& v) -> auto& { return v.cpu_threads; }, 1, 1 << 20, "online logical CPUs")
      .required();
  t.any_text(
      "gpu", [](auto& v) -> auto& { return v.gpu; },
      "device name as the driver reports it (`NVIDIA H200`); empty: none. GPU sections need it");
  t.integer(
      "gpu_count", [](auto& v) -> auto& { return v.gpu_count; }, 0, 1 << 16, "GPUs of the machine");
  t.any_text(
      "gpu_driver", [](auto& v) -> auto& { return v.gpu_driver; }, "driver version (`580.159.03`)");
  t.any_text(
      "cuda_runtime", [](auto& v) -> auto& { return v.cuda_runtime; }, "CUDA runtime version (`13.0`)");
  t.any_text(
       "date", [](auto& v) -> auto& { return v.date; }, "ISO 8601 UTC (`2026-11-20T10:11:12Z`)")
      .required();
  t.any_text(
       "engramsim_version", [](auto& v) -> auto& { return v.engramsim_version; }, "version that measured")
      .required();
  t.any_text(
      "options", [](auto& v) -> auto& { return v.options; }, "benchmark options as given on the command line");
  t.any_text(
      "samples_file", [](auto& v) -> auto& { return v.samples_file; },
      "raw samples CSV, relative to the profile's folder");
  t.any_text(
       "samples_hash", [](auto& v) -> auto& { return v.samples_hash; },
       "`fnv1a64:` and 16 hex digits of the samples file's bytes; required with `samples_file`")
      .check([](const CalibrationProvenance& v) -> std::string {
        const std::string& h = v.samples_hash;
        bool ok = v.samples_file.empty() || (h.size() == 24 && h.rfind("fnv1a64:", 0) == 0);
        for (std::size_t i = 8; ok && i < h.size(); ++i) ok = std::isxdigit(static_cast<unsigned char>(h[i])) != 0;
        return ok ? "" : "expected \"fnv1a64:\" and 16 hex digits (the hash of samples_file)";
      });
  t.any_text(
      "notes", [](auto& v) -> auto& { return v.notes; }, "free text: filesystem of the SSD file, THP policy, ...");
  return t;
}

struct Section {
  std::string name;
  bool gpu = false;
  std::function<bool(const Profile&)> has_data;
};

struct Schema {
  FieldTable<Profile> table{"calibration profile"};
  std::vector<Section> sections;  // in file order
};

// Section `key`: data, `{not_measured: "reason"}` (the reason in Profile::not_measured) or absent.
// A GPU section holds data only when provenance.gpu names the GPU.
template <class Sub>
void add_section(Schema& s, const std::string& key, std::optional<Sub> Profile::*member, const FieldTable<Sub>& sub,
                 bool gpu, std::string meaning) {
  typename FieldTable<Profile>::Absence absence{
      "not_measured",
      [](const Profile& p, const std::string& name) {
        const auto it = p.not_measured.find(name);
        return it == p.not_measured.end() ? std::string() : it->second;
      },
      [](Profile& p, const std::string& name, std::string reason) { p.not_measured[name] = std::move(reason); }};
  s.table.optional_section(
      key, [member](auto& p) -> auto& { return p.*member; }, sub, absence, std::move(meaning));
  if (gpu)
    s.table.check([member](const Profile& p) -> std::string {
      return (p.*member).has_value() && p.provenance.gpu.empty()
                 ? "GPU section without provenance.gpu: name the GPU it was measured on"
                 : "";
    });
  s.sections.push_back({key, gpu, [member](const Profile& p) { return (p.*member).has_value(); }});
}

void add_sections(Schema& s) {
  const auto gather = gather_keys();
  add_section(s, "memcpy", &Profile::memcpy, memcpy_keys(), false, "host memcpy bandwidth by threads");
  add_section(s, "dram_gather", &Profile::dram_gather, dram_gather_keys(), false, "row gathers from a DRAM table");
  add_section(s, "ssd_random_read", &Profile::ssd_random_read, ssd_random_read_keys(), false,
              "random reads by queue depth");
  add_section(s, "ssd_mmap", &Profile::ssd_mmap, ssd_mmap_keys(), false, "page faults of a mapped file");
  add_section(s, "ssd_sequential", &Profile::ssd_sequential, ssd_sequential_keys(), false, "sequential reads");
  add_section(s, "hbm", &Profile::hbm, hbm_keys(), true, "HBM copy bandwidth");
  add_section(s, "hbm_gather", &Profile::hbm_gather, gather, true,
              "row gathers from an HBM table; `efficiency` = 2 x beta / hbm.copy_traffic");
  add_section(s, "host_link", &Profile::host_link, host_link_keys(), true, "H2D and D2H copies of pinned memory");
  add_section(s, "uva_gather", &Profile::uva_gather, gather, true,
              "zero-copy row gathers from pinned host memory; `efficiency` = beta / host_link.h2d_fit.beta");
  add_section(s, "staged_gather", &Profile::staged_gather, gather, true,
              "CPU gathers into pinned staging, then one H2D copy; `efficiency` as uva_gather");
  add_section(s, "gemm", &Profile::gemm, gemm_keys(), true, "GEMM FLOP rates by shape and precision");
  add_section(s, "attention_decode", &Profile::attention_decode, attention_decode_keys(), true,
              "decode attention KV read bandwidth");
  add_section(s, "kernel_launch", &Profile::kernel_launch, kernel_launch_keys(), true, "fixed cost of a kernel");
  add_section(s, "collectives", &Profile::collectives, collectives_keys(), true, "P2P copies and a ring all-reduce");
}

const Schema& schema() {
  static const Schema s = [] {
    Schema x;
    x.table.fixed("schema", kCalibrationSchema, "the profile format");
    x.table
        .text(
            "name", [](auto& p) -> auto& { return p.name; }, "the profile's name")
        .required();
    x.table
        .section(
            "provenance", [](auto& p) -> auto& { return p.provenance; }, provenance_keys(), "")
        .required();
    add_sections(x);
    return x;
  }();
  return s;
}

}  // namespace

const FieldTable<CalibrationProfile>& calibration_profile_schema() { return schema().table; }

const std::vector<std::string>& calibration_section_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Section& s : schema().sections) out.push_back(s.name);
    return out;
  }();
  return names;
}

bool is_gpu_section(const std::string& name) {
  for (const Section& s : schema().sections)
    if (s.name == name) return s.gpu;
  return false;
}

bool has_section_data(const CalibrationProfile& p, const std::string& name) {
  for (const Section& s : schema().sections)
    if (s.name == name) return s.has_data(p);
  return false;
}

}  // namespace engramsim
