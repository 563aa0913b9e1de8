#include "calibration/host_info.hpp"

#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

namespace engramsim::calibration {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

std::uint64_t parse_cache_size(const std::string& s) {
  // sysfs writes "32768K" or "2M".
  std::uint64_t v = 0;
  std::size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    v = v * 10 + static_cast<std::uint64_t>(s[i++] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k'))
    v *= 1024;
  else if (i < s.size() && s[i] == 'M')
    v *= 1024 * 1024;
  return v;
}

}  // namespace

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

int online_cpus() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::uint64_t last_level_cache_bytes() {
  std::uint64_t best = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string type = read_first_line(dir + "type");
    if (type.empty()) continue;
    if (type == "Instruction") continue;
    best = std::max(best, parse_cache_size(read_first_line(dir + "size")));
  }
  if (best == 0) {
    const long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) best = static_cast<std::uint64_t>(l3);
  }
  return best;
}

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string transparent_hugepage_policy() {
  const std::string s = read_first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  const auto a = s.find('[');
  const auto b = s.find(']');
  if (a == std::string::npos || b == std::string::npos || b < a) return s;
  return s.substr(a + 1, b - a - 1);
}

std::string filesystem_type(const std::string& path) {
  struct statfs st {};
  if (::statfs(path.c_str(), &st) != 0) return "";
  const auto magic = static_cast<unsigned long>(st.f_type);
  switch (magic) {
    case 0xEF53UL:
      return "ext4";
    case 0x58465342UL:
      return "xfs";
    case 0x9123683EUL:
      return "btrfs";
    case 0x01021994UL:
      return "tmpfs";
    case 0x858458F6UL:
      return "ramfs";
    case 0x794C7630UL:
      return "overlayfs";
    case 0x6969UL:
      return "nfs";
    case 0x2FC12FC1UL:
      return "zfs";
    case 0xF2F52010UL:
      return "f2fs";
    case 0x01021997UL:
      return "9p";
    case 0x65735546UL:
      return "fuse";
    default:
      break;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%lx", magic);
  return buf;
}

}  // namespace engramsim::calibration
