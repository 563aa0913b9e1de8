// A synthetic AgentX-like corpus: agentic coding sessions (main-agent turns and subagent groups)
// whose statistics follow the published figures of the real AgentX corpus (docs/agentic.md
// "Generator" gives each distribution, its fit and how close the generated corpus comes).
//
// Prompts are chained: each turn's prompt is the previous prompt, the previous output and new
// content, in 64-token blocks (`in` is a whole number of blocks, as in the corpus); hash ids are
// dense integers local to the corpus, equal for equal prefixes (the client system prompt variants
// are shared across sessions), so an infinite prefix cache hits ~0.98 of input tokens.
// Deterministic: the same params give the same sessions on every platform (core/rng.hpp streams,
// one per session, so session k does not depend on how many sessions are drawn).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "sim/workload/agentic_session.hpp"

namespace engramsim::sim {

struct AgentxGeneratorParams {
  std::uint64_t seed = 42;
  std::int32_t sessions = 393;           // the real corpus has 393
  std::int32_t block_tokens = 64;        // tokens per hash block
  std::int32_t max_model_len = 1048576;  // the context a prompt plus its output must fit in
};

// Throws ConfigError for out-of-range params (sessions < 1, block_tokens < 1, max_model_len too
// small for the system prompt).
std::unique_ptr<AgenticSessionSource> make_agentx_generator(const AgentxGeneratorParams& params);

// Writes every session of `source` as Weka trace v7 JSON lines (the reader's format, in the order
// the reader reads them). Session-level fields the values do not carry are written as fixed
// values: models ["synthetic"], hash_id_scope "local", input_types ["text"], output_types
// ["text"], stop "end_turn", subagent_type "general-purpose", status "completed".
void write_agentx_trace(AgenticSessionSource& source, std::ostream& out);
// The same into a file, gzip-compressed when `path` ends in ".gz" (deterministic bytes: the gzip
// header carries no time stamp). Returns the number of sessions written; I/O failure throws
// std::runtime_error.
std::int64_t write_agentx_trace_file(AgenticSessionSource& source, const std::string& path);

}  // namespace engramsim::sim
