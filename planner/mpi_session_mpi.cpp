// MpiSession over a real MPI library (built when CMake finds MPI).
// Only the C API is used; skipping the deprecated C++ bindings avoids their warnings and link deps.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "planner/mpi_session.hpp"

namespace engramsim::planner {
namespace {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI call failed: ") + what);
}

}  // namespace

bool MpiSession::compiled_in() { return true; }

std::unique_ptr<MpiSession> MpiSession::start_if_launched() {
  if (!launched_by_mpi()) return nullptr;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw std::runtime_error("MPI is already initialised; create one MpiSession per process");
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw std::runtime_error("the MPI library does not support MPI_THREAD_FUNNELED");
  }
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size <= 1) {
    MPI_Finalize();
    return nullptr;
  }
  return std::unique_ptr<MpiSession>(new MpiSession(rank, size));
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::broadcast(std::string& data) const {
  unsigned long long n = data.size();
  check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
  data.resize(static_cast<std::size_t>(n));
  // Broadcast in chunks: MPI counts are int.
  constexpr std::size_t kChunk = 1u << 30;
  for (std::size_t off = 0; off < data.size(); off += kChunk) {
    const int len = static_cast<int>(std::min(kChunk, data.size() - off));
    check(MPI_Bcast(data.data() + off, len, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  }
}

void MpiSession::send(int dest, int tag, const std::string& data) const {
  if (data.size() > static_cast<std::size_t>(INT32_MAX)) throw std::runtime_error("MPI message larger than 2 GiB");
  check(MPI_Send(data.data(), static_cast<int>(data.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD), "MPI_Send");
}

std::optional<MpiSession::Message> MpiSession::try_receive() const {
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  Message m;
  m.source = st.MPI_SOURCE;
  m.tag = st.MPI_TAG;
  m.data.resize(static_cast<std::size_t>(count));
  check(MPI_Recv(m.data.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return m;
}

void MpiSession::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();
}

}  // namespace engramsim::planner
