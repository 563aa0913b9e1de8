// What the serving world reports while it runs: one record per request when it leaves the system
// (finished or rejected; requests still in flight at the end are reported by the replicas at
// finalize), one record per step, and every inter-token gap. Metrics and closed-loop clients are
// observers. Observers must not submit requests synchronously from a callback (schedule an event).
#pragma once

#include <cstdint>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "models/step_model.hpp"
#include "sim/memory/engram_step_types.hpp"
#include "sim/serving/request.hpp"
#include "sim/serving/sequence.hpp"

namespace engramsim::sim {

enum class RequestStatus : std::uint8_t {
  finished,    // generated all its output tokens
  unfinished,  // still waiting or running when the run ended (horizon or event limit)
  rejected,    // can never fit in its replica's KV pool
};
inline constexpr EnumNames<RequestStatus, 3> kRequestStatusNames{{{
    {RequestStatus::finished, "finished"},
    {RequestStatus::unfinished, "unfinished"},
    {RequestStatus::rejected, "rejected"},
}}};
const char* to_string(RequestStatus s);

struct RequestRecord {
  std::uint64_t id = 0;
  std::uint64_t session = 0;
  std::uint32_t replica = 0;
  RequestStatus status = RequestStatus::finished;
  Time arrival;
  Time first_scheduled = Time::max();  // Time::max() = never
  Time first_token = Time::max();
  Time finish = Time::max();
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;            // requested
  std::int32_t generated_tokens = 0;         // emitted
  std::int32_t cached_prompt_tokens = 0;     // prefix hits at first admission, GPU and host pool
  std::int32_t offloaded_prompt_tokens = 0;  // the part of them loaded from the host KV-offload pool
  std::int32_t preemptions = 0;
  std::int64_t recomputed_tokens = 0;        // KV tokens thrown away by preemptions, computed again
  std::int32_t reusable_prompt_tokens = -1;  // Request::reusable_prompt_tokens
  bool measured = true;                      // Request::measured
};

struct StepRecord {
  std::uint32_t replica = 0;
  Time start;
  StepCost cost;
  std::int32_t prefill_seqs = 0;
  std::int32_t decode_seqs = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t decode_positions = 0;
  double kv_usage = 0.0;  // after planning the step
  std::int64_t waiting = 0;
  // With the in-run Engram tier: cost.engram_stall / engram_fetch were measured on the node fabric
  // and `engram` holds what the fetch moved.
  bool engram_in_run = false;
  EngramStepStats engram;
};

class ServingObserver {
 public:
  virtual ~ServingObserver() = default;
  virtual void on_arrival(const Request& /*request*/, std::uint32_t /*replica*/) {}
  virtual void on_step(const StepRecord& /*step*/) {}
  virtual void on_token_gap(Time /*gap*/) {}
  virtual void on_request_done(const RequestRecord& /*record*/) {}
  // A step computed a prompt chunk of `sequence`: its first `sequence.computed` prompt tokens now
  // hold KV on replica `replica` (called before the chunk's sampled token, if any, is emitted).
  virtual void on_prompt_progress(std::uint32_t /*replica*/, const Sequence& /*sequence*/) {}
  // A finished sequence as it leaves its replica (blocks released, ledger final), just before its
  // on_request_done; read-only, for conservation checks.
  virtual void on_sequence_done(std::uint32_t /*replica*/, const Sequence& /*sequence*/) {}
};

}  // namespace engramsim::sim
