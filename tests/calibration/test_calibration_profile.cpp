// Calibration profile schema: round trip through the writer and the strict loader, every kind of
// bad input, section descriptions, the GPU match rule, atomic writes and the samples hash.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "hardware/calibration_profile.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

AlphaBeta ab(double alpha_us, double beta_gbs) {
  AlphaBeta f;
  f.alpha = Time::us(alpha_us);
  f.beta = Bandwidth::gb_per_s(beta_gbs);
  f.rms_relative_residual = 0.012;
  f.max_relative_residual = 0.031;
  f.samples = 6;
  return f;
}

GpuGatherSection gather(double beta) {
  GpuGatherSection s;
  s.table_size = Bytes::gib(2);
  s.zipf_exponent = 1.0;
  s.reference = "2 x beta / hbm.copy_traffic";
  s.points.push_back({Bytes(264), IndexDistribution::uniform, 1024, Time::us(7.5), Bandwidth::gb_per_s(36.04)});
  s.points.push_back({Bytes(264), IndexDistribution::zipf, 262144, Time::us(40.25), Bandwidth::gb_per_s(1719.3)});
  s.curves.push_back({Bytes(264), IndexDistribution::uniform, ab(4.5, beta), 0.61});
  return s;
}

CalibrationProfile full_profile() {
  CalibrationProfile p;
  p.name = "h200-box";
  auto& v = p.provenance;
  v.host = "gpu-host-7";
  v.cpu_model = "Intel(R) Xeon(R) Platinum 8480C \"quoted\"";
  v.cpu_threads = 224;
  v.gpu = "NVIDIA H200";
  v.gpu_count = 8;
  v.gpu_driver = "580.159.03";
  v.cuda_runtime = "13.0";
  v.date = "2026-11-20T10:11:12Z";
  v.engramsim_version = "0.1.0";
  v.options = "engramsim calibrate --quick";
  v.samples_file = "h200-box.samples.csv";
  v.samples_hash = "fnv1a64:0123456789abcdef";
  v.notes = "ssd: scratch file\tin /mnt/nvme (xfs)";
  p.memcpy = MemcpySection{Bytes::mib(512), {{1, Bandwidth::gb_per_s(21.5)}, {64, Bandwidth::gb_per_s(310.25)}}};
  p.dram_gather = DramGatherSection{Bytes::gib(4),
                                    1.1,
                                    {{Bytes(264), IndexDistribution::uniform, 1, 4.5e6, Bandwidth::gb_per_s(1.188)},
                                     {Bytes(4096), IndexDistribution::zipf, 64, 2.5e7, Bandwidth::gb_per_s(102.4)}}};
  p.ssd_random_read = SsdRandomReadSection{"io_uring O_DIRECT",
                                           Bytes::kib(4),
                                           Bytes::gib(2),
                                           {{1, 12500.5, {Time::us(78.2), Time::us(85.0), Time::us(120.4)}},
                                            {256, 1.45e6, {Time::us(170.0), Time::us(210.9), Time::ms(1.25)}}}};
  p.ssd_mmap = SsdMmapSection{Bytes::kib(4), Bytes::gib(2), {{4, 48000, {Time::us(80), Time::us(95), Time::us(300)}}}};
  p.ssd_sequential = SsdSequentialSection{"io_uring O_DIRECT", Bytes::mib(1), 8, Bandwidth::gb_per_s(6.81)};
  p.hbm = HbmSection{Bytes::gib(1), Bandwidth::gb_per_s(4312.5)};
  p.hbm_gather = gather(1300.0);
  HostLinkSection h;
  h.h2d = {{Bytes::kib(4), Time::us(9.1)}, {Bytes::mib(64), Time::ms(1.23)}};
  h.d2h = {{Bytes::kib(4), Time::us(8.8)}, {Bytes::mib(64), Time::ms(1.2)}};
  h.h2d_fit = ab(8.9, 54.4);
  h.d2h_fit = ab(8.7, 55.1);
  p.host_link = h;
  p.uva_gather = gather(21.0);
  p.staged_gather = gather(11.5);
  GemmSection g;
  g.library = "cuBLASLt 13.0.0";
  g.points = {{Precision::bf16, 1, 4608, 5120, Time::us(11.2), FlopRate::tflops(4.21)},
              {Precision::fp8, 16384, 28672, 8192, Time::ms(6.8), FlopRate::tflops(1131.8)}};
  g.fits = {{Precision::fp8, 28672, 8192, Time::us(6.5), FlopRate::tflops(1150.0), 0.02, 0.05, 4}};
  p.gemm = g;
  p.attention_decode = AttentionDecodeSection{
      "GQA decode proxy", 8, 8, 128, {{32, 8192, Bytes::gib(1), Time::us(420.0), Bandwidth::gb_per_s(2556.4), 0.59}}};
  p.kernel_launch = KernelLaunchSection{200, Bytes::kib(16), Time::us(1.9), Time::us(4.6)};
  CollectivesSection c;
  c.gpus = 8;
  c.all_reduce_algorithm = "ring over P2P";
  c.p2p = {{Bytes::kib(64), Time::us(12)}, {Bytes::mib(64), Time::us(190)}};
  c.all_reduce = {{Bytes::kib(64), Time::us(80)}, {Bytes::mib(64), Time::us(900)}};
  c.p2p_fit = ab(10.0, 360.0);
  c.p2p_pairs = {{0, 1, Bytes::mib(256), Bandwidth::gb_per_s(371.5)},
                 {7, 0, Bytes::mib(256), Bandwidth::gb_per_s(365.25)}};
  c.all_reduce_fit = ab(70.0, 80.0);
  p.collectives = c;
  return p;
}

