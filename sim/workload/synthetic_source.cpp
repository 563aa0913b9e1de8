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
  if (count_ > 0) {
    const std::optional<Time> gap = next_gap();
    // t_ + gap >= duration_, written so that it cannot overflow.
    if (!gap || *gap >= duration_ - t_) {
      if (duration_ == Time::max())
        throw ConfigError(rate_at_, rate_field_,
                          "request " + std::to_string(count_ + 1) +
                              " would arrive past the simulator's clock (2^63 ns, about 292 years) at this rate; "
                              "raise the rate, lower num_requests or give a duration");
      limit_ = count_;
      return false;
    }
    t_ += *gap;
  }
  out.prefix_hashes.clear();
  out.hash_block_tokens = 0;
  out.session = 0;
  out.id = count_++;
  out.arrival = t_;
  lengths_->sample(length_rng_, out.prompt_tokens, out.output_tokens);
  return true;
}

void SyntheticSource::locate_rate(SourceLocation where, std::string field) {
  rate_at_ = std::move(where);
  rate_field_ = std::move(field);
}

std::optional<Time> SyntheticSource::next_gap() {
  try {
    return arrivals_->next_gap(arrival_rng_);
  } catch (const TimeOutOfRange&) {
    return std::nullopt;
  }
}

std::string SyntheticSource::describe() const {
  return arrivals_->describe() + ", " + lengths_->describe() +
         (limit_ == UINT64_MAX ? std::string() : ", " + std::to_string(limit_) + " requests");
}

}  // namespace engramsim::sim
