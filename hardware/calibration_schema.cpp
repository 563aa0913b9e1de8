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

// The access to a data member that a field table takes: member(&S::m)(s) is s.m.
template <class S, class M>
auto member(M S::*m) {
  return [m](auto& s) -> auto& { return s.*m; };
}

std::vector<std::pair<std::string, IndexDistribution>> distributions() { return kIndexDistributionNames.choices(); }

std::vector<std::pair<std::string, Precision>> precisions() { return kPrecisionNames.choices(); }

// --- shared pieces ---------------------------------------------------------------------------

// The quality of a least-squares fit (AlphaBeta, GemmFit).
template <class Fit>
void add_residuals(FieldTable<Fit>& t) {
  t.number("rms_relative_residual", &Fit::rms_relative_residual, 0.0, 1e6,
           "root mean square of (fit - sample) / sample")
      .required();
  t.number("max_relative_residual", &Fit::max_relative_residual, 0.0, 1e6, "largest \\|fit - sample\\| / sample")
      .required();
  t.integer("samples", &Fit::samples, 2, 1000000, "samples fitted").required();
}

FieldTable<AlphaBeta> fit_keys() {
  FieldTable<AlphaBeta> t("alpha-beta fit");
  t.at_least_zero("alpha", member(&AlphaBeta::alpha), "fixed cost: time(bytes) = alpha + bytes / beta").required();
  t.positive("beta", member(&AlphaBeta::beta), "asymptotic bandwidth").required();
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
  t.positive("size", member(&TransferPoint::size), "bytes moved").required();
  t.positive("time", member(&TransferPoint::time), "median time of one transfer").required();
  return t;
}

// --- host sections ---------------------------------------------------------------------------

FieldTable<MemcpySection> memcpy_keys() {
  FieldTable<MemcpyPoint> point("memcpy point");
  point.integer("threads", member(&MemcpyPoint::threads), 1, 1 << 20, "copying threads").required();
  point.positive("traffic", member(&MemcpyPoint::traffic), "read + write bytes per second over all threads").required();
  FieldTable<MemcpySection> t("memcpy");
  t.positive("buffer_size", member(&MemcpySection::buffer_size), "bytes copied per pass, all threads").required();
  t.list("points", member(&MemcpySection::points), point, 1, "one per thread count").required();
  return t;
}

FieldTable<DramGatherSection> dram_gather_keys() {
  FieldTable<DramGatherPoint> point("dram_gather point");
  point.positive("row_size", member(&DramGatherPoint::row_size), "bytes per row").required();
  point.choice("distribution", member(&DramGatherPoint::distribution), distributions(), "row index distribution")
      .required();
  point.integer("threads", member(&DramGatherPoint::threads), 1, 1 << 20, "gathering threads").required();
  point.positive("rows_per_s", member(&DramGatherPoint::rows_per_s), "rows gathered per second, all threads")
      .required();
  point.positive("bandwidth", member(&DramGatherPoint::bandwidth), "payload: rows_per_s x row_size").required();
  FieldTable<DramGatherSection> t("dram_gather");
  t.positive("table_size", member(&DramGatherSection::table_size), "bytes of the table gathered from").required();
  t.positive("zipf_exponent", member(&DramGatherSection::zipf_exponent), "s of the `zipf` points").required();
  t.list("points", member(&DramGatherSection::points), point, 1, "one per (row size, distribution, threads)")
      .required();
  return t;
}

FieldTable<SsdRandomReadSection> ssd_random_read_keys() {
  FieldTable<SsdRandomReadPoint> point("ssd_random_read point");
  point.integer("queue_depth", member(&SsdRandomReadPoint::queue_depth), 1, 65536, "reads in flight").required();
  point.positive("iops", member(&SsdRandomReadPoint::iops), "reads completed per second").required();
  add_percentiles(point, "one read");
  FieldTable<SsdRandomReadSection> t("ssd_random_read");
  t.any_text("engine", member(&SsdRandomReadSection::engine), "how the reads were issued (`io_uring O_DIRECT`)")
      .required();
  t.positive("block_size", member(&SsdRandomReadSection::block_size), "bytes per read").required();
  t.positive("file_size", member(&SsdRandomReadSection::file_size), "span the offsets were drawn from").required();
  t.list("points", member(&SsdRandomReadSection::points), point, 1, "one per queue depth").required();
  return t;
}