void expect_close(double a, double b) {
  EXPECT_NEAR(a, b, 1e-5 * std::max(std::abs(a), std::abs(b))) << a << " vs " << b;
}
void expect_close(Time a, Time b) {
  EXPECT_NEAR(static_cast<double>(a.count_ns()), static_cast<double>(b.count_ns()), 1.0 + 1e-5 * b.count_ns());
}

// A minimal valid profile text to which each bad-input test adds or changes one thing.
std::string base_text(const std::string& extra) {
  return "schema: engramsim-calibration/1\n"
         "name: t\n"
         "provenance:\n"
         "  host: h\n"
         "  cpu_model: c\n"
         "  cpu_threads: 2\n"
         "  date: \"2026-11-20T10:11:12Z\"\n"
         "  engramsim_version: \"0.1.0\"\n" +
         extra;
}

std::string error_of(const std::string& text) {
  return test::config_error_of([&] { parse_calibration_profile(text, "p.yaml"); });
}

TEST(CalibrationProfile, RoundTripKeepsEverySection) {
  const CalibrationProfile p = full_profile();
  const std::string text = render_calibration_profile(p);
  const CalibrationProfile q = parse_calibration_profile(text, "round.yaml");
  EXPECT_EQ(q.name, p.name);
  EXPECT_EQ(q.provenance.cpu_model, p.provenance.cpu_model);
  EXPECT_EQ(q.provenance.notes, p.provenance.notes);
  EXPECT_EQ(q.provenance.gpu, "NVIDIA H200");
  EXPECT_EQ(q.provenance.samples_hash, p.provenance.samples_hash);
  for (const auto& n : calibration_section_names()) EXPECT_TRUE(has_section_data(q, n)) << n;
  ASSERT_EQ(q.memcpy->points.size(), 2u);
  expect_close(q.memcpy->points[1].traffic.value(), 310.25e9);
  ASSERT_EQ(q.dram_gather->points.size(), 2u);
  EXPECT_EQ(q.dram_gather->points[1].distribution, IndexDistribution::zipf);
  expect_close(q.dram_gather->zipf_exponent, 1.1);
  expect_close(q.dram_gather->points[0].rows_per_s, 4.5e6);
  expect_close(q.dram_gather->points[0].row_size.value(), 264);
  expect_close(q.ssd_random_read->points[1].iops, 1.45e6);
  expect_close(q.ssd_random_read->points[1].latency.p99, Time::ms(1.25));
  expect_close(q.ssd_mmap->points[0].latency.p50, Time::us(80));
  EXPECT_EQ(q.ssd_sequential->queue_depth, 8);
  expect_close(q.hbm->copy_traffic.value(), 4312.5e9);
  ASSERT_EQ(q.hbm_gather->curves.size(), 1u);
  expect_close(q.hbm_gather->curves[0].fit.beta.value(), 1300e9);
  expect_close(q.hbm_gather->curves[0].fit.alpha, Time::us(4.5));
  EXPECT_EQ(q.hbm_gather->curves[0].fit.samples, 6);
  expect_close(q.hbm_gather->curves[0].efficiency, 0.61);
  expect_close(q.host_link->h2d_fit.rms_relative_residual, 0.012);
  expect_close(q.host_link->d2h[1].time, Time::ms(1.2));
  expect_close(q.uva_gather->curves[0].fit.beta.value(), 21e9);
  EXPECT_EQ(q.gemm->points[1].precision, Precision::fp8);
  EXPECT_EQ(q.gemm->points[1].n, 28672);
  expect_close(q.gemm->points[1].achieved.value(), 1131.8e12);
  expect_close(q.gemm->fits[0].rate.value(), 1150e12);
  EXPECT_EQ(q.attention_decode->head_dim, 128);
  expect_close(q.attention_decode->points[0].efficiency, 0.59);
  EXPECT_EQ(q.kernel_launch->kernels_per_graph, 200);
  expect_close(q.kernel_launch->tiny_kernel, Time::us(4.6));
  EXPECT_EQ(q.collectives->gpus, 8);
  expect_close(q.collectives->all_reduce_fit.beta.value(), 80e9);
  ASSERT_EQ(q.collectives->p2p_pairs.size(), 2u);
  EXPECT_EQ(q.collectives->p2p_pairs[1].src, 7);
  expect_close(q.collectives->p2p_pairs[1].bandwidth.value(), 365.25e9);
  // Rendering is a fixed point: the loaded profile renders to the same text.
  EXPECT_EQ(render_calibration_profile(q), text);
}

