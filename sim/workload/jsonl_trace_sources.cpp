// The two JSON-lines trace formats share their field handling.
#include <nlohmann/json.hpp>

#include <cmath>

#include "sim/workload/bailian_trace_source.hpp"
#include "sim/workload/mooncake_trace_source.hpp"

namespace engramsim::sim {
namespace {

using nlohmann::json;

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

json parse_line(const LineReader& r, std::string_view line) {
  try {
    json j = json::parse(line.begin(), line.end());
    if (!j.is_object()) r.fail("expected a JSON object");
    return j;
  } catch (const json::parse_error& e) {
    r.fail(std::string("invalid JSON: ") + e.what());
  }
}

const json& member(const LineReader& r, const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) r.fail(std::string("missing field '") + key + "'");
  return *it;
}

double number_field(const LineReader& r, const json& j, const char* key) {
  const json& v = member(r, j, key);
  if (!v.is_number()) r.fail(std::string("field '") + key + "': not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) r.fail(std::string("field '") + key + "': not finite");
  return d;
}

std::int64_t integer_field(const LineReader& r, const json& j, const char* key) {
  const json& v = member(r, j, key);
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<std::int64_t>(d);
  }
  r.fail(std::string("field '") + key + "': not an integer");
}

void hash_field(const LineReader& r, const json& j, std::vector<std::uint64_t>& hashes) {
  const auto it = j.find("hash_ids");
  if (it == j.end() || it->is_null()) return;
  if (!it->is_array()) r.fail("field 'hash_ids': not an array");
  hashes.reserve(it->size());
  for (const json& h : *it) {
    if (!h.is_number_integer() || h.get<std::int64_t>() < 0) r.fail("field 'hash_ids': not a non-negative integer");
    hashes.push_back(h.get<std::uint64_t>());
  }
}

}  // namespace

MooncakeTraceSource::MooncakeTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "mooncake", 512, options), reader_(path) {}

bool MooncakeTraceSource::read_row(Row& row, std::vector<std::uint64_t>& hashes) {
  std::string_view line;
  do {
    if (!reader_.next(line)) return false;
  } while (blank(line));
  row.line = reader_.line_number();
  const json j = parse_line(reader_, line);
  row.t_ns = to_ns(number_field(reader_, j, "timestamp"), 1e6);
  row.input = integer_field(reader_, j, "input_length");
  row.output = integer_field(reader_, j, "output_length");
  hash_field(reader_, j, hashes);
  return true;
}

BailianTraceSource::BailianTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "bailian", 16, options), reader_(path) {}

bool BailianTraceSource::read_row(Row& row, std::vector<std::uint64_t>& hashes) {
  std::string_view line;
  do {
    if (!reader_.next(line)) return false;
  } while (blank(line));
  row.line = reader_.line_number();
  const json j = parse_line(reader_, line);
  const std::int64_t chat = integer_field(reader_, j, "chat_id");
  const std::int64_t parent = integer_field(reader_, j, "parent_chat_id");
  row.t_ns = to_ns(number_field(reader_, j, "timestamp"), 1e9);
  row.input = integer_field(reader_, j, "input_length");
  row.output = integer_field(reader_, j, "output_length");
  hash_field(reader_, j, hashes);

  std::uint64_t session = 0;
  if (parent >= 0) {
    const auto it = session_of_chat_.find(parent);
    session = it != session_of_chat_.end() ? it->second : static_cast<std::uint64_t>(parent) + 1;
  } else {
    if (chat < 0) reader_.fail("field 'chat_id': must be >= 0");
    session = static_cast<std::uint64_t>(chat) + 1;
  }
  if (session_of_chat_.emplace(chat, session).second) {
    table_order_.push_back(chat);
    if (table_order_.size() > kSessionTableCap) {
      session_of_chat_.erase(table_order_.front());
      table_order_.pop_front();
    }
  }
  row.session = session;
  return true;
}

}  // namespace engramsim::sim
