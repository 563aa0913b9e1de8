#include "planner/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "planner/sweep_refusal.hpp"

namespace engramsim::planner {
namespace fs = std::filesystem;

FolderLock::FolderLock(const fs::path& dir, std::chrono::milliseconds patience) : dir_(dir) {
  fs::create_directories(dir);
  const fs::path file = dir / "sweep.lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + file.string() + ": " + std::strerror(errno));
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline) {
      const int saved = errno;
      ::close(fd_);
      if (saved != EWOULDBLOCK) throw std::runtime_error("cannot lock " + file.string() + ": " + std::strerror(saved));
      throw SweepRefusal(exit_code::folder_busy,
                         dir.string() +
                             " is in use by another sweep process (it holds sweep.lock); nothing was changed "
                             "here: rerun when it is done, or choose another output folder");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

void check_not_being_written(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  if (busy)
    throw SweepRefusal(exit_code::folder_busy, file.string() +
                                                   " is being written by a sweep process that is still running; "
                                                   "nothing was changed: merge when it is done");
}

}  // namespace engramsim::planner