TEST(CalibrationProfile, NotMeasuredSectionsRoundTripAndAreDescribed) {
  CalibrationProfile p;
  p.name = "cpu-only";
  p.provenance.host = "h";
  p.provenance.cpu_model = "c";
  p.provenance.cpu_threads = 2;
  p.provenance.date = "2026-11-20T10:11:12Z";
  p.provenance.engramsim_version = "0.1.0";
  p.memcpy = MemcpySection{Bytes::mib(64), {{2, Bandwidth::gb_per_s(15)}}};
  p.not_measured["ssd_random_read"] = "O_DIRECT open failed on tmpfs (Invalid argument)";
  p.not_measured["hbm"] = "no CUDA device";
  const CalibrationProfile q = parse_calibration_profile(render_calibration_profile(p), "p.yaml");
  EXPECT_EQ(q.not_measured, p.not_measured);
  const auto d = describe_sections(q);
  ASSERT_EQ(d.size(), calibration_section_names().size());
  for (const auto& s : d) {
    if (s.name == "memcpy") {
      EXPECT_EQ(s.state, SectionState::measured);
      EXPECT_NE(s.detail.find("15.00 GB/s"), std::string::npos) << s.detail;
    } else if (s.name == "ssd_random_read" || s.name == "hbm") {
      EXPECT_EQ(s.state, SectionState::not_measured);
      EXPECT_NE(s.detail.find(p.not_measured.at(s.name)), std::string::npos);
      EXPECT_NE(s.detail.find("default applies"), std::string::npos);
    } else {
      EXPECT_EQ(s.state, SectionState::default_value) << s.name;
      EXPECT_FALSE(s.detail.empty());
    }
  }
}

TEST(CalibrationProfile, MinimalProfileLoadsWithEverySectionDefault) {
  const CalibrationProfile p = parse_calibration_profile(base_text(""), "p.yaml");
  for (const auto& n : calibration_section_names()) EXPECT_FALSE(has_section_data(p, n));
  EXPECT_TRUE(p.not_measured.empty());
}

