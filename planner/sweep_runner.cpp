#include "planner/sweep_runner.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/error.hpp"
#include "core/staged_file.hpp"
#include "planner/folder_lock.hpp"
#include "planner/sweep_refusal.hpp"

namespace engramsim::planner {
namespace fs = std::filesystem;
namespace {

// MPI tags of the rank -> rank 0 stream.
constexpr int kTagLine = 1;
constexpr int kTagDone = 2;

// How long a shard waits for the folder while other shards claim theirs (each takes milliseconds;
// a Slurm array starts its tasks together).
constexpr std::chrono::milliseconds kShardPatience{60'000};

[[noreturn]] void io_error(const std::string& what, const fs::path& p) {
  throw std::runtime_error(what + " " + p.string() + ": " + std::strerror(errno));
}

// The append-only results file of one run, locked against a second writer.
class AppendFile {
 public:
  AppendFile(const fs::path& path, bool durable) : path_(path), durable_(durable) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) io_error("cannot open", path);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw SweepRefusal(exit_code::folder_busy, path.string() +
                                                     " is being written by another sweep process; nothing was "
                                                     "changed: rerun when it is done");
    }
  }
  ~AppendFile() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  void truncate(std::size_t bytes) {
    if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) io_error("cannot truncate", path_);
    sync();
  }

  void append(const std::string& data) {
    const char* p = data.data();
    std::size_t left = data.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        io_error("cannot write", path_);
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    if (durable_) sync();
  }

 private:
  void sync() {
    if (::fdatasync(fd_) != 0) io_error("cannot fdatasync", path_);
  }

  fs::path path_;
  bool durable_;
  int fd_ = -1;
};

// Completed lines travelling from worker threads to the single writer (the calling thread).
struct LineQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<std::string, PointStatus>> lines;
  std::size_t workers_left = 0;
};

ResultLine evaluate_one(const SweepPoint& p, const EvaluateFn& evaluate, const PruneFn& prune) {
  ResultLine line;
  line.index = p.index;
  line.id = p.id;
  try {
    line.assignments = p.assignments_json();
    std::optional<std::string> pruned;
    if (prune) pruned = prune(p);
    if (pruned) {
      line.status = PointStatus::infeasible;
      line.reason = *pruned;
    } else {
      Outcome o = evaluate(p);
      line.status = o.status;
      if (o.status == PointStatus::ok) {
        line.result = o.result.is_null() ? nlohmann::json::object() : std::move(o.result);
      } else if (o.status == PointStatus::infeasible) {
        line.reason = std::move(o.reason);
      } else {
        line.error = o.reason;
      }
    }
  } catch (const std::exception& e) {
    line.status = PointStatus::error;
    line.error = e.what();
  } catch (...) {
    line.status = PointStatus::error;
    line.error = "unknown exception";
  }
  return line;
}

// Worker threads over `todo`; each finished line goes to `q`. Threads stop early when `stop` is set.
class WorkerPool {
 public:
  WorkerPool(const std::vector<SweepPoint>& points, std::vector<std::size_t> todo, const EvaluateFn& evaluate,
             const PruneFn& prune, const std::function<bool()>& asked_to_stop, int jobs, LineQueue& q)
      : todo_(std::move(todo)) {
    unsigned n = jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
    n = static_cast<unsigned>(std::min<std::size_t>(n, todo_.size()));
    {
      std::lock_guard<std::mutex> lock(q.mu);
      q.workers_left = n;
    }
    for (unsigned t = 0; t < n; ++t) {
      threads_.emplace_back([this, &points, &evaluate, &prune, &asked_to_stop, &q] {
        for (;;) {
          if (stop_.load() || (asked_to_stop && asked_to_stop())) break;
          const std::size_t k = next_.fetch_add(1);
          if (k >= todo_.size()) break;
          ResultLine line = evaluate_one(points[todo_[k]], evaluate, prune);
          std::string text = line.to_line();
          text += '\n';
          std::lock_guard<std::mutex> lock(q.mu);
          q.lines.emplace_back(std::move(text), line.status);
          q.cv.notify_all();
        }
        std::lock_guard<std::mutex> lock(q.mu);
        --q.workers_left;
        q.cv.notify_all();
      });
    }
  }
  ~WorkerPool() {
    stop_.store(true);
    join();
  }
  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  void stop() { stop_.store(true); }

