// Opening a trace file by format name, or detecting the format from its first line.
//   canonical  arrival_s,input_tokens,output_tokens[,session,hash_ids]
//   azure      TIMESTAMP,ContextTokens,GeneratedTokens        (Azure LLM inference 2023 / 2024)
//   mooncake   JSONL timestamp(ms),input_length,output_length,hash_ids
//   vidur      arrived_at,num_prefill_tokens,num_decode_tokens
//   burstgpt   Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
//   bailian    JSONL chat_id,parent_chat_id,timestamp(s),input_length,output_length,type,turn,hash_ids
//   auto       detect from the header / the first JSON object's keys
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/workload/request_source.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

std::vector<std::string> trace_format_names();
// Throws ConfigError for an unknown format or (auto) an unrecognisable file.
std::string detect_trace_format(const std::string& path);
std::unique_ptr<RequestSource> open_trace(const std::string& path, const std::string& format,
                                          const TraceOptions& options = {});

}  // namespace engramsim::sim