FieldTable<SsdMmapSection> ssd_mmap_keys() {
  FieldTable<SsdMmapPoint> point("ssd_mmap point");
  point.integer("threads", member(&SsdMmapPoint::threads), 1, 1 << 20, "touching threads").required();
  point.positive("faults_per_s", member(&SsdMmapPoint::faults_per_s), "major faults per second, all threads")
      .required();
  add_percentiles(point, "one first touch of a non-resident page");
  FieldTable<SsdMmapSection> t("ssd_mmap");
  t.positive("page_size", member(&SsdMmapSection::page_size), "bytes per page").required();
  t.positive("file_size", member(&SsdMmapSection::file_size), "bytes of the mapped file").required();
  t.list("points", member(&SsdMmapSection::points), point, 1, "one per thread count").required();
  return t;
}

FieldTable<SsdSequentialSection> ssd_sequential_keys() {
  FieldTable<SsdSequentialSection> t("ssd_sequential");
  t.any_text("engine", member(&SsdSequentialSection::engine), "`io_uring O_DIRECT` or `buffered pread`").required();
  t.positive("block_size", member(&SsdSequentialSection::block_size), "bytes per read").required();
  t.integer("queue_depth", member(&SsdSequentialSection::queue_depth), 1, 65536, "reads in flight").required();
  t.positive("bandwidth", member(&SsdSequentialSection::bandwidth), "bytes read per second").required();
  return t;
}

// --- GPU sections ----------------------------------------------------------------------------

FieldTable<HbmSection> hbm_keys() {
  FieldTable<HbmSection> t("hbm");
  t.positive("buffer_size", member(&HbmSection::buffer_size), "bytes copied per pass").required();
  t.positive("copy_traffic", member(&HbmSection::copy_traffic), "device-to-device copy, read + write").required();
  return t;
}

FieldTable<GpuGatherPoint> gather_point_keys() {
  FieldTable<GpuGatherPoint> t("gather point");
  t.positive("row_size", member(&GpuGatherPoint::row_size), "bytes per row").required();
  t.choice("distribution", member(&GpuGatherPoint::distribution), distributions(), "row index distribution").required();
  t.integer("rows", member(&GpuGatherPoint::rows), 1, INT64_MAX, "rows in one batch").required();
  t.positive("time", member(&GpuGatherPoint::time), "median wall time of one batch").required();
  t.positive("bandwidth", member(&GpuGatherPoint::bandwidth), "payload: rows x row_size / time").required();
  return t;
}

FieldTable<GpuGatherSection> gather_keys() {
  FieldTable<GpuGatherCurve> curve("gather curve");
  curve.positive("row_size", member(&GpuGatherCurve::row_size), "bytes per row").required();
  curve.choice("distribution", member(&GpuGatherCurve::distribution), distributions(), "row index distribution")
      .required();
  curve
      .number_above("efficiency", member(&GpuGatherCurve::efficiency), 0.0, 4.0,
                    "asymptotic efficiency against the section's `reference`")
      .required();
  curve.section("fit", member(&GpuGatherCurve::fit), fit_keys(), "").required();
  FieldTable<GpuGatherSection> t("gather");
  t.positive("table_size", member(&GpuGatherSection::table_size), "bytes of the table gathered from").required();
  t.positive("zipf_exponent", member(&GpuGatherSection::zipf_exponent), "s of the `zipf` points").required();
  t.any_text("reference", member(&GpuGatherSection::reference), "what `efficiency` is relative to, in words")
      .required();
  t.list("points", member(&GpuGatherSection::points), gather_point_keys(), 1, "one per batch").required();
  t.list("curves", member(&GpuGatherSection::curves), curve, 0,
         "alpha-beta over payload bytes, one per (row size, distribution)")
      .required();
  return t;
}

FieldTable<HostLinkSection> host_link_keys() {
  FieldTable<HostLinkSection> t("host_link");
  t.section("h2d_fit", member(&HostLinkSection::h2d_fit), fit_keys(), "").required();
  t.section("d2h_fit", member(&HostLinkSection::d2h_fit), fit_keys(), "").required();
  t.list("h2d", member(&HostLinkSection::h2d), transfer_keys(), 1, "pinned host -> device copies").required();
  t.list("d2h", member(&HostLinkSection::d2h), transfer_keys(), 1, "device -> pinned host copies").required();
  return t;
}

FieldTable<GemmPoint> gemm_point_keys() {
  FieldTable<GemmPoint> t("gemm point");
  t.choice("precision", member(&GemmPoint::precision), precisions(), "input precision").required();
  t.integer("m", member(&GemmPoint::m), 1, INT64_MAX, "rows of X").required();
  t.integer("n", member(&GemmPoint::n), 1, INT64_MAX, "rows of W (outputs)").required();
  t.integer("k", member(&GemmPoint::k), 1, INT64_MAX, "inner dimension").required();
  t.positive("time", member(&GemmPoint::time), "median time of one GEMM").required();
  t.positive("achieved", member(&GemmPoint::achieved), "2 m n k / time").required();
  return t;
}

