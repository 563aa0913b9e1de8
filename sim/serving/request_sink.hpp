// Where workload drivers deliver requests: the deployment, at the current simulation time.
#pragma once

#include "sim/serving/request.hpp"

namespace engramsim::sim {

class RequestSink {
 public:
  virtual void submit(Request&& request) = 0;

 protected:
  ~RequestSink() = default;
};

}  // namespace engramsim::sim
