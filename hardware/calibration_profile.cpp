// Calibration profile: atomic writing, descriptions and the GPU match rule. The keys are declared,
// and a profile rendered as YAML, in calibration_schema.cpp; the strict loader lives in
// calibration_profile_loader.cpp; this file needs no YAML library so that the GPU calibration tool
// can be built on a machine with only the CUDA toolkit.
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

#include "core/error.hpp"
#include "core/rng.hpp"

namespace engramsim {

const char* to_string(IndexDistribution d) { return kIndexDistributionNames.name(d); }

std::optional<IndexDistribution> index_distribution_from_string(const std::string& s) {
  return kIndexDistributionNames.parse(s);
}

const char* to_string(SectionState s) { return kSectionStateNames.name(s); }

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

std::string samples_hash_of(const std::string& bytes) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(stable_hash(bytes)));
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Descriptions.
namespace {

std::string human(Bandwidth b) { return to_string(b); }

std::string g6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

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
    if (!s.points.empty())
      os << "; QD" << s.points.front().queue_depth << " p50 " << to_string(s.points.front().latency.p50);
  } else if (n == "ssd_mmap") {
    const auto& s = *p.ssd_mmap;
    os << "max " << g6(best_of(s.points, [](const SsdMmapPoint& q) { return q.faults_per_s; })) << " faults/s over "
       << s.points.size() << " thread counts";
  } else if (n == "ssd_sequential") {
    os << "bandwidth " << human(p.ssd_sequential->bandwidth) << " (" << p.ssd_sequential->engine << ")";
  } else if (n == "hbm") {
    os << "copy traffic " << human(p.hbm->copy_traffic);
  } else if (n == "hbm_gather" || n == "uva_gather" || n == "staged_gather") {
    const GpuGatherSection& s = n == "hbm_gather"   ? *p.hbm_gather
                                : n == "uva_gather" ? *p.uva_gather
                                                    : *p.staged_gather;
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
    os << "best "
       << human(Bandwidth(best_of(s.points, [](const AttentionDecodePoint& q) { return q.bandwidth.value(); })))
       << " over " << s.points.size() << " points";
  } else if (n == "kernel_launch") {
    const auto& s = *p.kernel_launch;
    os << "empty kernel " << to_string(s.empty_kernel) << ", tiny kernel " << to_string(s.tiny_kernel) << " (graphs of "
       << s.kernels_per_graph << ")";
  } else if (n == "collectives") {
    const auto& s = *p.collectives;
    os << "P2P " << human(s.p2p_fit.beta) << ", all-reduce " << human(s.all_reduce_fit.beta) << " over " << s.gpus
       << " GPUs";
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
  static const std::vector<std::string> words = {"nvidia",  "amd",    "instinct", "tesla",
                                                 "geforce", "tensor", "core",     "gpu"};
  if (std::find(words.begin(), words.end(), t) != words.end()) return true;
  auto all_digits = [](const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
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
  if (!has_gpu_sections(p))
    return {MatchSeverity::ok, "profile has no GPU sections; its host sections apply to any GPU"};
  if (p.provenance.gpu.empty())
    return {MatchSeverity::error,
            "profile has GPU sections but provenance.gpu is empty: cannot tell which GPU they describe"};
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
      const char* why = best == 0   ? "both measured on it"
                        : best == 1 ? "both measured on a variant of its chip"
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
