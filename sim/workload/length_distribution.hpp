// Request length distributions for generated workloads (input and output tokens, both >= 1).
//   fixed          every request isl / osl;
//   uniform_ratio  input uniform on [ratio*isl, isl] and output on [ratio*osl, osl], integers
//                  (InferenceX / vLLM `--random-range-ratio`; InferenceX uses ratio 0.8);
//   empirical      (input, output) pairs drawn uniformly, with replacement, from a lengths file with
//                  columns num_prefill_tokens, num_decode_tokens (the Vidur / Sarathi processed
//                  ShareGPT and arXiv stats files); optionally clipped to max_tokens in total.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.hpp"

namespace engramsim::sim {

class LengthDistribution {
 public:
  virtual ~LengthDistribution() = default;
  virtual void sample(RngStream& rng, std::int32_t& input, std::int32_t& output) = 0;
  virtual std::string describe() const = 0;
};

class FixedLengths final : public LengthDistribution {
 public:
  FixedLengths(std::int32_t isl, std::int32_t osl);
  void sample(RngStream& rng, std::int32_t& input, std::int32_t& output) override;
  std::string describe() const override;

 private:
  std::int32_t isl_, osl_;
};

class UniformRatioLengths final : public LengthDistribution {
 public:
  UniformRatioLengths(std::int32_t isl, std::int32_t osl, double ratio);
  void sample(RngStream& rng, std::int32_t& input, std::int32_t& output) override;
  std::string describe() const override;

 private:
  std::int32_t isl_, osl_, isl_lo_, osl_lo_;
  double ratio_;
};

class EmpiricalLengths final : public LengthDistribution {
 public:
  // Loads the file (plain or gzip). Bad rows throw ConfigError with file:line.
  explicit EmpiricalLengths(const std::string& path, std::int64_t max_total_tokens = 0);
  void sample(RngStream& rng, std::int32_t& input, std::int32_t& output) override;
  std::string describe() const override;
  std::size_t size() const { return pairs_.size(); }

 private:
  std::string path_;
  std::vector<std::pair<std::int32_t, std::int32_t>> pairs_;
};

}  // namespace engramsim::sim