FieldTable<GemmSection> gemm_keys() {
  FieldTable<GemmFit> fit("gemm fit");
  fit.choice("precision", member(&GemmFit::precision), precisions(), "input precision").required();
  fit.integer("n", member(&GemmFit::n), 1, INT64_MAX, "rows of W (outputs)").required();
  fit.integer("k", member(&GemmFit::k), 1, INT64_MAX, "inner dimension").required();
  fit.at_least_zero("overhead", member(&GemmFit::overhead), "fixed cost per call").required();
  fit.positive("rate", member(&GemmFit::rate), "asymptotic rate for large m").required();
  add_residuals(fit);
  FieldTable<GemmSection> t("gemm");
  t.any_text("library", member(&GemmSection::library), "the GEMM library and its version").required();
  t.list("points", member(&GemmSection::points), gemm_point_keys(), 1, "one per shape and precision").required();
  t.list("fits", member(&GemmSection::fits), fit, 0, "time = overhead + 2 m n k / rate, one per (precision, n, k)")
      .required();
  return t;
}

FieldTable<AttentionDecodeSection> attention_decode_keys() {
  FieldTable<AttentionDecodePoint> point("attention_decode point");
  point.integer("batch", member(&AttentionDecodePoint::batch), 1, INT64_MAX, "sequences").required();
  point.integer("context", member(&AttentionDecodePoint::context), 1, INT64_MAX, "tokens of KV per sequence")
      .required();
  point.positive("kv_bytes", member(&AttentionDecodePoint::kv_bytes), "K and V bytes streamed per call").required();
  point.positive("time", member(&AttentionDecodePoint::time), "median time of one call").required();
  point.positive("bandwidth", member(&AttentionDecodePoint::bandwidth), "kv_bytes / time").required();
  point.number_above("efficiency", member(&AttentionDecodePoint::efficiency), 0.0, 4.0, "bandwidth / hbm.copy_traffic")
      .required();
  FieldTable<AttentionDecodeSection> t("attention_decode");
  t.any_text("kernel", member(&AttentionDecodeSection::kernel), "what the proxy computes, in words").required();
  t.integer("kv_heads", member(&AttentionDecodeSection::kv_heads), 1, 1 << 16, "KV heads").required();
  t.integer("q_heads_per_kv", member(&AttentionDecodeSection::q_heads_per_kv), 1, 1 << 16, "query heads per KV head")
      .required();
  t.integer("head_dim", member(&AttentionDecodeSection::head_dim), 1, 1 << 16, "elements per head").required();
  t.list("points", member(&AttentionDecodeSection::points), point, 1, "one per (batch, context)").required();
  return t;
}

FieldTable<KernelLaunchSection> kernel_launch_keys() {
  FieldTable<KernelLaunchSection> t("kernel_launch");
  t.integer("kernels_per_graph", member(&KernelLaunchSection::kernels_per_graph), 1, 1 << 20,
            "back-to-back launches in one CUDA graph")
      .required();
  t.positive("row_size", member(&KernelLaunchSection::row_size), "bytes each tiny kernel normalises").required();
  t.positive("empty_kernel", member(&KernelLaunchSection::empty_kernel),
             "per kernel that does nothing (the launch gap)")
      .required();
  t.positive("tiny_kernel", member(&KernelLaunchSection::tiny_kernel), "per kernel that RMS-normalises one row")
      .required();
  return t;
}

FieldTable<PeerPairPoint> peer_pair_keys() {
  FieldTable<PeerPairPoint> t("peer pair");
  t.integer("src", member(&PeerPairPoint::src), 0, (1 << 16) - 1, "source GPU, below `gpus`").required();
  t.integer("dst", member(&PeerPairPoint::dst), 0, (1 << 16) - 1, "destination GPU, below `gpus`, not `src`")
      .required()
      .check([](const PeerPairPoint& q) -> std::string {
        return q.src == q.dst ? "a peer copy needs two different GPUs" : "";
      });
  t.positive("size", member(&PeerPairPoint::size), "bytes per copy").required();
  t.positive("bandwidth", member(&PeerPairPoint::bandwidth), "size / median time of one copy").required();
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
  t.integer("gpus", member(&CollectivesSection::gpus), 2, 1 << 16, "GPUs taking part").required();
  t.any_text("all_reduce_algorithm", member(&CollectivesSection::all_reduce_algorithm),
             "how the all-reduce runs, in words")
      .required();
  t.section("p2p_fit", member(&CollectivesSection::p2p_fit), fit_keys(), "").required();
  t.section("all_reduce_fit", member(&CollectivesSection::all_reduce_fit), fit_keys(), "").required();
  t.list("p2p", member(&CollectivesSection::p2p), transfer_keys(), 1, "GPU 0 -> GPU 1 copies").required();
  t.list("all_reduce", member(&CollectivesSection::all_reduce), transfer_keys(), 1,
         "all-reduces; size = buffer bytes per GPU")
      .required();
  t.list("p2p_pairs", member(&CollectivesSection::p2p_pairs), peer_pair_keys(), 0, "every ordered GPU pair at one size")
      .check(pair_outside);
  return t;
}

