#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

const char* to_string(RequestStatus s) {
  switch (s) {
    case RequestStatus::finished:
      return "finished";
    case RequestStatus::unfinished:
      return "unfinished";
    case RequestStatus::rejected:
      return "rejected";
  }
  return "?";
}

}  // namespace engramsim::sim
