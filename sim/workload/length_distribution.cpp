#include "sim/workload/length_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "sim/workload/csv_reader.hpp"

namespace engramsim::sim {

FixedLength::FixedLength(std::int32_t tokens) : tokens_(tokens) {}
std::int32_t FixedLength::sample(RngStream&) const { return tokens_; }
std::string FixedLength::describe() const { return std::to_string(tokens_); }

UniformLength::UniformLength(std::int32_t lo, std::int32_t hi) : lo_(lo), hi_(hi) {}
std::int32_t UniformLength::sample(RngStream& rng) const {
  return static_cast<std::int32_t>(rng.uniform_int(lo_, hi_));
}
std::string UniformLength::describe() const { return "U[" + std::to_string(lo_) + ", " + std::to_string(hi_) + "]"; }

IndependentLengths::IndependentLengths(std::shared_ptr<const LengthMarginal> input,
                                       std::shared_ptr<const LengthMarginal> output)
    : input_(std::move(input)), output_(std::move(output)) {}

void IndependentLengths::sample(RngStream& rng, std::int32_t& input, std::int32_t& output) {
  input = input_->sample(rng);
  output = output_->sample(rng);
}

std::string IndependentLengths::describe() const {
  return "input " + input_->describe() + " / output " + output_->describe() + " tokens";
}

EmpiricalLengths::EmpiricalLengths(const std::string& path, std::int64_t max_total_tokens) : path_(path) {
  CsvReader csv(path);
  const int c_in = csv.require_column("num_prefill_tokens");
  const int c_out = csv.require_column("num_decode_tokens");
  while (csv.next_row()) {
    const std::int64_t in = csv.integer(c_in);
    const std::int64_t out = csv.integer(c_out);
    if (in < 1 || in > INT32_MAX) csv.fail_field(c_in, "must be >= 1");
    if (out < 1 || out > INT32_MAX) csv.fail_field(c_out, "must be >= 1");
    if (max_total_tokens > 0 && in + out > max_total_tokens) continue;
    pairs_.emplace_back(static_cast<std::int32_t>(in), static_cast<std::int32_t>(out));
  }
  if (pairs_.empty()) csv.fail("empty lengths file: no usable rows");
}

void EmpiricalLengths::sample(RngStream& rng, std::int32_t& input, std::int32_t& output) {
  const auto& p = pairs_[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(pairs_.size()) - 1))];
  input = p.first;
  output = p.second;
}

std::string EmpiricalLengths::describe() const {
  return "empirical lengths from " + path_ + " (" + std::to_string(pairs_.size()) + " pairs)";
}

}  // namespace engramsim::sim
