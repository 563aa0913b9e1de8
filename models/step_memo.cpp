#include "models/step_memo.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace engramsim {
namespace {

// A hash of every bit of the statistics (the table compares them in full on a hit).
std::uint64_t hash_stats(const BatchStats& s) {
  constexpr std::uint64_t k = 0x9E3779B97F4A7C15ULL;
  std::uint64_t h[4] = {1, 2, 3, 4};
  constexpr std::size_t n = std::tuple_size_v<decltype(s.x)>;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (std::size_t l = 0; l < 4; ++l) h[l] = (h[l] ^ std::bit_cast<std::uint64_t>(s.x[i + l])) * k;
  for (; i < n; ++i) h[0] = (h[0] ^ std::bit_cast<std::uint64_t>(s.x[i])) * k;
  for (double v : {s.decode_seqs, s.decode_positions, s.prefill_chunks, s.prefill_tokens, s.prefill_first_chunk_tokens})
    h[1] = (h[1] ^ std::bit_cast<std::uint64_t>(v)) * k;
  std::uint64_t r = h[0] ^ (h[1] << 1 | h[1] >> 63) ^ (h[2] << 2 | h[2] >> 62) ^ (h[3] << 3 | h[3] >> 61);
  return r ^ (r >> 29);
}

bool same_stats(const BatchStats& a, const BatchStats& b) {
  static_assert(sizeof(BatchStats) == sizeof(double) * (std::tuple_size_v<decltype(a.x)> + 5),
                "BatchStats: compared as plain doubles");
  return std::memcmp(&a, &b, sizeof(BatchStats)) == 0;
}

// The same batch, element for element (DecodeSeq and PrefillChunk are two int32 each, no padding).
bool same_batch(const std::vector<PrefillChunk>& prefill, const std::vector<DecodeSeq>& decode, const BatchShape& b) {
  static_assert(std::has_unique_object_representations_v<DecodeSeq> &&
                std::has_unique_object_representations_v<PrefillChunk>);
  return prefill.size() == b.prefill.size() && decode.size() == b.decode.size() &&
         (prefill.empty() ||
          std::memcmp(prefill.data(), b.prefill.data(), prefill.size() * sizeof(PrefillChunk)) == 0) &&
         (decode.empty() || std::memcmp(decode.data(), b.decode.data(), decode.size() * sizeof(DecodeSeq)) == 0);
}

}  // namespace

MemoStepModel::MemoStepModel(std::shared_ptr<const RooflineStepModel> model, int entries) : model_(std::move(model)) {
  if (model_ == nullptr) throw std::invalid_argument("step memo: no model");
  if (entries < 1) throw std::invalid_argument("step memo: entries must be >= 1");
  capacity_ = static_cast<std::size_t>(entries);
}

StepCost MemoStepModel::remember(const BatchShape& batch, const StepCost& cost) const {
  state_.last_prefill.assign(batch.prefill.begin(), batch.prefill.end());
  state_.last_decode.assign(batch.decode.begin(), batch.decode.end());
  state_.last_cost = cost;
  state_.last_valid = true;
  return cost;
}

StepCost MemoStepModel::step(const BatchShape& batch) const {
  // A taken lock means another thread is using the state: compute without it.
  std::unique_lock<std::mutex> lock(state_.mu, std::try_to_lock);
  if (!lock.owns_lock()) return model_->step(batch);
  if (state_.last_valid && same_batch(state_.last_prefill, state_.last_decode, batch)) return state_.last_cost;
  // The table is made on the first step, not with the model: a compare list prepares every variant
  // before any runs, and 10,000 tables of 256 entries were 3.4 GB of memory no step had touched.
  if (state_.entries.empty()) state_.entries.resize(capacity_);
  const BatchStats s = model_->stats(batch);
  const std::uint64_t hash = hash_stats(s);
  Entry& entry = state_.entries[hash % state_.entries.size()];
  if (entry.valid && entry.hash == hash && same_stats(entry.stats, s)) return remember(batch, entry.cost);
  const StepCost c = model_->cost(s, &state_.tokens);
  entry = Entry{true, hash, s, c};
  return remember(batch, c);
}

StepCost MemoStepModel::step_engram(const BatchShape& batch, std::span<EngramLayerStep> layers) const {
  std::unique_lock<std::mutex> lock(state_.mu, std::try_to_lock);
  return model_->cost_engram(model_->stats(batch), layers, lock.owns_lock() ? &state_.tokens : nullptr);
}

}  // namespace engramsim