TEST(CalibrationProfile, RejectsUnknownSectionWithLocation) {
  const std::string e = error_of(base_text("dram_gathr:\n  not_measured: x\n"));
  EXPECT_NE(e.find("p.yaml:9:1"), std::string::npos) << e;
  EXPECT_NE(e.find("dram_gathr"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown field"), std::string::npos) << e;
}

TEST(CalibrationProfile, RejectsUnknownFieldInsideAPoint) {
  const std::string e = error_of(
      base_text("memcpy:\n  buffer_size: 64MiB\n  points:\n    - {threads: 1, traffic: 10GB/s, trafic: 1GB/s}\n"));
  EXPECT_NE(e.find("memcpy.points[0].trafic"), std::string::npos) << e;
}

TEST(CalibrationProfile, RejectsWrongUnitsAndBareNumbers) {
  EXPECT_NE(error_of(base_text("memcpy:\n  buffer_size: 64MiB\n  points:\n    - {threads: 1, traffic: 10GB}\n"))
                .find("memcpy.points[0].traffic"),
            std::string::npos);
  EXPECT_NE(error_of(base_text("memcpy:\n  buffer_size: 64\n  points:\n    - {threads: 1, traffic: 10GB/s}\n"))
                .find("bare number"),
            std::string::npos);
  EXPECT_NE(
      error_of(base_text("ssd_sequential:\n  engine: x\n  block_size: 1MiB\n  queue_depth: 1\n  bandwidth: 2us\n"))
          .find("ssd_sequential.bandwidth"),
      std::string::npos);
}

TEST(CalibrationProfile, RejectsNanNegativeAndZero) {
  const std::string pre = "dram_gather:\n  table_size: 1GiB\n  zipf_exponent: 1\n  points:\n";
  EXPECT_NE(
      error_of(
          base_text(pre +
                    "    - {row_size: 264B, distribution: uniform, threads: 1, rows_per_s: .nan, bandwidth: 1GB/s}\n"))
          .find("rows_per_s"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          base_text(pre +
                    "    - {row_size: 264B, distribution: uniform, threads: 1, rows_per_s: 5, bandwidth: -1GB/s}\n"))
          .find("negative"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          base_text(pre +
                    "    - {row_size: 264B, distribution: uniform, threads: 1, rows_per_s: 5, bandwidth: 0GB/s}\n"))
          .find("greater than zero"),
      std::string::npos);
  EXPECT_NE(
      error_of(base_text(pre +
                         "    - {row_size: 264B, distribution: normal, threads: 1, rows_per_s: 5, bandwidth: 1GB/s}\n"))
          .find("expected one of uniform, zipf"),
      std::string::npos);
}

TEST(CalibrationProfile, RejectsUnorderedPercentiles) {
  const std::string s =
      "ssd_mmap:\n  page_size: 4KiB\n  file_size: 1GiB\n  points:\n"
      "    - {threads: 1, faults_per_s: 100, p50: 90us, p90: 80us, p99: 200us}\n";
  EXPECT_NE(error_of(base_text(s)).find("p90 is below p50"), std::string::npos);
}

TEST(CalibrationProfile, RejectsEmptyPointsAndMalformedNotMeasured) {
  EXPECT_NE(error_of(base_text("memcpy:\n  buffer_size: 64MiB\n  points: []\n")).find("at least one entry"),
            std::string::npos);
  EXPECT_NE(error_of(base_text("memcpy:\n  not_measured: \"no\"\n  buffer_size: 64MiB\n")).find("memcpy.buffer_size"),
            std::string::npos);
  EXPECT_NE(error_of(base_text("memcpy:\n  not_measured: \"\"\n")).find("give the reason"), std::string::npos);
  EXPECT_NE(error_of(base_text("memcpy: 5\n")).find("section map"), std::string::npos);
}

TEST(CalibrationProfile, RejectsWrongSchemaAndBadHash) {
  std::string t = base_text("");
  t.replace(t.find("calibration/1"), 13, "calibration/9");
  EXPECT_NE(error_of(t).find("unsupported schema"), std::string::npos);
  EXPECT_NE(error_of(base_text("")).size(), 1u);  // the base itself is fine
  std::string h = base_text("");
  h.replace(h.find("  engramsim_version"), 0, "  samples_file: p.samples.csv\n  samples_hash: md5:1234\n");
  EXPECT_NE(error_of(h).find("provenance.samples_hash"), std::string::npos) << error_of(h);
}

TEST(CalibrationProfile, RejectsGpuSectionWithoutGpuName) {
  const std::string e = error_of(base_text("hbm:\n  buffer_size: 1GiB\n  copy_traffic: 4TB/s\n"));
  EXPECT_NE(e.find("hbm"), std::string::npos);
  EXPECT_NE(e.find("provenance.gpu"), std::string::npos) << e;
  // The same section is fine once the GPU is named.
  std::string ok = base_text("hbm:\n  buffer_size: 1GiB\n  copy_traffic: 4TB/s\n");
  ok.replace(ok.find("  engramsim_version"), 0, "  gpu: \"NVIDIA H200\"\n");
  EXPECT_EQ(error_of(ok), "");
}

TEST(CalibrationProfile, RejectsAPeerPairOfOneGpu) {
  CalibrationProfile p = full_profile();
  p.collectives->p2p_pairs = {{3, 3, Bytes::mib(256), Bandwidth::gb_per_s(300)}};
  const std::string e = error_of(render_calibration_profile(p));
  EXPECT_NE(e.find("collectives.p2p_pairs[0].dst"), std::string::npos) << e;
  p.collectives->p2p_pairs = {{0, 8, Bytes::mib(256), Bandwidth::gb_per_s(300)}};  // 8 GPUs: ordinals 0..7
  EXPECT_NE(error_of(render_calibration_profile(p)).find("out of range"), std::string::npos);
}

TEST(CalibrationProfile, GpuMatchRule) {
  CalibrationProfile host_only;
  host_only.memcpy = MemcpySection{Bytes::mib(64), {{1, Bandwidth::gb_per_s(10)}}};
  EXPECT_EQ(check_profile_matches(host_only, "b300").severity, MatchSeverity::ok);

  CalibrationProfile p = full_profile();  // measured on "NVIDIA H200"
  EXPECT_EQ(check_profile_matches(p, "h200-sxm").severity, MatchSeverity::ok);
  EXPECT_EQ(check_profile_matches(p, "NVIDIA H200").severity, MatchSeverity::ok);
  EXPECT_EQ(check_profile_matches(p, "h200-nvl").severity, MatchSeverity::warning);
  EXPECT_EQ(check_profile_matches(p, "h100-sxm").severity, MatchSeverity::error);
  EXPECT_EQ(check_profile_matches(p, "b200").severity, MatchSeverity::error);
  p.provenance.gpu = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(check_profile_matches(p, "h100-sxm").severity, MatchSeverity::ok);
  p.provenance.gpu = "NVIDIA GB200";
  EXPECT_EQ(check_profile_matches(p, "b200").severity, MatchSeverity::error);
  EXPECT_EQ(check_profile_matches(p, "gb200").severity, MatchSeverity::ok);
  p.provenance.gpu = "AMD Instinct MI300X";
  EXPECT_EQ(check_profile_matches(p, "mi300x").severity, MatchSeverity::ok);
  p.provenance.gpu = "";
  const ProfileMatch m = check_profile_matches(p, "mi300x");
  EXPECT_EQ(m.severity, MatchSeverity::error);
  EXPECT_NE(m.message.find("provenance.gpu"), std::string::npos);
}

TEST(CalibrationProfile, ChoosingAmongProfilesPrefersTheGpusOwn) {
  CalibrationProfile host_only;
  host_only.memcpy = MemcpySection{Bytes::mib(64), {{1, Bandwidth::gb_per_s(10)}}};
  CalibrationProfile nvl = full_profile();
  nvl.provenance.gpu = "NVIDIA H200 NVL";
  const std::vector<CalibrationCandidate> c = {
      {"host.yaml", host_only}, {"nvl.yaml", nvl}, {"h200.yaml", full_profile()}};
  EXPECT_EQ(choose_calibration(c, "h200-sxm")->path, "h200.yaml");            // measured on it
  EXPECT_EQ(choose_calibration({c[0], c[1]}, "h200-sxm")->path, "nvl.yaml");  // a variant of its chip
  EXPECT_EQ(choose_calibration(c, "b300")->path, "host.yaml");                // host sections only
  EXPECT_EQ(choose_calibration({c[1], c[2]}, "b300"), nullptr);
  EXPECT_EQ(choose_calibration({}, "b300"), nullptr);
  // Two of the best rank: ambiguous, whatever their order.
  const std::vector<CalibrationCandidate> two = {
      {"a.yaml", full_profile()}, {"host.yaml", host_only}, {"b.yaml", full_profile()}};
  try {
    choose_calibration(two, "h200-sxm");
    ADD_FAILURE() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("a.yaml and b.yaml both apply to GPU h200-sxm (both measured on it)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(choose_calibration({c[0], c[0]}, "b300"), ConfigError);
}

TEST(CalibrationProfile, AtomicWriteReplacesAndLeavesNoTemporaries) {
  test::TempDir dir;
  const std::string path = dir.file("p.yaml");
  CalibrationProfile p = full_profile();
  write_calibration_profile(p, path);
  p.name = "second";
  write_calibration_profile(p, path);
  EXPECT_EQ(load_calibration_profile(path).name, "second");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(e.path().filename(), "p.yaml");
  }
  EXPECT_EQ(files, 1);
  EXPECT_THROW(write_calibration_profile(p, dir.file("missing-folder/p.yaml")), std::runtime_error);
}

TEST(CalibrationProfile, SamplesHashIsCheckedAgainstTheFile) {
  test::TempDir dir;
  CalibrationProfile p = full_profile();
  const std::string csv = "section,case,x_name,x,y_name,y\nmemcpy,threads=1,bytes,1,seconds,2\n";
  write_text_file_atomically(dir.file("p.samples.csv"), csv);
  p.provenance.samples_file = "p.samples.csv";
  p.provenance.samples_hash = samples_hash_of(csv);
  EXPECT_EQ(p.provenance.samples_hash.size(), 24u);
  write_calibration_profile(p, dir.file("p.yaml"));
  const CalibrationProfile q = load_calibration_profile(dir.file("p.yaml"));
  EXPECT_EQ(verify_samples_file(q, dir.file("p.yaml")), "");
  write_text_file_atomically(dir.file("p.samples.csv"), csv + "memcpy,threads=1,bytes,1,seconds,3\n");
  EXPECT_NE(verify_samples_file(q, dir.file("p.yaml")).find("has hash"), std::string::npos);
  // A samples file that never ends is refused at its bound, not read until memory runs out.
  CalibrationProfile z = q;
  z.provenance.samples_file = "/dev/zero";
  const std::string why = verify_samples_file(z, dir.file("p.yaml"));
  EXPECT_NE(why.find("samples file /dev/zero: larger than 256 MiB"), std::string::npos) << why;
}

TEST(CalibrationProfile, CheckedInProfilesLoadAndMatchTheirSamples) {
  const std::filesystem::path dir = std::filesystem::path(engramsim::test::source_root()) / "hardware" / "calibrations";
  int profiles = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    ++profiles;
    const CalibrationProfile p = load_calibration_profile(e.path().string());
    EXPECT_EQ(verify_samples_file(p, e.path().string()), "") << e.path();
    bool any = false;
    for (const auto& n : calibration_section_names()) any = any || has_section_data(p, n);
    EXPECT_TRUE(any) << e.path();
  }
  EXPECT_GE(profiles, 1);
}

TEST(CalibrationProfile, LoaderReportsMissingFile) {
  EXPECT_THROW(load_calibration_profile("/nonexistent/engramsim/p.yaml"), ConfigError);
}

}  // namespace
}  // namespace engramsim
