#include "sim/workload/agentx_trace_reader.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "sim/workload/line_reader.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

namespace {

bool json_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && json_space(s[i])) ++i;
  return i;
}

// Index just past the string that opens at s[i] == '"' (s.size() when unterminated).
std::size_t skip_string(std::string_view s, std::size_t i) {
  std::size_t j = i + 1;
  while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
  return std::min(j + 1, s.size());
}

// Index just past the value that starts at s[i].
std::size_t skip_value(std::string_view s, std::size_t i) {
  if (i >= s.size()) return i;
  if (s[i] == '"') return skip_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = skip_string(s, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return i + 1;
      ++i;
    }
    return i;
  }
  while (i < s.size() && s[i] != ',' && s[i] != ']' && s[i] != '}' && !json_space(s[i])) ++i;
  return i;
}

// From the value at s[i] (an object), the start of member `key`'s value; npos when absent.
std::size_t find_member(std::string_view s, std::size_t i, std::string_view key) {
  if (i >= s.size() || s[i] != '{') return std::string_view::npos;
  std::size_t found = std::string_view::npos;
  i = skip_space(s, i + 1);
  while (i < s.size() && s[i] == '"') {
    const std::size_t end = skip_string(s, i);
    const std::string_view name = s.substr(i + 1, end - i - 2);
    i = skip_space(s, end);
    if (i >= s.size() || s[i] != ':') return found;
    i = skip_space(s, i + 1);
    if (name == key) found = i;
    i = skip_space(s, skip_value(s, i));
    if (i >= s.size() || s[i] != ',') break;
    i = skip_space(s, i + 1);
  }
  return found;
}

// From the value at s[i] (an array), the start of element `index`; npos when absent.
std::size_t find_element(std::string_view s, std::size_t i, std::int64_t index) {
  if (i >= s.size() || s[i] != '[') return std::string_view::npos;
  i = skip_space(s, i + 1);
  for (std::int64_t k = 0; i < s.size() && s[i] != ']'; ++k) {
    if (k == index) return i;
    i = skip_space(s, skip_value(s, i));
    if (i >= s.size() || s[i] != ',') return std::string_view::npos;
    i = skip_space(s, i + 1);
  }
  return std::string_view::npos;
}

}  // namespace

int json_path_column(std::string_view line, const JsonStep* steps, std::size_t n_steps) {
  std::size_t i = skip_space(line, 0);
  for (std::size_t k = 0; k < n_steps && i != std::string_view::npos; ++k)
    i = steps[k].index < 0 ? find_member(line, i, steps[k].key) : find_element(line, i, steps[k].index);
  if (i == std::string_view::npos || i >= line.size()) return 0;
  return static_cast<int>(i) + 1;
}

namespace {

using nlohmann::json;

// One line being read: the parsed object, where the reader is inside it (for error messages) and
// the session's running totals that the bounds apply to.
struct LineCtx {
  const LineReader& reader;
  std::string_view line;
  std::vector<JsonStep> path;  // the object being read
  std::int64_t block_tokens = 64;
  std::int64_t calls = 0;
  std::int64_t hash_ids = 0;
  std::uint64_t zero_outputs = 0;

  std::string field(std::string_view key) const {
    std::string f;
    for (const JsonStep& s : path) {
      if (s.index >= 0)
        f += "[" + std::to_string(s.index) + "]";
      else
        f += (f.empty() ? "" : ".") + std::string(s.key);
    }
    if (!key.empty()) f += (f.empty() ? "" : ".") + std::string(key);
    return f;
  }
  int column(std::string_view key, std::int64_t index = -1) const {
    std::vector<JsonStep> at = path;
    if (!key.empty()) at.push_back({key, -1});
    if (index >= 0) at.push_back({{}, index});
    const int c = json_path_column(line, at.data(), at.size());
    return c > 0 ? c : std::max(1, json_path_column(line, path.data(), path.size()));
  }
  // The value of `key` in the current object (or element `index` of it) is bad.
  [[noreturn]] void fail(std::string_view key, const std::string& message, std::int64_t index = -1) const {
    std::string name = field(key);
    if (index >= 0) name += "[" + std::to_string(index) + "]";
    throw ConfigError({reader.path(), reader.line_number(), column(key, index)}, name, message);
  }
};

// Descends into path step `key` (or element `index`) for the guard's lifetime.
class Into {
 public:
  Into(LineCtx& c, std::string_view key, std::int64_t index = -1) : c_(c) {
    c_.path.push_back({key, -1});
    if (index >= 0) c_.path.push_back({{}, index});
    pushed_ = index >= 0 ? 2 : 1;
  }
  ~Into() { c_.path.resize(c_.path.size() - pushed_); }
  Into(const Into&) = delete;
  Into& operator=(const Into&) = delete;

 private:
  LineCtx& c_;
  std::size_t pushed_;
};

const json& member(const LineCtx& c, const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end()) c.fail(key, "missing field");
  return *it;
}

