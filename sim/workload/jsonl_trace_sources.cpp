// The two JSON-lines trace formats share their field handling.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "sim/workload/bailian_trace_source.hpp"
#include "sim/workload/mooncake_trace_source.hpp"

namespace engramsim::sim {

// Where the value of a top-level key starts in a one-line JSON object (1-based), or 0 when the
// key is absent or written with escapes. Keys are told from string values by the colon that follows
// them at depth 1; of a repeated key the last counts, as for the parser.
int json_value_column(std::string_view line, std::string_view key) {
  const std::size_t n = line.size();
  int depth = 0;
  int found = 0;
  std::size_t i = 0;
  while (i < n) {
    const char c = line[i];
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && line[j] != '"') j += line[j] == '\\' ? 2 : 1;
      if (j >= n) return 0;
      if (depth == 1) {
        std::size_t k = j + 1;
        while (k < n && (line[k] == ' ' || line[k] == '\t')) ++k;
        if (k < n && line[k] == ':' && line.substr(i + 1, j - i - 1) == key) {
          ++k;
          while (k < n && (line[k] == ' ' || line[k] == '\t')) ++k;
          found = static_cast<int>(k) + 1;
        }
      }
      i = j + 1;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    ++i;
  }
  return found;
}

namespace {

using nlohmann::json;

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

// One parsed line; a failing value is located by json_value_column (a missing key at the object's
// start).
struct JsonRow {
  const LineReader& reader;
  std::string_view line;
  json j;

  [[noreturn]] void fail(const char* key, const std::string& message) const {
    const int column = json_value_column(line, key);
    reader.fail_field({key, column > 0 ? column : 1}, message);
  }

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
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      fail(key, "too large");
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
      if (!h.is_number_unsigned()) fail("hash_ids", "not a non-negative integer");  // 64-bit hashes welcome
      out.push_back(h.get<std::uint64_t>());
    }
  }
};

// nlohmann's parse error without its own "[json.exception...] parse error at line 1, column N: "
// prefix (the caller gives the file's line and column).
std::string parse_error_text(const json::parse_error& e) {
  const std::string what = e.what();
  const std::size_t col = what.find(", column ");
  const std::size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// The next non-blank line as a JSON object; false at end of file.
bool next_object(LineReader& reader, std::string_view& line, std::optional<JsonRow>& row) {
  do {
    if (!reader.next(line)) return false;
  } while (blank(line));
  try {
    json j = json::parse(line.begin(), line.end());
    if (!j.is_object()) reader.fail_field({"", 1}, "expected a JSON object");
    row.emplace(JsonRow{reader, line, std::move(j)});
    return true;
  } catch (const json::parse_error& e) {
    reader.fail_field({"", static_cast<int>(std::max<std::size_t>(e.byte, 1))}, "invalid JSON: " + parse_error_text(e));
  } catch (const json::exception& e) {  // a number beyond double's range (out_of_range.406)
    const std::string what = e.what();
    const std::size_t end = what.find("] ");
    // "number overflow parsing '1e999'": located at that number when the line holds it.
    int column = 1;
    const std::size_t q1 = what.find('\'');
    const std::size_t q2 = q1 == std::string::npos ? q1 : what.find('\'', q1 + 1);
    if (q2 != std::string::npos && q2 > q1 + 1)
      if (const std::size_t at = line.find(what.substr(q1 + 1, q2 - q1 - 1)); at != std::string_view::npos)
        column = static_cast<int>(at) + 1;
    reader.fail_field({"", column}, "invalid JSON: " + (end == std::string::npos ? what : what.substr(end + 2)));
  }
}

// The fields the base checks; their columns are found only when one fails (value_column).
void name_fields(const JsonRow& r, TraceSource::Row& row, const char* time_key) {
  row.line = r.reader.line_number();
  row.time = {time_key, 0};
  row.input_at = {"input_length", 0};
  row.output_at = {"output_length", 0};
  row.hashes_at = {"hash_ids", 0};
}

}  // namespace

MooncakeTraceSource::MooncakeTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "mooncake", 512, options), reader_(path) {}

bool MooncakeTraceSource::read_row(Row& row, std::vector<std::uint64_t>& hashes) {
  std::optional<JsonRow> r;
  if (!next_object(reader_, line_, r)) return false;
  name_fields(*r, row, "timestamp");
  row.t_ns = to_ns(r->number("timestamp"), 1e6);
  row.input = r->integer("input_length");
  row.output = r->integer("output_length");
  r->hashes(hashes);
  return true;
}

// Unlocatable (an escaped key): the row's first column.
int MooncakeTraceSource::value_column(std::string_view field) const {
  return std::max(1, json_value_column(line_, field));
}

BailianTraceSource::BailianTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "bailian", 16, options), reader_(path) {}

int BailianTraceSource::value_column(std::string_view field) const {
  return std::max(1, json_value_column(line_, field));
}

bool BailianTraceSource::read_row(Row& row, std::vector<std::uint64_t>& hashes) {
  std::optional<JsonRow> r;
  if (!next_object(reader_, line_, r)) return false;
  name_fields(*r, row, "timestamp");
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