 private:
  std::vector<std::size_t> todo_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// Takes every queued line; waits up to `wait` for one when the queue is empty and workers remain.
// Returns false when the queue is empty and no worker is left.
bool take_lines(LineQueue& q, std::deque<std::pair<std::string, PointStatus>>& out,
                std::optional<std::chrono::milliseconds> wait) {
  std::unique_lock<std::mutex> lock(q.mu);
  auto ready = [&] { return !q.lines.empty() || q.workers_left == 0; };
  if (wait) {
    q.cv.wait_for(lock, *wait, ready);
  } else {
    q.cv.wait(lock, ready);
  }
  out.swap(q.lines);
  q.lines.clear();
  return !out.empty() || q.workers_left > 0;
}

std::ostream& progress_out(const SweepRunOptions& o) { return o.progress_stream ? *o.progress_stream : std::cerr; }

ProgressMode resolve_mode(const SweepRunOptions& o) {
  if (o.progress != ProgressMode::automatic) return o.progress;
  const bool to_stderr = o.progress_stream == nullptr || o.progress_stream == &std::cerr;
  return to_stderr && is_terminal(2) ? ProgressMode::bar : ProgressMode::lines;
}

SweepManifest make_manifest(const std::vector<SweepPoint>& points, const SweepRunOptions& o) {
  SweepManifest m;
  m.total_points = points.size();
  if (!points.empty())
    for (const auto& a : points.front().assignments) m.axes.push_back(a.key);
  m.fingerprint = o.fingerprint;
  m.inputs = o.inputs;
  m.tool = o.tool;
  return m;
}

// Refuses, naming what differs, when results recorded under `recorded` (read from `where`) were
// computed from other inputs than this run's.
void check_same_computation(const SweepManifest& recorded, const SweepManifest& mine, const fs::path& where,
                            bool accept_version_change) {
  const std::vector<std::string> diffs = manifest_differences(recorded, mine, accept_version_change);
  if (diffs.empty()) return;
  std::string text;
  for (const auto& d : diffs) text += (text.empty() ? "" : "; ") + d;
  throw SweepRefusal(exit_code::inputs_changed,
                     where.string() + ": " + text +
                         ". Nothing was changed: results computed from other inputs are not mixed with these "
                         "(restore what changed, or run into a new output folder)");
}

// Whether DIR holds a non-empty results file (results.jsonl or a shard's).
bool folder_holds_results(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("results.", 0) == 0 && e.path().extension() == ".jsonl" && e.is_regular_file(ec) &&
        e.file_size(ec) > 0)
      return true;
  }
  return false;
}

// Prepares DIR and the results file of this run; returns the indices already finished (as a
// 0/1 string over all points) after validating the existing lines.
struct OpenedRun {
  std::unique_ptr<FolderLock> lock;  // held for the run (not by shards, nor when the caller holds it)
  std::unique_ptr<AppendFile> file;
  fs::path path;
  std::string finished;  // finished[i] == '1' when point i has a line
  std::size_t already_done = 0;
};

// Under the folder's lock: checks DIR's manifest against this run's (the folder's results must have
// been computed as this run computes), refuses a results file that a run without --resume would
// overwrite, claims the results file, and only then writes the manifest and a shard's header.
void claim_results_file(const std::vector<SweepPoint>& points, const SweepRunOptions& o, const ShardSpec& shard,
                        OpenedRun& run) {
  const SweepManifest mine = make_manifest(points, o);
  const auto existing = read_manifest(o.out_dir);
  const bool has_lines = fs::exists(run.path) && fs::file_size(run.path) > 0;
  if (has_lines && !o.resume) {
    throw ConfigError({"--out", 0, 0}, "",
                      run.path.string() +
                          " already holds results; pass --resume to continue that sweep, "
                          "or choose another output folder");
  }
  // The folder's manifest speaks for every result in it; one that differs is replaced only while
  // the folder holds none.
  if (existing && (o.resume || folder_holds_results(o.out_dir)))
    check_same_computation(*existing, mine, o.out_dir / "sweep.json", o.accept_version_change);
  const fs::path header = shard_header_path(run.path);
  const auto shard_existing = shard.count > 1 ? read_manifest_file(header) : std::nullopt;
  if (shard_existing && has_lines) check_same_computation(*shard_existing, mine, header, o.accept_version_change);
  run.file = std::make_unique<AppendFile>(run.path, o.durable);
  if (!existing || !(*existing == mine)) write_manifest(o.out_dir, mine);
  if (shard.count > 1 && !(shard_existing && *shard_existing == mine)) write_manifest_file(header, mine);
}