// --- the profile -----------------------------------------------------------------------------

FieldTable<CalibrationProvenance> provenance_keys() {
  FieldTable<CalibrationProvenance> t("provenance");
  t.any_text("host", member(&CalibrationProvenance::host), "hostname").required();
  t.any_text("cpu_model", member(&CalibrationProvenance::cpu_model), "`model name` of /proc/cpuinfo").required();
  t.integer("cpu_threads", member(&CalibrationProvenance::cpu_threads), 1, 1 << 20, "online logical CPUs").required();
  t.any_text("gpu", member(&CalibrationProvenance::gpu),
             "device name as the driver reports it (`NVIDIA H200`); empty: none. GPU sections need it");
  t.integer("gpu_count", member(&CalibrationProvenance::gpu_count), 0, 1 << 16, "GPUs of the machine");
  t.any_text("gpu_driver", member(&CalibrationProvenance::gpu_driver), "driver version (`580.159.03`)");
  t.any_text("cuda_runtime", member(&CalibrationProvenance::cuda_runtime), "CUDA runtime version (`13.0`)");
  t.any_text("date", member(&CalibrationProvenance::date), "ISO 8601 UTC (`2026-11-20T10:11:12Z`)").required();
  t.any_text("engramsim_version", member(&CalibrationProvenance::engramsim_version), "version that measured")
      .required();
  t.any_text("options", member(&CalibrationProvenance::options), "benchmark options as given on the command line");
  t.any_text("samples_file", member(&CalibrationProvenance::samples_file),
             "raw samples CSV, relative to the profile's folder");
  t.any_text("samples_hash", member(&CalibrationProvenance::samples_hash),
             "`fnv1a64:` and 16 hex digits of the samples file's bytes; required with `samples_file`")
      .check([](const CalibrationProvenance& v) -> std::string {
        const std::string& h = v.samples_hash;
        bool ok = v.samples_file.empty() || (h.size() == 24 && h.rfind("fnv1a64:", 0) == 0);
        for (std::size_t i = 8; ok && i < h.size(); ++i) ok = std::isxdigit(static_cast<unsigned char>(h[i])) != 0;
        return ok ? "" : "expected \"fnv1a64:\" and 16 hex digits (the hash of samples_file)";
      });
  t.any_text("notes", member(&CalibrationProvenance::notes), "free text: filesystem of the SSD file, THP policy, ...");
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
void add_section(Schema& s, const std::string& key, std::optional<Sub> Profile::*slot, const FieldTable<Sub>& sub,
                 bool gpu, std::string meaning) {
  typename FieldTable<Profile>::Absence absence{
      "not_measured",
      [](const Profile& p, const std::string& name) {
        const auto it = p.not_measured.find(name);
        return it == p.not_measured.end() ? std::string() : it->second;
      },
      [](Profile& p, const std::string& name, std::string reason) { p.not_measured[name] = std::move(reason); }};
  s.table.optional_section(key, member(slot), sub, absence, std::move(meaning));
  if (gpu)
    s.table.check([slot](const Profile& p) -> std::string {
      return (p.*slot).has_value() && p.provenance.gpu.empty()
                 ? "GPU section without provenance.gpu: name the GPU it was measured on"
                 : "";
    });
  s.sections.push_back({key, gpu, [slot](const Profile& p) { return (p.*slot).has_value(); }});
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
    x.table.text("name", member(&Profile::name), "the profile's name").required();
    x.table.section("provenance", member(&Profile::provenance), provenance_keys(), "").required();
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

// A profile as its file holds it (declared in calibration_profile.hpp): the schema's YAML under a
// two-line header.
std::string render_calibration_profile(const CalibrationProfile& p) {
  return "# engramsim calibration profile: measured on one machine. Units are in the strings;\n"
         "# schema and meaning in hardware/calibration_profile.hpp and docs/calibration.md.\n" +
         calibration_profile_schema().yaml(p);
}

void write_calibration_profile(const CalibrationProfile& p, const std::string& path) {
  write_text_file_atomically(path, render_calibration_profile(p));
}

}  // namespace engramsim
