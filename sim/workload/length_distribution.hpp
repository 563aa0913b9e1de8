// Request length distributions for generated workloads (input and output tokens, both >= 1).
//   independent    input and output each from its own marginal: fixed, or integers uniform on
//                  [lo, hi] (the scenario's `input`/`output` maps; InferenceX's `--random-range-ratio`
//                  0.8 is uniform on [0.8 n, n]);
//   empirical      (input, output) pairs drawn uniformly, with replacement, from a lengths file with
//                  columns num_prefill_tokens, num_decode_tokens (the Vidur / Sarathi processed
//                  ShareGPT and arXiv stats files); optionally clipped to max_tokens in total.
#pragma once

#include <cstdint>
#include <memory>
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

// Input and output lengths drawn independently (input first, from the same stream).
class LengthMarginal {
 public:
  virtual ~LengthMarginal() = default;
  virtual std::int32_t sample(RngStream& rng) const = 0;
  virtual std::string describe() const = 0;
};

class FixedLength final : public LengthMarginal {
 public:
  explicit FixedLength(std::int32_t tokens);
  std::int32_t sample(RngStream& rng) const override;
  std::string describe() const override;

 private:
  std::int32_t tokens_;
};

// Integers uniform on [lo, hi].
class UniformLength final : public LengthMarginal {
 public:
  UniformLength(std::int32_t lo, std::int32_t hi);
  std::int32_t sample(RngStream& rng) const override;
  std::string describe() const override;

 private:
  std::int32_t lo_, hi_;
};

class IndependentLengths final : public LengthDistribution {
 public:
  IndependentLengths(std::shared_ptr<const LengthMarginal> input, std::shared_ptr<const LengthMarginal> output);
  void sample(RngStream& rng, std::int32_t& input, std::int32_t& output) override;
  std::string describe() const override;

 private:
  std::shared_ptr<const LengthMarginal> input_, output_;
};

class EmpiricalLengths final : public LengthDistribution {
 public:
  // Loads the file (plain or gzip). Bad rows throw ConfigError with file:line.
  explicit EmpiricalLengths(const std::string& path, std::int64_t max_total_tokens = 0);
  void sample(RngStream& rng, std::int32_t& input, std::int32_t& output) override;
  std::string describe() const override;
  std::size_t size() const { return pairs_.size(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::pair<std::int32_t, std::int32_t>> pairs_;
};

}  // namespace engramsim::sim
