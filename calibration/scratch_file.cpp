#include "calibration/scratch_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace engramsim::calibration {
namespace {

// Signal handlers can reach only static storage, so the cleanup registry is the one piece of
// process-wide state in the calibration code. It holds fixed buffers (no allocation in the
// handler) and atomic flags; the handler uses only async-signal-safe calls (unlink, sigaction,
// raise).
constexpr int kSlots = 8;
struct CleanupRegistry {
  std::array<std::array<char, PATH_MAX>, kSlots> paths{};
  std::array<std::atomic<bool>, kSlots> used{};
  std::mutex mu;  // guards installation and slot allocation (never taken in the handler)
  int active = 0;
  struct sigaction old_int {};
  struct sigaction old_term {};
};

CleanupRegistry& registry() {
  static CleanupRegistry r;
  return r;
}

void on_signal(int sig) {
  CleanupRegistry& r = registry();
  for (int i = 0; i < kSlots; ++i)
    if (r.used[static_cast<std::size_t>(i)].load()) ::unlink(r.paths[static_cast<std::size_t>(i)].data());
  ::sigaction(sig, sig == SIGINT ? &r.old_int : &r.old_term, nullptr);
  ::raise(sig);
}

}  // namespace

int register_cleanup_path(const std::string& path) {
  CleanupRegistry& r = registry();
  if (path.size() >= PATH_MAX) return -1;
  std::lock_guard<std::mutex> lock(r.mu);
  for (int i = 0; i < kSlots; ++i) {
    auto idx = static_cast<std::size_t>(i);
    if (r.used[idx].load()) continue;
    std::memcpy(r.paths[idx].data(), path.c_str(), path.size() + 1);
    r.used[idx].store(true);
    if (r.active++ == 0) {
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = 0;
      ::sigaction(SIGINT, &sa, &r.old_int);
      ::sigaction(SIGTERM, &sa, &r.old_term);
    }
    return i;
  }
  return -1;
}

void unregister_cleanup_path(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  CleanupRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto idx = static_cast<std::size_t>(slot);
  if (!r.used[idx].load()) return;
  r.used[idx].store(false);
  if (--r.active == 0) {
    ::sigaction(SIGINT, &r.old_int, nullptr);
    ::sigaction(SIGTERM, &r.old_term, nullptr);
  }
}

ScratchFile::ScratchFile(const std::string& directory, std::uint64_t bytes) : bytes_(bytes) {
  if (bytes < 4096) throw std::invalid_argument("scratch file must hold at least one 4 KiB page");
  std::string tmpl = directory + "/engramsim-calibrate-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  // SIGINT/SIGTERM stay blocked from creation to registration, so no signal can leave the file
  // behind between the two.
  sigset_t block, saved;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &block, &saved);
  const int fd = ::mkstemp(name.data());
  const int create_errno = errno;
  if (fd >= 0) {
    path_ = name.data();
    slot_ = register_cleanup_path(path_);
  }
  ::pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (fd < 0)
    throw std::runtime_error("cannot create a scratch file in " + directory + ": " + std::strerror(create_errno));
  if (slot_ < 0) {
    ::close(fd);
    ::unlink(path_.c_str());
    throw std::runtime_error("too many scratch files at once");
  }
  auto fail = [&](const std::string& what) {
    const int err = errno;
    ::close(fd);
    ::unlink(path_.c_str());
    unregister_cleanup_path(slot_);
    throw std::runtime_error(what + " " + path_ + ": " + std::strerror(err));
  };
  constexpr std::size_t chunk = 1u << 20;
  std::vector<std::uint64_t> buf(chunk / 8);
  std::uint64_t state = 0x243f6a8885a308d3ULL;
  for (std::uint64_t done = 0; done < bytes;) {
    for (auto& w : buf) {
      // splitmix64: every 8 bytes differ, so nothing below can compress the file.
      state += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, bytes - done));
    std::size_t off = 0;
    while (off < want) {
      const ssize_t w = ::write(fd, reinterpret_cast<const char*>(buf.data()) + off, want - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail("cannot write");
      off += static_cast<std::size_t>(w);
    }
    done += want;
  }
  if (::fdatasync(fd) != 0) fail("cannot flush");
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

ScratchFile::~ScratchFile() {
  ::unlink(path_.c_str());
  unregister_cleanup_path(slot_);
}

}  // namespace engramsim::calibration
