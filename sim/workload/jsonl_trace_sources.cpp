// The two JSON-lines trace formats share their field handling.
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

#include "sim/workload/bailian_trace_source.hpp"
#include "sim/workload/mooncake_trace_source.hpp"

namespace engramsim::sim {
namespace {

using nlohmann::json;

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

// One parsed line and where its keys' values sit (found by their quoted key name: the first
// occurrence, which is the key itself in the flat objects these traces hold).
struct JsonRow {
  const LineReader& reader;
  std::string_view line;
  json j;

  FieldRef at(const char* key) const {
    const std::string quoted = std::string("\"") + key + "\"";
    std::size_t p = line.find(quoted);
    if (p == std::string_view::npos) return {key, 1};  // missing: the object's start
    p += quoted.size();
    while (p < line.size() && (line[p] == ' ' || line[p] == '\t' || line[p] == ':')) ++p;
    return {key, static_cast<int>(p) + 1};
  }
  [[noreturn]] void fail(const char* key, const std::string& message) const { reader.fail_field(at(key), message); }

  const json& member(const char* key) const {
    const auto it = j.find(key);
    if (it == j.end()) fail(key, "missing field");
    return *it;
  }
  double number(const char* key) const {
    const json& v = member(key);
    if (!v.is_number()) fail(key, "not a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(key, "not finite");
    return d;
  }
  std::int64_t integer(const char* key) const {
    const json& v = member(key);
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<std::int64_t>(d);
    }
    fail(key, "not an integer");
  }
  void hashes(std::vector<std::uint64_t>& out) const {
    const auto it = j.find("hash_ids");
    if (it == j.end() || it->is_null()) return;
    if (!it->is_array()) fail("hash_ids", "not an array");
    out.reserve(it->size());
    for (const json& h : *it) {
      if (!h.is_number_integer() || h.get<std::int64_t>() < 0) fail("hash_ids", "not a non-negative integer");
      out.push_back(h.get<std::uint64_t>());
    }
  }
};

// The next non-blank line as a JSON object; false at end of file.
bool next_object(LineReader& reader, std::optional<JsonRow>& row) {
  std::string_view line;
  do {
    if (!reader.next(line)) return false;
  } while (blank(line));
  try {
    json j = json::parse(line.begin(), line.end());
    if (!j.is_object()) reader.fail_field({"", 1}, "expected a JSON object");
    row.emplace(JsonRow{reader, line, std::move(j)});
    return true;
  } catch (const json::parse_error& e) {
    reader.fail_field({"", static_cast<int>(e.byte)}, std::string("invalid JSON: ") + e.what());
  }
}

void locate(const JsonRow& r, TraceSource::Row& row, const char* time_key) {
  row.line = r.reader.line_number();
  row.time = r.at(time_key);
  row.input_at = r.at("input_length");
  row.output_at = r.at("output_length");
  row.hashes_at = r.at("hash_ids");
}

}  // namespace

MooncakeTraceSource::MooncakeTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "mooncake", 512, options), reader_(path) {}

bool MooncakeTraceSource::read_row(Row& row, std::vector<std::uint64_t>& hashes) {
  std::optional<JsonRow> r;
  if (!next_object(reader_, r)) return false;
  locate(*r, row, "timestamp");
  row.t_ns = to_ns(r->number("timestamp"), 1e6);
  row.input = r->integer("input_length");
  row.output = r->integer("output_length");
  r->hashes(hashes);
  return true;
}

BailianTraceSource::BailianTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "bailian", 16, options), reader_(path) {}

bool BailianTraceSource::read_row(Row& row, std::vector<std::uint64_t>& hashes) {
  std::optional<JsonRow> r;
  if (!next_object(reader_, r)) return false;
  locate(*r, row, "timestamp");
  const std::int64_t chat = r->integer("chat_id");
  const std::int64_t parent = r->integer("parent_chat_id");
  row.t_ns = to_ns(r->number("timestamp"), 1e9);
  row.input = r->integer("input_length");
  row.output = r->integer("output_length");
  r->hashes(hashes);
  if (chat < 0) r->fail("chat_id", "must be >= 0");
  if (parent < -1) r->fail("parent_chat_id", "must be -1 (a conversation's first turn) or a chat_id");
  if (parent == chat) r->fail("parent_chat_id", "a turn cannot follow itself");

  std::uint64_t session = 0;
  if (parent >= 0) {
    const auto it = session_of_chat_.find(parent);
    session = it != session_of_chat_.end() ? it->second.session : static_cast<std::uint64_t>(parent) + 1;
  } else {
    session = static_cast<std::uint64_t>(chat) + 1;
  }
  const auto [it, inserted] = session_of_chat_.emplace(chat, Chat{session, row.line});
  if (!inserted)
    r->fail("chat_id", std::to_string(chat) + " already names the request of line " + std::to_string(it->second.line));
  table_order_.push_back(chat);
  if (table_order_.size() > kSessionTableCap) {
    session_of_chat_.erase(table_order_.front());
    table_order_.pop_front();
  }
  row.session = session;
  return true;
}

}  // namespace engramsim::sim
