// Reader of the AgentX corpus (Weka trace v7 JSON lines: one agentic session tree per line, plain
// or gzip, detected from the content) into AgenticSession values, one session at a time.
//
// A line: {id, models[], block_size, hash_id_scope: "local", tool_tokens?, system_tokens?,
// requests: [...]}. An entry of `requests` is a call {t, type: "n"|"s", model, in, out, hash_ids[],
// api_time, ttft?, think_time?, input_types, output_types, stop} or a subagent group {type:
// "subagent", agent_id, subagent_type, status, duration_ms, models[], requests: [calls...]}.
// Times `t`, `api_time`, `ttft` and `think_time` are seconds; `duration_ms` milliseconds.
//
// Strict: every bad value throws ConfigError "file:line:col: field: message", the column being
// where the value starts in that line and the field its path (e.g. `requests[3].requests[0].in`);
// a missing field is located at the object that lacks it. Checked: types; `in` >= 1; `out` >= 0;
// hash_ids.size() == ceil(in / block_size), each a non-negative integer; `t`, `api_time`, `ttft`,
// `think_time`, `duration_ms` finite and >= 0, each and a call's end `t + api_time` within the
// nanosecond clock (2^63 ns, some 292 years); within one agent (the main agent, or one subagent
// group) calls start in order and never before the previous call ended (a gap below zero by more
// than kAgentxGapTolerance is an error; within it the start is moved to the previous end, since
// the recorded values are rounded); a subagent group has at least one call; a session has at least
// one main-agent call; `type` is n, s or subagent (subagent groups do not nest).
// `out` == 0 (a call that returned nothing) is clamped to 1 output token, so the replay still runs
// the call and its prompt chain stays intact; zero_outputs_clamped() counts them and describe()
// reports the count. Unknown keys are ignored. `input_types`, `output_types` and `stop` must be
// present; their contents are not used. `tool_tokens`, `system_tokens` and `ttft` are checked, not kept.
//
// Bounds (each an error naming the field): a line of at most kAgentxMaxLineBytes; `block_size` in
// [1, 1,048,576]; `in` at most kAgentxMaxInputTokens; at most kAgentxMaxCallsPerSession calls and
// kAgentxMaxHashIdsPerSession hash ids in one session. One session tree is held at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/workload/agentic_session.hpp"

namespace engramsim::sim {

inline constexpr std::size_t kAgentxMaxLineBytes = std::size_t{1} << 30;      // 1 GiB of JSON text
inline constexpr std::int64_t kAgentxMaxInputTokens = std::int64_t{1} << 24;  // 16,777,216 (16x a 1M context)
inline constexpr std::int64_t kAgentxMaxCallsPerSession = 1'000'000;
inline constexpr std::int64_t kAgentxMaxHashIdsPerSession = std::int64_t{1} << 27;  // 134M ids = 1 GiB
inline constexpr std::int64_t kAgentxGapToleranceNs = 1'000'000;                    // 1 ms

class AgentxTraceSource : public AgenticSessionSource {
 public:
  explicit AgentxTraceSource(const std::string& path);
  ~AgentxTraceSource() override;
  bool next(AgenticSession& out) override;
  std::string describe() const override;
  std::uint64_t sessions_read() const { return sessions_; }
  std::uint64_t zero_outputs_clamped() const { return zero_outputs_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  std::uint64_t sessions_ = 0;
  std::uint64_t zero_outputs_ = 0;
};

std::unique_ptr<AgenticSessionSource> open_agentx_trace(const std::string& path);

// Where the value at `path` (object keys and array indices from the line's top-level object)
// starts in a one-line JSON text, 1-based; of a repeated key the last counts; 0 when not found.
struct JsonStep {
  std::string_view key;  // used when index < 0
  std::int64_t index = -1;
};
int json_path_column(std::string_view line, const JsonStep* steps, std::size_t n_steps);

}  // namespace engramsim::sim
