#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

const char* to_string(RequestStatus s) { return kRequestStatusNames.name(s); }

}  // namespace engramsim::sim