std::int64_t integer(const LineCtx& c, const json& o, const char* key, std::int64_t lo, std::int64_t hi) {
  const json& v = member(c, o, key);
  std::int64_t x = 0;
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    c.fail(key, "too large");
  if (v.is_number_integer())
    x = v.get<std::int64_t>();
  else if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 9e15)
    x = static_cast<std::int64_t>(v.get<double>());
  else
    c.fail(key, "not an integer");
  if (x < lo) c.fail(key, "must be >= " + std::to_string(lo) + ", got " + std::to_string(x));
  if (x > hi) c.fail(key, "must be <= " + std::to_string(hi) + ", got " + std::to_string(x));
  return x;
}

// A duration or time stamp in `ns_per_unit` nanoseconds per unit: finite, >= 0, within the clock.
Time duration(const LineCtx& c, const json& o, const char* key, double ns_per_unit) {
  const json& v = member(c, o, key);
  if (!v.is_number()) c.fail(key, "not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) c.fail(key, "not finite");
  if (d < 0) c.fail(key, "must be >= 0, got " + std::to_string(d));
  const std::int64_t ns = to_ns(d, ns_per_unit);
  if (ns == kTimestampOutOfRange) c.fail(key, "beyond the nanosecond clock");
  return Time::ns(ns);
}

std::string text(const LineCtx& c, const json& o, const char* key) {
  const json& v = member(c, o, key);
  if (!v.is_string()) c.fail(key, "not a string");
  return v.get<std::string>();
}

void string_list(const LineCtx& c, const json& o, const char* key) {
  const json& v = member(c, o, key);
  if (!v.is_array()) c.fail(key, "not an array");
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!v[i].is_string()) c.fail(key, "not a string", static_cast<std::int64_t>(i));
}

void hash_ids(LineCtx& c, const json& o, std::int64_t in, std::vector<std::uint64_t>& out) {
  const json& v = member(c, o, "hash_ids");
  if (!v.is_array()) c.fail("hash_ids", "not an array");
  const std::int64_t want = (in + c.block_tokens - 1) / c.block_tokens;
  const auto have = static_cast<std::int64_t>(v.size());
  if (have != want)
    c.fail("hash_ids", std::to_string(have) + " ids for in = " + std::to_string(in) +
                           ", expected ceil(in / block_size) = " + std::to_string(want));
  c.hash_ids += have;
  if (c.hash_ids > kAgentxMaxHashIdsPerSession)
    c.fail("hash_ids", "the session holds more than " + std::to_string(kAgentxMaxHashIdsPerSession) + " hash ids");
  out.clear();
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_unsigned()) c.fail("hash_ids", "not a non-negative integer", static_cast<std::int64_t>(i));
    out.push_back(v[i].get<std::uint64_t>());
  }
}

// One call; the context's path is the call object.
AgenticCall parse_call(LineCtx& c, const json& o, AgenticCallType type) {
  if (++c.calls > kAgentxMaxCallsPerSession)
    c.fail("", "the session holds more than " + std::to_string(kAgentxMaxCallsPerSession) + " calls");
  AgenticCall call;
  call.type = type;
  call.start = duration(c, o, "t", 1e9);
  call.api_time = duration(c, o, "api_time", 1e9);
  // The call's end (t + api_time) is what the reader and the replay compare: it must fit the clock too.
  if (call.api_time > Time::max() - call.start) c.fail("api_time", "t + api_time is beyond the nanosecond clock");
  if (o.contains("think_time")) call.think_time = duration(c, o, "think_time", 1e9);
  if (o.contains("ttft")) duration(c, o, "ttft", 1e9);
  text(c, o, "model");
  const std::int64_t in = integer(c, o, "in", 1, kAgentxMaxInputTokens);
  std::int64_t out = integer(c, o, "out", 0, kAgentxMaxInputTokens);
  if (out == 0) {
    out = 1;
    ++c.zero_outputs;
  }
  call.input_tokens = static_cast<std::int32_t>(in);
  call.output_tokens = static_cast<std::int32_t>(out);
  hash_ids(c, o, in, call.hash_ids);
  member(c, o, "input_types");
  member(c, o, "output_types");
  member(c, o, "stop");
  return call;
}

// Calls of one agent never start before the previous one ended (beyond rounding, see the header).
void chain(const LineCtx& c, AgenticCall& call, Time& prev_end, bool first) {
  if (!first) {
    const std::int64_t gap = call.start.count_ns() - prev_end.count_ns();
    if (gap < -kAgentxGapToleranceNs)
      c.fail("t", "starts " + std::to_string(static_cast<double>(-gap) * 1e-9) +
                      " s before the previous call of this agent ended (t + api_time)");
    if (gap < 0) call.start = prev_end;
  }
  prev_end = call.start + call.api_time;
}

AgenticCallType call_type(const LineCtx& c, const json& o, bool in_subagent, bool& is_subagent) {
  const std::string type = text(c, o, "type");
  is_subagent = type == "subagent";
  if (const auto t = kAgenticCallTypeNames.parse(type)) return *t;
  if (is_subagent && in_subagent) c.fail("type", "a subagent group inside a subagent group is not supported");
  if (!is_subagent) c.fail("type", "unknown type '" + type + "' (expected n, s or subagent)");
  return AgenticCallType::normal;
}

