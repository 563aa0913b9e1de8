#include "sim/workload/length_distribution.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "sim/workload/csv_reader.hpp"

namespace engramsim::sim {

FixedLengths::FixedLengths(std::int32_t isl, std::int32_t osl) : isl_(isl), osl_(osl) {
  if (isl < 1) throw ConfigError({}, "workload.isl", "must be >= 1");
  if (osl < 1) throw ConfigError({}, "workload.osl", "must be >= 1");
}

void FixedLengths::sample(RngStream&, std::int32_t& input, std::int32_t& output) {
  input = isl_;
  output = osl_;
}

std::string FixedLengths::describe() const {
  return "fixed lengths " + std::to_string(isl_) + " in / " + std::to_string(osl_) + " out";
}

UniformRatioLengths::UniformRatioLengths(std::int32_t isl, std::int32_t osl, double ratio)
    : isl_(isl), osl_(osl), ratio_(ratio) {
  if (isl < 1) throw ConfigError({}, "workload.isl", "must be >= 1");
  if (osl < 1) throw ConfigError({}, "workload.osl", "must be >= 1");
  if (!(ratio > 0.0 && ratio <= 1.0)) throw ConfigError({}, "workload.range_ratio", "must lie in (0, 1]");
  isl_lo_ = std::max<std::int32_t>(1, static_cast<std::int32_t>(std::floor(ratio * isl)));
  osl_lo_ = std::max<std::int32_t>(1, static_cast<std::int32_t>(std::floor(ratio * osl)));
}

void UniformRatioLengths::sample(RngStream& rng, std::int32_t& input, std::int32_t& output) {
  input = static_cast<std::int32_t>(rng.uniform_int(isl_lo_, isl_));
  output = static_cast<std::int32_t>(rng.uniform_int(osl_lo_, osl_));
}

std::string UniformRatioLengths::describe() const {
  return "uniform lengths in [" + std::to_string(isl_lo_) + ", " + std::to_string(isl_) + "] / [" +
         std::to_string(osl_lo_) + ", " + std::to_string(osl_) + "]";
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
