// Writing an output file so that it is either absent (or its old version) or complete, never torn:
// the bytes go to FILE.tmp.HOST.PID in the same folder, the stream is checked when it is flushed
// and closed, the data is fsynced, and only then is the temporary renamed onto FILE (and the
// folder fsynced). Any failure removes the temporary and throws std::runtime_error naming FILE and
// the errno text ("cannot write out/requests.csv: File too large").
//
// Host and pid are in the temporary's name so that processes on several machines may share a
// folder (sweep shards); remove_stale_temporaries removes the ones a killed process of this host
// left behind.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace engramsim {

// FILE.tmp.HOST.PID, beside `file`.
std::filesystem::path temporary_name(const std::filesystem::path& file);

// Removes the temporaries (as temporary_name makes them) under `dir`, recursively, that a process
// of this host which no longer runs left behind (a kill between writing and renaming). A
// temporary of a live process, or of another host, is left alone. Returns how many it removed.
std::size_t remove_stale_temporaries(const std::filesystem::path& dir);

// A stream buffer over a file descriptor that keeps the errno of its first failed write.
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : fd_(fd), buffer_(kBufferBytes) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  int error() const { return error_; }  // 0 until a write fails

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;

 private:
  static constexpr std::size_t kBufferBytes = 1 << 16;
  bool drain();

  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
};

// One file written through its temporary. stream() takes the contents; commit() checks, syncs
// and renames. Destroyed without a commit (an exception on the way), it removes its temporary.
class StagedFile {
 public:
  explicit StagedFile(std::filesystem::path file);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  std::ostream& stream() { return stream_; }
  const std::filesystem::path& path() const { return file_; }
  void commit();

 private:
  [[noreturn]] void fail(const std::string& what, int error);

  std::filesystem::path file_;
  std::filesystem::path tmp_;
  int fd_ = -1;
  std::unique_ptr<FdStreamBuf> buf_;
  std::ostream stream_;
};

// A whole file from a string, through StagedFile.
void write_file_staged(const std::filesystem::path& file, const std::string& text);

// Removes `file` when it exists (a completion mark about to be rewritten); throws
// std::runtime_error naming the file and the reason when it cannot.
void remove_output_file(const std::filesystem::path& file);

}  // namespace engramsim
