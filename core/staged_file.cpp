#include "core/staged_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace engramsim {
namespace fs = std::filesystem;
namespace {

std::string host_name() {
  char host[64] = "host";
  ::gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  return host;
}

std::string error_text(const std::string& what, const fs::path& file, int error) {
  return what + " " + file.string() + ": " + std::strerror(error);
}

void fsync_dir(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: some file systems refuse directory fds
  ::fsync(fd);
  ::close(fd);
}

// The pid of a temporary of this host ("NAME.tmp.HOST.PID"), or 0 when `name` is not one.
pid_t temporary_owner(const std::string& name, const std::string& host) {
  const std::string mark = ".tmp." + host + ".";
  const auto at = name.rfind(mark);
  if (at == std::string::npos || at == 0) return 0;
  const std::string digits = name.substr(at + mark.size());
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<pid_t>(std::stol(digits));
}

bool process_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

fs::path temporary_name(const fs::path& file) {
  return file.string() + ".tmp." + host_name() + "." + std::to_string(::getpid());
}

std::size_t remove_stale_temporaries(const fs::path& dir) {
  const std::string host = host_name();
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const pid_t owner = temporary_owner(it->path().filename().string(), host);
    if (owner > 0 && owner != ::getpid() && process_gone(owner) && fs::remove(it->path(), ec)) ++removed;
  }
  return removed;
}

bool FdStreamBuf::drain() {
  const char* p = pbase();
  std::size_t left = static_cast<std::size_t>(pptr() - pbase());
  while (left > 0 && error_ == 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno != EINTR) error_ = errno;
      continue;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return error_ == 0;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type ch) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  *pptr() = traits_type::to_char_type(ch);
  pbump(1);
  return ch;
}

int FdStreamBuf::sync() { return drain() ? 0 : -1; }

StagedFile::StagedFile(fs::path file) : file_(std::move(file)), tmp_(temporary_name(file_)), stream_(nullptr) {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(error_text("cannot create", tmp_, errno));
  buf_ = std::make_unique<FdStreamBuf>(fd_);
  stream_.rdbuf(buf_.get());
}

StagedFile::~StagedFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void StagedFile::fail(const std::string& what, int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  tmp_.clear();
  throw std::runtime_error(error_text(what, file_, error));
}

void StagedFile::commit() {
  stream_.flush();
  if (buf_->error() != 0) fail("cannot write", buf_->error());
  if (!stream_) fail("cannot write", EIO);
  if (::fsync(fd_) != 0) fail("cannot fsync", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot close", errno);
  if (::rename(tmp_.c_str(), file_.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp_.c_str());
    tmp_.clear();
    throw std::runtime_error(error_text("cannot rename onto", file_, error));
  }
  tmp_.clear();
  fsync_dir(file_.parent_path());
}

void write_file_staged(const fs::path& file, const std::string& text) {
  StagedFile f(file);
  f.stream() << text;
  f.commit();
}

void remove_output_file(const fs::path& file) {
  if (::unlink(file.c_str()) != 0 && errno != ENOENT)
    throw std::runtime_error(error_text("cannot remove", file, errno));
}

}  // namespace engramsim
