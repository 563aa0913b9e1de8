#include "calibration/ssd_benchmarks.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "calibration/host_info.hpp"
#include "calibration/rank_scatter.hpp"
#include "calibration/scratch_file.hpp"
#include "core/error.hpp"

namespace engramsim::calibration {
namespace {

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void bad_path(const std::string& msg) { throw ConfigError({"command line", 0, 0}, "--ssd-path", msg); }

// Fraction of the file's pages that are in the page cache.
double resident_fraction(const void* map, std::uint64_t bytes) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t pages = (bytes + page - 1) / page;
  std::vector<unsigned char> v(pages);
  if (::mincore(const_cast<void*>(map), bytes, v.data()) != 0) return 1.0;
  std::uint64_t resident = 0;
  for (auto b : v) resident += b & 1u;
  return static_cast<double>(resident) / static_cast<double>(pages);
}

std::optional<MmapRun> mmap_faults(const std::string& path, std::uint64_t bytes, int threads, double seconds,
                                   std::uint64_t seed, std::string& reason) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    reason = std::string("cannot open for mmap: ") + std::strerror(errno);
    return std::nullopt;
  }
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (map == MAP_FAILED) {
    reason = std::string("mmap failed: ") + std::strerror(errno);
    return std::nullopt;
  }
  struct Unmap {
    void* p;
    std::uint64_t n;
    ~Unmap() { ::munmap(p, n); }
  } unmap{map, bytes};
  // Without readahead each first touch is one page read, as for a random Engram row.
  ::madvise(map, bytes, MADV_RANDOM);
  const double resident = resident_fraction(map, bytes);
  if (resident > 0.1) {
    reason = "file pages stay in the page cache after POSIX_FADV_DONTNEED (" +
             std::to_string(static_cast<int>(resident * 100)) +
             "% resident; tmpfs or a filesystem that ignores it), so faults would not reach the device";
    return std::nullopt;
  }
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t pages = bytes / page;
  // A bijection of the page numbers with a random start: a random order without a table.
  const RankScatter order(pages);
  RngStream rng(seed, "ssd/mmap/" + std::to_string(threads));
  const auto offset = static_cast<std::uint64_t>(rng.uniform_int(0, static_cast<std::int64_t>(pages) - 1));

  MmapRun run;
  run.threads = threads;
  std::vector<std::vector<double>> lat(static_cast<std::size_t>(threads));
  std::atomic<std::uint64_t> sink{0};
  const auto start = Clock::now();
  const auto stop_at = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const auto* base = static_cast<const volatile unsigned char*>(map);
      auto& mine = lat[static_cast<std::size_t>(t)];
      std::uint64_t sum = 0;
      // Each page is touched once (disjoint strided slices of one permutation): every touch is a
      // first touch of a dropped page, i.e. a major fault.
      for (std::uint64_t i = static_cast<std::uint64_t>(t); i < pages; i += static_cast<std::uint64_t>(threads)) {
        const auto t0 = Clock::now();
        if (t0 >= stop_at) break;
        sum += base[order((i + offset) % pages) * page];
        mine.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      }
      sink += sum;
    });
  }
  for (auto& th : pool) th.join();
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& v : lat) {
    run.faults += v.size();
    run.latencies.insert(run.latencies.end(), v.begin(), v.end());
  }
  if (run.faults == 0) {
    reason = "no page faults completed";
    return std::nullopt;
  }
  return run;
}

using Say = std::function<void(const std::string&)>;

// The file the benchmarks read: a scratch file written in the folder `o.path` names (or the temp
// folder), or an existing file read only. Fills the result's file fields.
std::string open_target(const SsdOptions& o, const Say& say, SsdResults& r, std::unique_ptr<ScratchFile>& scratch) {
  namespace fs = std::filesystem;
  const std::string where = o.path.empty() ? fs::temp_directory_path().string() : o.path;
  std::error_code ec;
  const auto st = fs::status(where, ec);
  if (ec || !fs::exists(st)) bad_path("\"" + where + "\" does not exist");
  std::string file;
  if (fs::is_directory(st)) {
    if (o.scratch_bytes < (1u << 20)) throw ConfigError({"command line", 0, 0}, "--ssd-size", "must be at least 1MiB");
    say("writing a " + std::to_string(o.scratch_bytes >> 20) + " MiB scratch file in " + where);
    scratch = std::make_unique<ScratchFile>(where, o.scratch_bytes);
    file = scratch->path();
    r.file = "scratch file of " + std::to_string(o.scratch_bytes >> 20) + " MiB in " + where;
    r.file_bytes = o.scratch_bytes;
  } else if (fs::is_regular_file(st)) {
    file = where;
    r.file_bytes = fs::file_size(where, ec);
    if (ec || r.file_bytes < (1u << 20)) bad_path("\"" + where + "\" is smaller than 1 MiB");
    r.file = "existing file " + where + " (read only)";
  } else {
    bad_path("\"" + where + "\" is neither a regular file nor a folder");
  }
  r.filesystem = filesystem_type(file);
  return file;
}

