// An MPI job as the sweep runner needs it: rank, size, and a few point-to-point and collective
// operations on byte strings. No MPI header leaks out of here, so the planner builds and runs
// without MPI; the implementation file is chosen by CMake (mpi_session_mpi.cpp when MPI is found,
// mpi_session_none.cpp otherwise, where start_if_launched() never returns a session).
//
// Detection: a process counts as launched by mpirun/srun when the launcher's environment is
// present (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK, PMI_RANK, MV2_COMM_WORLD_SIZE). Only then is
// MPI initialised (MPI_THREAD_FUNNELED: only the thread that created the session calls MPI), and a
// session is returned when the world has more than one rank. A plain run never touches MPI.
// One session per process; it finalises MPI when destroyed.
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace engramsim::planner {

class MpiSession {
 public:
  struct Message {
    int source = 0;
    int tag = 0;
    std::string data;
  };

  // nullptr when not launched under MPI, when the world has one rank, or when built without MPI
  // (then a launcher environment with more than one rank is an error: every rank would otherwise
  // run the whole sweep).
  static std::unique_ptr<MpiSession> start_if_launched();
  // Whether this build has MPI support.
  static bool compiled_in();

  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Rank 0's `data` replaces every other rank's.
  void broadcast(std::string& data) const;
  void send(int dest, int tag, const std::string& data) const;
  // A pending message from any rank, if one has arrived.
  std::optional<Message> try_receive() const;
  void barrier() const;
  // Ends the whole job (after an unrecoverable error on one rank).
  [[noreturn]] void abort(int code) const;

 private:
  MpiSession(int rank, int size) : rank_(rank), size_(size) {}
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace engramsim::planner
