#include "sim/workload/synthetic_source.hpp"

namespace engramsim::sim {

SyntheticSource::SyntheticSource(std::unique_ptr<ArrivalProcess> arrivals, std::unique_ptr<LengthDistribution> lengths,
                                 std::uint64_t seed, std::uint64_t num_requests, Time duration)
    : arrivals_(std::move(arrivals)),
      lengths_(std::move(lengths)),
      arrival_rng_(seed, "workload/arrivals"),
      length_rng_(seed, "workload/lengths"),
      limit_(num_requests),
      duration_(duration) {}

bool SyntheticSource::next(Request& out) {
  if (count_ >= limit_) return false;
  if (count_ > 0) t_ += arrivals_->next_gap(arrival_rng_);
  if (t_ >= duration_) {
    limit_ = count_;
    return false;
  }
  out.prefix_hashes.clear();
  out.hash_block_tokens = 0;
  out.session = 0;
  out.id = count_++;
  out.arrival = t_;
  lengths_->sample(length_rng_, out.prompt_tokens, out.output_tokens);
  return true;
}

std::string SyntheticSource::describe() const {
  return arrivals_->describe() + ", " + lengths_->describe() +
         (limit_ == UINT64_MAX ? std::string() : ", " + std::to_string(limit_) + " requests");
}

}  // namespace engramsim::sim