AgenticSubagent parse_subagent(LineCtx& c, const json& o) {
  AgenticSubagent group;
  group.agent_id = text(c, o, "agent_id");
  text(c, o, "subagent_type");
  text(c, o, "status");
  duration(c, o, "duration_ms", 1e6);
  string_list(c, o, "models");
  const json& reqs = member(c, o, "requests");
  if (!reqs.is_array()) c.fail("requests", "not an array");
  if (reqs.empty()) c.fail("requests", "a subagent group without calls");
  Time prev_end;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    Into at(c, "requests", static_cast<std::int64_t>(i));
    if (!reqs[i].is_object()) c.fail("", "not an object");
    bool sub = false;
    const AgenticCallType type = call_type(c, reqs[i], true, sub);
    group.calls.push_back(parse_call(c, reqs[i], type));
    chain(c, group.calls.back(), prev_end, i == 0);
  }
  return group;
}

void parse_session(LineCtx& c, const json& o, AgenticSession& s) {
  const json& id = member(c, o, "id");
  if (!id.is_string() && !id.is_number_integer()) c.fail("id", "not a string or an integer");
  s.id = id.is_string() ? id.get<std::string>() : id.dump();
  string_list(c, o, "models");
  c.block_tokens = integer(c, o, "block_size", 1, 1 << 20);
  s.block_tokens = static_cast<std::int32_t>(c.block_tokens);
  if (text(c, o, "hash_id_scope") != "local") c.fail("hash_id_scope", "only \"local\" is supported");
  if (o.contains("tool_tokens")) integer(c, o, "tool_tokens", 0, kAgentxMaxInputTokens);
  if (o.contains("system_tokens")) integer(c, o, "system_tokens", 0, kAgentxMaxInputTokens);
  const json& reqs = member(c, o, "requests");
  if (!reqs.is_array()) c.fail("requests", "not an array");
  s.entries.clear();
  Time prev_end;
  bool any_main = false;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    Into at(c, "requests", static_cast<std::int64_t>(i));
    if (!reqs[i].is_object()) c.fail("", "not an object");
    bool sub = false;
    const AgenticCallType type = call_type(c, reqs[i], false, sub);
    if (sub) {
      s.entries.emplace_back(parse_subagent(c, reqs[i]));
      continue;
    }
    AgenticCall call = parse_call(c, reqs[i], type);
    chain(c, call, prev_end, !any_main);
    any_main = true;
    s.entries.emplace_back(std::move(call));
  }
  if (!any_main) c.fail("requests", "a session without a main-agent call");
}

[[noreturn]] void fail_parse(const LineReader& reader, std::string_view line, const json::exception& e,
                             std::size_t byte) {
  std::string what = e.what();
  const std::size_t col = what.find(", column ");
  const std::size_t colon = what.find(": ", col == std::string::npos ? 0 : col);
  if (colon != std::string::npos) what = what.substr(colon + 2);
  const int column = static_cast<int>(std::clamp<std::size_t>(byte, 1, std::max<std::size_t>(line.size(), 1)));
  reader.fail_field({"", column}, "invalid JSON: " + what);
}

}  // namespace

struct AgentxTraceSource::Impl {
  explicit Impl(const std::string& path) : reader(path, kAgentxMaxLineBytes) {}
  LineReader reader;
};

AgentxTraceSource::AgentxTraceSource(const std::string& path) : impl_(std::make_unique<Impl>(path)), path_(path) {}
AgentxTraceSource::~AgentxTraceSource() = default;

bool AgentxTraceSource::next(AgenticSession& out) {
  std::string_view line;
  do {
    if (!impl_->reader.next(line)) {
      if (sessions_ == 0) impl_->reader.fail("the trace holds no session");
      return false;
    }
  } while (line.find_first_not_of(" \t\r") == std::string_view::npos);
  json j;
  try {
    j = json::parse(line.begin(), line.end());
  } catch (const json::parse_error& e) {
    fail_parse(impl_->reader, line, e, e.byte);
  } catch (const json::exception& e) {
    fail_parse(impl_->reader, line, e, 1);
  }
  if (!j.is_object()) impl_->reader.fail_field({"", 1}, "expected a JSON object (one session tree per line)");
  LineCtx c{impl_->reader, line, {}};
  out = AgenticSession{};
  parse_session(c, j, out);
  zero_outputs_ += c.zero_outputs;
  ++sessions_;
  return true;
}

std::string AgentxTraceSource::describe() const {
  std::string d = "agentx trace " + path_ + " (" + std::to_string(sessions_) + " sessions read";
  if (zero_outputs_ > 0) d += ", " + std::to_string(zero_outputs_) + " calls with out = 0 run with 1 output token";
  return d + ")";
}

std::unique_ptr<AgenticSessionSource> open_agentx_trace(const std::string& path) {
  return std::make_unique<AgentxTraceSource>(path);
}

}  // namespace engramsim::sim