// 4 KiB random reads through io_uring with O_DIRECT, one run per queue depth; returns why O_DIRECT
// cannot be used ("" when it can).
std::string random_reads(const SsdOptions& o, const Say& say, int direct_fd, std::uint64_t usable,
                         std::string direct_reason, const UringStatus& ur, SsdResults& r) {
  if (!ur.available) {
    r.random_reads_reason = ur.reason;
    return direct_reason;
  }
  if (!direct_reason.empty()) {
    r.random_reads_reason = direct_reason;
    return direct_reason;
  }
  std::vector<RandomReadRun> runs;
  RngStream rng(o.seed, "ssd/random");
  try {
    for (const int qd : o.queue_depths) {
      say("4 KiB random reads, io_uring O_DIRECT, queue depth " + std::to_string(qd));
      runs.push_back(uring_random_reads(direct_fd, usable, o.block, qd, o.seconds_per_depth, rng));
    }
    r.random_reads = std::move(runs);
  } catch (const IoError& e) {
    // EINVAL here is a filesystem that accepts O_DIRECT at open but not for these reads.
    if (e.error_number() != EINVAL || !runs.empty())
      throw std::runtime_error(std::string("SSD random reads: ") + e.what());
    r.random_reads_reason = std::string("O_DIRECT reads rejected on ") + r.filesystem + " (" + e.what() + ")";
    return r.random_reads_reason;
  }
  return "";
}

// Buffered sequential reads after dropping the file from the page cache; refused when it stays
// there (a buffered read would then measure memory).
void buffered_sequential(const SsdOptions& o, const std::string& file, SsdResults& r) {
  Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw std::runtime_error("cannot open " + file + ": " + std::strerror(errno));
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  const std::uint64_t probe_bytes = std::min<std::uint64_t>(r.file_bytes, 16ull << 30);
  void* probe = ::mmap(nullptr, probe_bytes, PROT_READ, MAP_SHARED, fd.get(), 0);
  const double resident = probe == MAP_FAILED ? 1.0 : resident_fraction(probe, probe_bytes);
  if (probe != MAP_FAILED) ::munmap(probe, probe_bytes);
  if (resident > 0.1) {
    r.sequential_reason = "no O_DIRECT and the file stays in the page cache: a buffered read would measure memory";
    return;
  }
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  std::vector<unsigned char> buf(o.sequential_block);
  SequentialRun run;
  const auto start = Clock::now();
  for (std::uint64_t off = 0; off + o.sequential_block <= r.file_bytes; off += o.sequential_block) {
    const ssize_t n = ::pread(fd.get(), buf.data(), o.sequential_block, static_cast<off_t>(off));
    if (n < 0) throw std::runtime_error("sequential read of " + file + ": " + std::strerror(errno));
    run.bytes += static_cast<std::uint64_t>(n);
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.sequential = run;
  r.sequential_engine = "buffered pread";
}

// mmap page faults, one point per thread count; the mapping is capped at 16 GiB so the residency map
// and the page walk stay small for any file.
void mmap_points(const SsdOptions& o, const Say& say, const std::string& file, std::uint64_t usable, SsdResults& r) {
  std::vector<MmapRun> mm;
  for (const int t : o.mmap_threads) {
    say("mmap page faults, " + std::to_string(t) + (t == 1 ? " thread" : " threads"));
    std::string reason;
    auto run =
        mmap_faults(file, std::min<std::uint64_t>(usable, 16ull << 30), t, o.mmap_seconds_per_point, o.seed, reason);
    if (!run) {
      r.mmap_reason = reason;
      return;
    }
    mm.push_back(std::move(*run));
  }
  if (!mm.empty()) r.mmap = std::move(mm);
}

}  // namespace

SsdResults run_ssd_benchmarks(const SsdOptions& o, const std::function<void(const std::string&)>& progress) {
  const Say say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  SsdResults r;
  std::unique_ptr<ScratchFile> scratch;
  const std::string file = open_target(o, say, r, scratch);
  const std::uint64_t usable = r.file_bytes / o.block * o.block;

  const UringStatus ur = uring_status();
  Fd direct(::open(file.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
  const int direct_errno = errno;
  std::string direct_reason;
  const bool in_memory = r.filesystem == "tmpfs" || r.filesystem == "ramfs";
  if (in_memory)
    direct_reason = "the file is on " + r.filesystem + ": its reads come from memory, not from a storage device";
  else if (direct.get() < 0)
    direct_reason = std::string("O_DIRECT open failed on ") + r.filesystem + " (" + std::strerror(direct_errno) + ")";
  direct_reason = random_reads(o, say, direct.get(), usable, direct_reason, ur, r);

  // Sequential: io_uring O_DIRECT when possible, else buffered reads after dropping the cache.
  say("sequential reads");
  if (ur.available && direct_reason.empty()) {
    r.sequential = uring_sequential_read(direct.get(), usable / o.sequential_block * o.sequential_block,
                                         o.sequential_block, o.sequential_queue_depth, o.sequential_min_seconds, 4);
    r.sequential_engine = "io_uring O_DIRECT";
  } else if (in_memory) {
    r.sequential_reason = direct_reason;
  } else {
    buffered_sequential(o, file, r);
  }
  if (in_memory)
    r.mmap_reason = direct_reason;
  else
    mmap_points(o, say, file, usable, r);
  return r;
}

}  // namespace engramsim::calibration
