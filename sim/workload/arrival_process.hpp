// Open-loop arrival processes: the gap before the next request.
//   poisson  exponential gaps, mean 1/rate;
//   gamma    gamma gaps with mean 1/rate and coefficient of variation cv (shape 1/cv^2): cv = 1 is
//            Poisson, cv > 1 bursty, cv < 1 smoother. vLLM's "burstiness" b is shape = b, cv = 1/sqrt(b).
#pragma once

#include <memory>
#include <string>

#include "core/rng.hpp"
#include "core/units.hpp"

namespace engramsim::sim {

class ArrivalProcess {
 public:
  virtual ~ArrivalProcess() = default;
  virtual Time next_gap(RngStream& rng) = 0;
  virtual std::string describe() const = 0;
};

class PoissonArrivals final : public ArrivalProcess {
 public:
  explicit PoissonArrivals(double rate_per_s);
  Time next_gap(RngStream& rng) override;
  std::string describe() const override;

 private:
  double rate_;
};

class GammaArrivals final : public ArrivalProcess {
 public:
  GammaArrivals(double rate_per_s, double cv);
  Time next_gap(RngStream& rng) override;
  std::string describe() const override;

 private:
  double rate_, cv_, shape_, scale_;
};

// Every gap zero: the arrival process of a closed loop, whose drivers ignore arrival times.
class ImmediateArrivals final : public ArrivalProcess {
 public:
  Time next_gap(RngStream& rng) override;
  std::string describe() const override;
};

}  // namespace engramsim::sim