OpenedRun open_run(const std::vector<SweepPoint>& points, const SweepRunOptions& o, const ShardSpec& shard) {
  if (o.out_dir.empty()) throw ConfigError({"--out", 0, 0}, "out_dir", "no output folder given");
  OpenedRun run;
  if (!o.folder_locked)
    run.lock = std::make_unique<FolderLock>(o.out_dir, shard.count > 1 ? kShardPatience : std::chrono::milliseconds(0));
  run.path = shard_results_path(o.out_dir, shard.index, shard.count);
  claim_results_file(points, o, shard, run);
  // A kill between writing a file and renaming it leaves its temporary; its process is gone.
  remove_stale_temporaries(o.out_dir);
  if (shard.count > 1) run.lock.reset();  // the results file's flock keeps this shard ours
  run.finished.assign(points.size(), '0');
  if (o.resume) {
    const ReadResults r = read_results_file(run.path);
    for (const auto& l : r.lines) {
      if (l.index >= points.size() || points[l.index].id != l.id) {
        throw ConfigError({run.path.string(), 0, 0}, "",
                          "point " + std::to_string(l.index) + " (id " + l.id +
                              ") is not in this sweep; the file belongs to a different sweep");
      }
      if (!shard.owns(l.index)) {
        throw ConfigError({run.path.string(), 0, 0}, "",
                          "point " + std::to_string(l.index) + " belongs to another shard");
      }
      if (run.finished[l.index] == '0') ++run.already_done;
      run.finished[l.index] = '1';
    }
    // Cut a torn last line so the next append starts on a line boundary.
    if (r.torn_tail) run.file->truncate(r.valid_bytes);
  }
  return run;
}

void finalize_file(const fs::path& path) { write_canonical_file(path, canonicalize(read_results_file(path).lines)); }

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void count(SweepRunSummary& s, PointStatus st) {
  ++s.evaluated;
  if (st == PointStatus::infeasible) ++s.infeasible;
  if (st == PointStatus::error) ++s.errors;
}

SweepRunSummary run_local(const std::vector<SweepPoint>& points, const EvaluateFn& evaluate, const SweepRunOptions& o) {
  const double t0 = now_seconds();
  SweepRunSummary s;
  s.total_points = points.size();
  OpenedRun run = open_run(points, o, o.shard);
  s.results_file = run.path;
  s.already_done = run.already_done;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!o.shard.owns(i)) continue;
    ++s.owned_points;
    if (run.finished[i] == '0' && (!o.select || o.select(points[i]))) todo.push_back(i);
  }
  Progress progress(
      progress_out(o), resolve_mode(o), todo.size(),
      o.shard.count > 1 ? "shard " + std::to_string(o.shard.index) + "/" + std::to_string(o.shard.count) : "sweep");
  LineQueue q;
  {
    WorkerPool pool(points, todo, evaluate, o.prune, o.stop, o.jobs, q);
    std::deque<std::pair<std::string, PointStatus>> batch;
    try {
      while (take_lines(q, batch, std::nullopt)) {
        if (batch.empty()) continue;
        std::string data;
        for (const auto& [text, st] : batch) data += text;
        run.file->append(data);
        for (const auto& [text, st] : batch) {
          count(s, st);
          progress.point_done(st == PointStatus::infeasible, st == PointStatus::error);
        }
        batch.clear();
      }
    } catch (...) {
      pool.stop();
      throw;
    }
    pool.join();
  }
  progress.finish();
  s.complete = s.already_done + s.evaluated == s.owned_points;
  s.stopped = !s.complete && o.stop && o.stop();
  if (s.complete) finalize_file(run.path);
  s.wall_seconds = now_seconds() - t0;
  return s;
}

