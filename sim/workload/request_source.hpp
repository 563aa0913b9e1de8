// A stream of requests, pulled one at a time, so a trace of any length is replayed in bounded
// memory. Arrival times are non-decreasing; lengths are >= 1. Sources do not assign ids (the
// driver numbers requests in arrival order). Errors in the underlying data throw ConfigError
// naming file:line.
#pragma once

#include <string>

#include "sim/serving/request.hpp"

namespace engramsim::sim {

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // Overwrites `out` with the next request; false when the stream has ended. `out`'s vector
  // capacity may be reused.
  virtual bool next(Request& out) = 0;
  // One line saying what this source replays or generates.
  virtual std::string describe() const = 0;
};

}  // namespace engramsim::sim
