#include "sim/serving/serving_config.hpp"

#include <limits>

namespace engramsim::sim {

SchedulerParams parse_scheduler(const ConfigNode& n, const SchedulerRegistry& registry) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  SchedulerParams p;
  p.name = n.one_of_or("name", registry.names(), p.name);
  p.max_num_batched_tokens = static_cast<std::int32_t>(n.integer_or("max_num_batched_tokens", p.max_num_batched_tokens, 1, kMax));
  p.max_num_seqs = static_cast<std::int32_t>(n.integer_or("max_num_seqs", p.max_num_seqs, 1, kMax));
  p.enable_chunked_prefill = n.boolean_or("enable_chunked_prefill", p.enable_chunked_prefill);
  p.long_prefill_token_threshold =
      static_cast<std::int32_t>(n.integer_or("long_prefill_token_threshold", p.long_prefill_token_threshold, 0, kMax));
  p.chunk_size = static_cast<std::int32_t>(n.integer_or("chunk_size", p.chunk_size, 1, kMax));
  n.finish();
  return p;
}

SloParams parse_slo(const ConfigNode& n) {
  SloParams s;
  if (n.has("ttft")) s.ttft = n.time("ttft");
  if (n.has("tpot")) s.tpot = n.time("tpot");
  if (n.has("e2el")) s.e2el = n.time("e2el");
  n.finish();
  return s;
}

std::string parse_router(const ConfigNode& scalar, const RouterRegistry& registry) {
  const std::string name = scalar.as_str();
  for (const auto& known : registry.names()) {
    if (known == name) return name;
  }
  std::string list;
  for (const auto& known : registry.names()) list += (list.empty() ? "" : ", ") + known;
  scalar.fail("unknown router '" + name + "' (known: " + list + ")");
}

}  // namespace engramsim::sim