// Rank 0 opens the results file and tells every rank which points are done ("O" + one 0/1 per point),
// or that it failed ("E" + why); every rank returns the done flags.
std::string broadcast_finished(const MpiSession& mpi, const std::vector<SweepPoint>& points, const SweepRunOptions& o,
                               OpenedRun& run) {
  std::string status;
  if (mpi.rank() == 0) {
    try {
      run = open_run(points, o, ShardSpec{});
      status = "O" + run.finished;
    } catch (const std::exception& e) {
      status = std::string("E") + e.what();
    }
  }
  mpi.broadcast(status);
  if (status.empty() || status[0] != 'O')
    throw std::runtime_error(status.empty() ? "MPI broadcast failed" : status.substr(1));
  return status.substr(1);
}

// Rank 0's share of one poll: its own workers' lines and the other ranks' messages, appended to the
// file; returns the ranks that have finished so far.
int collect_on_rank0(const MpiSession& mpi, std::deque<std::pair<std::string, PointStatus>>& batch, OpenedRun& run,
                     SweepRunSummary& s, Progress& progress, int ranks_done) {
  std::string data;
  for (const auto& [text, st] : batch) {
    data += text;
    count(s, st);
    progress.point_done(st == PointStatus::infeasible, st == PointStatus::error);
  }
  while (auto m = mpi.try_receive()) {
    if (m->tag == kTagDone) {
      ++ranks_done;
      continue;
    }
    const ResultLine l = ResultLine::from_json(nlohmann::json::parse(m->data));
    data += m->data;
    count(s, l.status);
    progress.point_done(l.status == PointStatus::infeasible, l.status == PointStatus::error);
  }
  if (!data.empty()) run.file->append(data);
  return ranks_done;
}

// Runs this rank's points; rank 0 also writes every rank's lines. MPI calls stay on this thread
// (MPI_THREAD_FUNNELED), so it polls the workers' queue briefly.
void run_rank(const MpiSession& mpi, const std::vector<SweepPoint>& points, const std::vector<std::size_t>& todo,
              const EvaluateFn& evaluate, const SweepRunOptions& o, OpenedRun& run, SweepRunSummary& s,
              Progress& progress) {
  const int rank = mpi.rank(), size = mpi.size();
  LineQueue q;
  WorkerPool pool(points, todo, evaluate, o.prune, o.stop, o.jobs, q);
  std::deque<std::pair<std::string, PointStatus>> batch;
  int ranks_done = 1;  // rank 0's own workers are tracked by the queue
  bool local_open = true;
  while (local_open || (rank == 0 && ranks_done < size)) {
    if (local_open) local_open = take_lines(q, batch, std::chrono::milliseconds(1));
    if (rank == 0) {
      ranks_done = collect_on_rank0(mpi, batch, run, s, progress, ranks_done);
      if (!local_open && batch.empty() && ranks_done < size) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } else {
      for (const auto& [text, st] : batch) {
        mpi.send(0, kTagLine, text);
        count(s, st);
      }
      if (!local_open) mpi.send(0, kTagDone, "");
    }
    batch.clear();
  }
  pool.join();
}

