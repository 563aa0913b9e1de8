// Ownership of a sweep output folder: an exclusive flock on DIR/sweep.lock, taken before anything
// in the folder is read for writing or written (sweep.json, results, shard headers, the report), so
// that a refused second process has changed nothing (issue 47).
//
// Who holds it: a single-process sweep or plan, MPI rank 0 and `merge` for their whole run; a
// shard (--shard i/N) only while it checks the folder's manifest and claims its own results file,
// whose flock then keeps a second process off that shard while shards run side by side. The lock
// file stays in the folder (deleting it while a process holds it would let a second one in).
// Closing the descriptor (the destructor, or the process dying) releases the lock.
#pragma once

#include <chrono>
#include <filesystem>

namespace engramsim::planner {

class FolderLock {
 public:
  // Creates `dir` when missing and takes DIR/sweep.lock. While another process holds it, retries
  // for `patience` (shards arriving together wait their turn), then throws
  // SweepRefusal(exit_code::folder_busy) naming the folder.
  explicit FolderLock(const std::filesystem::path& dir,
                      std::chrono::milliseconds patience = std::chrono::milliseconds(0));
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  int fd_ = -1;
};

// Throws SweepRefusal(exit_code::folder_busy) when another process holds the flock of `file` (a
// shard's results file while that shard runs); a missing file is free.
void check_not_being_written(const std::filesystem::path& file);

}  // namespace engramsim::planner
