// When a disaggregated deployment's prefill side sends a request's KV to its decode side, as an
// engine preset states it (models/engines/, key `kv_send`; docs/disaggregation.md "Transfer modes").
#pragma once

#include <cstdint>

#include "core/enum_names.hpp"

namespace engramsim {

// When a disaggregated deployment's prefill side sends a request's KV to its decode side (docs/
// disaggregation.md "Transfer modes"): after the whole prefill, pulled by the decode side (vLLM's
// NixlConnector), or chunk by chunk as the prefill computes it, into blocks the decode side reserved
// before the prefill began (SGLang's disaggregation: send_kv_chunk after every prompt chunk).
enum class KvSend : std::uint8_t { after_prefill, per_chunk };
inline constexpr EnumNames<KvSend, 2> kKvSendNames{{{
    {KvSend::after_prefill, "after_prefill"},
    {KvSend::per_chunk, "per_chunk"},
}}};
const char* to_string(KvSend k);

}  // namespace engramsim