SweepRunSummary run_mpi(const std::vector<SweepPoint>& points, const EvaluateFn& evaluate, const SweepRunOptions& o) {
  const MpiSession& mpi = *o.mpi;
  if (o.shard.count > 1) throw ConfigError({"--shard", 0, 0}, "shard", "cannot be combined with an MPI launch");
  const double t0 = now_seconds();
  SweepRunSummary s;
  s.total_points = points.size();
  const int rank = mpi.rank();
  const int size = mpi.size();
  OpenedRun run;
  const std::string finished = broadcast_finished(mpi, points, o, run);
  s.results_file = results_path(o.out_dir);

  std::vector<std::size_t> todo;
  std::size_t unfinished_all = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (finished[i] == '1') {
      if (rank == 0) ++s.already_done;
      continue;
    }
    if (o.select && !o.select(points[i])) continue;
    ++unfinished_all;
    if (i % static_cast<std::size_t>(size) == static_cast<std::size_t>(rank)) todo.push_back(i);
  }
  s.owned_points = rank == 0 ? points.size() : todo.size();

  Progress progress(progress_out(o), rank == 0 ? resolve_mode(o) : ProgressMode::none,
                    rank == 0 ? unfinished_all : todo.size(), "sweep (" + std::to_string(size) + " MPI ranks)");
  try {
    run_rank(mpi, points, todo, evaluate, o, run, s, progress);
    progress.finish();
    if (rank == 0) {
      s.complete = s.already_done + s.evaluated == points.size();
      s.stopped = !s.complete && o.stop && o.stop();
      if (s.complete) finalize_file(run.path);
      run.file.reset();
    } else {
      s.complete = s.evaluated == todo.size();
    }
  } catch (const std::exception& e) {
    // Another rank may be blocked in a send or the final barrier: end the job rather than hang.
    std::cerr << "engramsim: rank " << rank << ": " << e.what() << std::endl;
    mpi.abort(1);
  }
  mpi.barrier();
  s.wall_seconds = now_seconds() - t0;
  return s;
}

}  // namespace

ShardSpec ShardSpec::parse(const std::string& text) {
  const auto slash = text.find('/');
  auto bad = [&]() -> ShardSpec {
    throw ConfigError({"--shard", 0, 0}, "shard", "expected i/N with 0 <= i < N, got \"" + text + "\"");
  };
  if (slash == std::string::npos) return bad();
  try {
    std::size_t u1 = 0;
    std::size_t u2 = 0;
    const std::string a = text.substr(0, slash);
    const std::string b = text.substr(slash + 1);
    const int i = std::stoi(a, &u1);
    const int n = std::stoi(b, &u2);
    if (u1 != a.size() || u2 != b.size() || n < 1 || i < 0 || i >= n) return bad();
    return ShardSpec{i, n};
  } catch (const std::logic_error&) {
    return bad();
  }
}

SweepRunSummary run_sweep(const std::vector<SweepPoint>& points, const EvaluateFn& evaluate,
                          const SweepRunOptions& options) {
  if (!evaluate) throw std::invalid_argument("run_sweep: no evaluate function");
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].index != i)
      throw std::invalid_argument("run_sweep: points must be the whole expanded sweep, in order");
  if (options.shard.count < 1 || options.shard.index < 0 || options.shard.index >= options.shard.count)
    throw std::invalid_argument("run_sweep: bad shard");
  if (options.mpi != nullptr && options.mpi->size() > 1) return run_mpi(points, evaluate, options);
  return run_local(points, evaluate, options);
}

MergeReport merge_shard_results(const FolderLock& folder, int shard_count, bool accept_version_change) {
  if (shard_count < 1) throw std::invalid_argument("merge_shard_results: shard count must be >= 1");
  const fs::path& dir = folder.dir();
  const auto manifest = read_manifest(dir);
  if (!manifest) throw ConfigError({(dir / "sweep.json").string(), 0, 0}, "", "missing; not a sweep output folder");
  const auto files = find_shard_files(dir, shard_count);
  if (files.empty())
    throw ConfigError({dir.string(), 0, 0}, "", "no results.shard-*-of-" + std::to_string(shard_count) + ".jsonl here");
  for (const auto& f : files) {
    check_not_being_written(f);
    if (shard_count == 1) continue;  // results.jsonl itself: sweep.json is its header
    const auto header = read_manifest_file(shard_header_path(f));
    if (header) {
      check_same_computation(*manifest, *header, f, accept_version_change);
    } else if (!accept_version_change) {
      throw SweepRefusal(exit_code::inputs_changed,
                         f.string() + ": no header " + shard_header_path(f).filename().string() +
                             " says what it was computed from (an older engramsim wrote it?); pass "
                             "--accept-version-change to merge it knowingly. Nothing was changed");
    }
  }
  return merge_result_files(files, results_path(dir), manifest->total_points);
}

}  // namespace engramsim::planner
