// Agentic session trees, as InferenceX's AgentX corpus records them (Weka trace v7 JSONL: one
// session tree per line). A session is an ordered list of entries: main-agent LLM calls (turns) and
// subagent groups, each group an ordered list of its own calls. Only token counts, timing and
// 64-token chained prefix-block hashes are recorded, never text.
//
// Timing as recorded: `t` is when the call started, in seconds from the session's start; `api_time`
// is how long the recorded server took; `think_time` (optional) is the client's time before it. The
// replay derives end-to-start gaps from these (see docs/agentic.md); a reader checks that they are
// finite and not negative.
//
// Both the corpus reader and the synthetic generator produce these values; the replay driver is
// the only consumer, so a generated corpus and the real one are replayed by the same rules.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"

namespace engramsim::sim {

enum class AgenticCallType : std::uint8_t { normal, subagent_call };  // trace `type`: "n" | "s"
inline constexpr EnumNames<AgenticCallType, 2> kAgenticCallTypeNames{{{
    {AgenticCallType::normal, "n"},
    {AgenticCallType::subagent_call, "s"},
}}};

// One LLM call.
struct AgenticCall {
  Time start;                      // `t`: from the session's start
  Time api_time;                   // `api_time`: recorded service time (>= 0)
  Time think_time;                 // `think_time`: recorded client time before the call; zero when absent
  std::int32_t input_tokens = 0;   // `in` (>= 1)
  std::int32_t output_tokens = 0;  // `out` (>= 1 after the reader's rules)
  AgenticCallType type = AgenticCallType::normal;
  std::vector<std::uint64_t> hash_ids;  // chained prefix blocks; size == ceil(in / block_tokens)
};

// A subagent group: its calls run beside the main agent, in the order recorded.
struct AgenticSubagent {
  std::string agent_id;
  std::vector<AgenticCall> calls;  // never empty
};

using AgenticEntry = std::variant<AgenticCall, AgenticSubagent>;

struct AgenticSession {
  std::string id;
  std::int32_t block_tokens = 64;     // `block_size`
  std::vector<AgenticEntry> entries;  // in trace order; at least one main-agent call
};

// A stream of session trees, pulled one at a time (a corpus of any size in bounded memory).
class AgenticSessionSource {
 public:
  virtual ~AgenticSessionSource() = default;
  // Overwrites `out` with the next session; false at the end. Errors throw ConfigError naming
  // file:line:col and the field.
  virtual bool next(AgenticSession& out) = 0;
  virtual std::string describe() const = 0;
};

}  // namespace engramsim::sim
