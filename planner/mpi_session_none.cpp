// MpiSession in a build without MPI: there is never a session. Being launched as one rank of
// several is an error, since every rank would run the whole sweep into the same files.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "planner/mpi_session.hpp"

namespace engramsim::planner {

bool MpiSession::compiled_in() { return false; }

std::unique_ptr<MpiSession> MpiSession::start_if_launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"}) {
    const char* s = std::getenv(v);
    if (s != nullptr && std::atoi(s) > 1) {
      throw std::runtime_error(std::string("launched as one of several MPI ranks (") + v + "=" + s +
                               ") but this engramsim was built without MPI; rebuild with MPI or use --shard");
    }
  }
  return nullptr;
}

MpiSession::~MpiSession() = default;
void MpiSession::broadcast(std::string&) const {}
void MpiSession::send(int, int, const std::string&) const {}
std::optional<MpiSession::Message> MpiSession::try_receive() const { return std::nullopt; }
void MpiSession::barrier() const {}
void MpiSession::abort(int code) const { std::exit(code); }

}  // namespace engramsim::planner
