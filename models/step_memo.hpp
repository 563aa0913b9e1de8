// Memoization of a roofline step model, outside the model (which holds no state).
//
// A serving run asks for the cost of many batches that repeat: the same batch twice in a row (a
// decode wave with nothing finishing), batches with the same statistics (a permutation, or contexts
// the model does not read), and batches whose token counts repeat while contexts grow. The wrapper
// keeps, per instance:
//   - the last batch it saw (compared element for element) and its cost;
//   - a direct-mapped table of costs keyed on the exact batch statistics (every double of
//     BatchStats, compared bit for bit, so a shape with other statistics never reads another's
//     entry);
//   - the seconds of the op templates that read only token counts (RooflineStepModel::TokenOpTimes),
//     which step() and step_engram() share.
// Cached results equal the model's bit for bit (tests/step/test_step_model.cpp). Thread safety: a
// wrapper may be shared by threads; its state sits behind one mutex that calls only try-lock, and a
// call that finds it taken computes without the caches (never blocks).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "models/roofline_step_model.hpp"
#include "models/step_model.hpp"

namespace engramsim {

class MemoStepModel final : public StepTimeModel {
 public:
  // `entries`: size of the statistics table (>= 1).
  explicit MemoStepModel(std::shared_ptr<const RooflineStepModel> model, int entries = 256);
  MemoStepModel(const MemoStepModel&) = delete;
  MemoStepModel& operator=(const MemoStepModel&) = delete;

  StepCost step(const BatchShape& batch) const override;
  std::size_t engram_layer_count() const override { return model_->engram_layer_count(); }
  StepCost step_engram(const BatchShape& batch, std::span<EngramLayerStep> layers) const override;

  const RooflineStepModel& model() const { return *model_; }

 private:
  struct Entry {
    bool valid = false;
    std::uint64_t hash = 0;
    BatchStats stats;
    StepCost cost;
  };
  struct State {
    std::mutex mu;
    std::vector<Entry> entries;
    RooflineStepModel::TokenOpTimes tokens;
    bool last_valid = false;  // the last batch step() saw, element for element, and its cost
    std::vector<PrefillChunk> last_prefill;
    std::vector<DecodeSeq> last_decode;
    StepCost last_cost;
  };
  StepCost remember(const BatchShape& batch, const StepCost& cost) const;

  std::shared_ptr<const RooflineStepModel> model_;
  std::size_t capacity_ = 0;  // entries of the statistics table, allocated on the first step
  mutable State state_;
};

}  // namespace engramsim
