#include "sim/metrics/request_columns.hpp"

#include <string>

#include "core/number_text.hpp"

namespace engramsim::sim {
namespace {

// b - a in ms; empty when either never happened.
std::string ms_between(Time a, Time b) {
  return a == Time::max() || b == Time::max() ? std::string() : format_number((b - a).millis(), 6, false);
}

// (finish - first token) / (generated - 1) of a finished request with more than one token.
std::string tpot_ms(const RequestRecord& r) {
  if (r.status != RequestStatus::finished || r.generated_tokens <= 1) return {};
  return format_number((r.finish - r.first_token).millis() / (r.generated_tokens - 1), 6, false);
}

template <class N>
std::function<std::string(const RequestRecord&)> integer(N RequestRecord::*member) {
  return [member](const RequestRecord& r) { return std::to_string(r.*member); };
}

std::vector<RequestColumn> build_request_columns() {
  return {
      {"request_id", "", "the request's id (trace order)", integer(&RequestRecord::id)},
      {"replica", "", "the replica that served it", integer(&RequestRecord::replica)},
      {"status", "", "finished, unfinished (at the end of a horizon-limited run) or rejected",
       [](const RequestRecord& r) { return std::string(to_string(r.status)); }},
      {"session", "", "its session id (0: none)", integer(&RequestRecord::session)},
      {"arrival_s", "s", "arrival time",
       [](const RequestRecord& r) { return format_number(r.arrival.seconds(), 6, false); }},
      {"input_tokens", "tokens", "prompt length", integer(&RequestRecord::prompt_tokens)},
      {"output_tokens", "tokens", "output length requested", integer(&RequestRecord::output_tokens)},
      {"generated_tokens", "tokens", "output tokens emitted", integer(&RequestRecord::generated_tokens)},
      {"cached_tokens", "tokens", "prompt tokens hit in the prefix cache at first admission (GPU and host pool)",
       integer(&RequestRecord::cached_prompt_tokens)},
      {"preemptions", "", "times it was preempted", integer(&RequestRecord::preemptions)},
      {"queue_ms", "ms", "first scheduled step - arrival",
       [](const RequestRecord& r) { return ms_between(r.arrival, r.first_scheduled); }},
      {"ttft_ms", "ms", "first token - arrival (queueing included)",
       [](const RequestRecord& r) { return ms_between(r.arrival, r.first_token); }},
      {"tpot_ms", "ms", "(finish - first token) / (generated - 1), finished requests with more than one token",
       tpot_ms},
      {"e2el_ms", "ms", "finish - arrival", [](const RequestRecord& r) { return ms_between(r.arrival, r.finish); }},
  };
}

}  // namespace

const std::vector<RequestColumn>& request_columns() {
  static const std::vector<RequestColumn> list = build_request_columns();
  return list;
}

std::string request_columns_markdown(const std::vector<RequestColumn>& list) {
  std::string out = "| key | unit | meaning |\n|---|---|---|\n";
  for (const RequestColumn& c : list) out += "| `" + c.name + "` | " + c.unit + " | " + c.meaning + " |\n";
  return out;
}

}  // namespace engramsim::sim
