// Support for simulator tests: simple exact step-time models (one observable), an in-memory
// request source and a one-replica run configuration.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "models/step_model.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/workload/arrival_process.hpp"
#include "sim/workload/length_distribution.hpp"
#include "sim/workload/request_source.hpp"
#include "sim/workload/synthetic_source.hpp"

namespace engramsim::sim::testing {

// Every step takes the same time.
class FixedStepModel final : public StepTimeModel {
 public:
  explicit FixedStepModel(Time t) : t_(t) {}
  StepCost step(const BatchShape&) const override {
    StepCost c;
    c.total = c.compute = t_;
    return c;
  }

 private:
  Time t_;
};

// base + per prefill token + per decode position + per context token read; a fixed fraction of
// each step is reported as exposed Engram stall.
class LinearStepModel final : public StepTimeModel {
 public:
  LinearStepModel(Time base, Time per_prefill_token, Time per_decode, double ns_per_context_token,
                  double stall_fraction = 0.0)
      : base_(base),
        prefill_(per_prefill_token),
        decode_(per_decode),
        ctx_(ns_per_context_token),
        stall_(stall_fraction) {}
  StepCost step(const BatchShape& b) const override {
    std::int64_t ns = base_.count_ns();
    double ctx = 0;
    for (const auto& p : b.prefill) {
      ns += p.tokens * prefill_.count_ns();
      ctx += static_cast<double>(p.cached) + p.tokens;
    }
    for (const auto& d : b.decode) {
      ns += d.positions * decode_.count_ns();
      ctx += d.context;
    }
    ns += static_cast<std::int64_t>(ctx * ctx_);
    StepCost c;
    c.engram_stall = Time::ns(static_cast<std::int64_t>(static_cast<double>(ns) * stall_));
    c.engram_fetch = c.engram_stall * 2;
    c.compute = Time::ns(ns);
    c.total = c.compute + c.engram_stall;
    return c;
  }

 private:
  Time base_, prefill_, decode_;
  double ctx_, stall_;
};

// Records every batch shape it is asked about (tests only: a real model is stateless).
class RecordingStepModel final : public StepTimeModel {
 public:
  struct Shape {
    std::vector<PrefillChunk> prefill;
    std::vector<DecodeSeq> decode;
  };
  explicit RecordingStepModel(Time t) : t_(t) {}
  StepCost step(const BatchShape& b) const override {
    std::lock_guard<std::mutex> lock(mu_);
    shapes_.push_back(Shape{{b.prefill.begin(), b.prefill.end()}, {b.decode.begin(), b.decode.end()}});
    StepCost c;
    c.total = c.compute = t_;
    return c;
  }
  const std::vector<Shape>& shapes() const { return shapes_; }

 private:
  Time t_;
  mutable std::mutex mu_;
  mutable std::vector<Shape> shapes_;
};

// Replays a fixed list of requests.
class VectorSource final : public RequestSource {
 public:
  explicit VectorSource(std::vector<Request> requests) : requests_(std::move(requests)) {}
  bool next(Request& out) override {
    if (i_ >= requests_.size()) return false;
    out = requests_[i_++];
    return true;
  }
  std::string describe() const override { return "test requests"; }

 private:
  std::vector<Request> requests_;
  std::size_t i_ = 0;
};

// Input and output lengths fixed at `input` / `output` tokens.
inline std::unique_ptr<LengthDistribution> fixed_lengths(std::int32_t input, std::int32_t output) {
  return std::make_unique<IndependentLengths>(std::make_shared<FixedLength>(input),
                                              std::make_shared<FixedLength>(output));
}

// Input uniform on [floor(ratio x isl), isl] and output on [floor(ratio x osl), osl], each at least 1
// (InferenceX's --random-range-ratio).
inline std::unique_ptr<LengthDistribution> uniform_ratio_lengths(std::int32_t isl, std::int32_t osl, double ratio) {
  auto lo = [ratio](std::int32_t n) {
    return std::max<std::int32_t>(1, static_cast<std::int32_t>(std::floor(ratio * n)));
  };
  return std::make_unique<IndependentLengths>(std::make_shared<UniformLength>(lo(isl), isl),
                                              std::make_shared<UniformLength>(lo(osl), osl));
}

inline Request make_request(double arrival_s, std::int32_t prompt, std::int32_t output,
                            std::vector<std::uint64_t> hashes = {}, std::int32_t hash_block = 16) {
  Request r;
  r.arrival = Time::from_seconds(arrival_s);
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.prefix_hashes = std::move(hashes);
  r.hash_block_tokens = r.prefix_hashes.empty() ? 0 : hash_block;
  return r;
}

// One replica over `model` with a pool of `num_blocks` blocks of 16 tokens, replaying `requests`.
inline RunConfig one_replica(const StepTimeModel& model, std::vector<Request> requests,
                             std::int64_t num_blocks = 100000, const std::string& scheduler = "vllm",
                             std::int32_t budget = 8192) {
  RunConfig cfg;
  ReplicaParams rp;
  rp.step_model = &model;
  rp.kv = KvPoolParams{num_blocks, 16, false};
  cfg.replicas.push_back(rp);
  cfg.scheduler.name = scheduler;
  cfg.scheduler.max_num_batched_tokens = budget;
  cfg.workload.source = [requests](std::uint64_t) { return std::make_unique<VectorSource>(requests); };
  return cfg;
}

// One replica over `model` (a pool of `num_blocks` 16-token blocks) serving `n` Poisson arrivals at
// `lambda` per second, each `prompt` tokens in and `output` out.
inline RunConfig poisson_one_replica(const StepTimeModel& model, double lambda, std::int32_t prompt,
                                     std::int32_t output, std::uint64_t n, std::int64_t num_blocks,
                                     std::uint64_t seed) {
  RunConfig cfg;
  ReplicaParams rp;
  rp.step_model = &model;
  rp.kv = KvPoolParams{num_blocks, 16, false};
  cfg.replicas.push_back(rp);
  cfg.seed = seed;
  cfg.workload.source = [=](std::uint64_t s) {
    return std::make_unique<SyntheticSource>(std::make_unique<PoissonArrivals>(lambda), fixed_lengths(prompt, output),
                                             s, n);
  };
  return cfg;
}

}  // namespace engramsim::sim::testing
