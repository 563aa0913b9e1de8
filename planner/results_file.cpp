#include "planner/results_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/config_input.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/staged_file.hpp"

namespace engramsim::planner {
namespace fs = std::filesystem;
namespace {

// Whether `file` has a line for every index in [0, points) (a complete result).
bool holds_every_point(const fs::path& file, std::size_t points) {
  std::vector<bool> seen(points, false);
  std::size_t count = 0;
  for (const auto& l : read_results_file(file).lines) {
    if (l.index >= points || seen[l.index]) continue;
    seen[l.index] = true;
    ++count;
  }
  return points > 0 && count == points;
}

}  // namespace

const char* to_string(PointStatus s) { return kPointStatusNames.name(s); }

nlohmann::json ResultLine::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  j["index"] = index;
  j["id"] = id;
  j["assignments"] = assignments;
  j["status"] = to_string(status);
  switch (status) {
    case PointStatus::ok:
      j["result"] = result;
      break;
    case PointStatus::infeasible:
      j["reason"] = reason;
      break;
    case PointStatus::error:
      j["error"] = error;
      break;
  }
  return j;
}

std::string ResultLine::to_line() const {
  // Invalid UTF-8 in a message (e.g. from a path) must not make the line unwritable.
  return json_text(to_json(), -1);
}

ResultLine ResultLine::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("result line is not a JSON object");
  ResultLine r;
  if (!j.contains("index") || !j["index"].is_number_unsigned()) throw std::runtime_error("result line has no index");
  r.index = j["index"].get<std::size_t>();
  if (!j.contains("id") || !j["id"].is_string()) throw std::runtime_error("result line has no id");
  r.id = j["id"].get<std::string>();
  if (j.contains("assignments")) r.assignments = j["assignments"];
  const std::string status = j.value("status", "");
  const std::optional<PointStatus> s = kPointStatusNames.parse(status);
  if (!s) throw std::runtime_error("result line has an unknown status \"" + status + "\"");
  r.status = *s;
  if (r.status == PointStatus::ok) r.result = j.contains("result") ? j["result"] : nlohmann::json::object();
  if (r.status == PointStatus::infeasible) r.reason = j.value("reason", "");
  if (r.status == PointStatus::error) r.error = j.value("error", "");
  return r;
}

ReadResults read_results_file(const fs::path& file) {
  ReadResults out;
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  const std::string text = read_input_file(file.string(), kMaxResultsFileBytes);
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const std::size_t nl = text.find('\n', pos);
    const bool last = nl == std::string::npos || nl + 1 == text.size();
    if (nl == std::string::npos) {
      // No newline: the writer died mid-line (every complete line ends in '\n').
      out.torn_tail = true;
      break;
    }
    const std::string line = text.substr(pos, nl - pos);
    try {
      out.lines.push_back(ResultLine::from_json(nlohmann::json::parse(line)));
      out.lines.back().from = {file.string(), static_cast<int>(line_no), 1};
    } catch (const std::exception& e) {
      if (last) {
        out.torn_tail = true;
        break;
      }
      throw ConfigError(
          {file.string(), static_cast<int>(line_no), 0}, "",
          std::string("not a result line (") + e.what() + "); only the last line of a results file may be damaged");
    }
    pos = nl + 1;
    out.valid_bytes = pos;
  }
  return out;
}

std::vector<ResultLine> canonicalize(std::vector<ResultLine> lines) {
  std::stable_sort(lines.begin(), lines.end(),
                   [](const ResultLine& a, const ResultLine& b) { return a.index < b.index; });
  std::vector<ResultLine> out;
  out.reserve(lines.size());
  for (auto& l : lines) {
    if (!out.empty() && out.back().index == l.index) {
      if (out.back().to_line() != l.to_line()) {
        const SourceLocation& first = out.back().from;
        throw ConfigError(l.from, "index",
                          "a second, different result for point " + std::to_string(l.index) + " (id " + l.id +
                              "; the first is at " + first.file + ":" + std::to_string(first.line) +
                              "); the inputs come from different sweeps or a non-deterministic evaluator");
      }
      continue;
    }
    out.push_back(std::move(l));
  }
  return out;
}

// Through the temporary FILE.tmp.HOST.PID (host and pid: shards on different machines may share
// the folder), checked, synced and renamed (core/staged_file.hpp).
void write_file_atomically(const fs::path& file, const std::string& text) { write_file_staged(file, text); }

void write_canonical_file(const fs::path& file, const std::vector<ResultLine>& lines) {
  std::string text;
  for (const auto& l : lines) {
    text += l.to_line();
    text += '\n';
  }
  write_file_atomically(file, text);
}

MergeReport merge_result_files(const std::vector<fs::path>& inputs, const fs::path& output,
                               std::optional<std::size_t> expected_points) {
  std::vector<ResultLine> all;
  for (const auto& in : inputs) {
    if (!fs::exists(in)) throw ConfigError({in.string(), 0, 0}, "", "no such results file");
    auto r = read_results_file(in);
    for (auto& l : r.lines) all.push_back(std::move(l));
  }
  auto lines = canonicalize(std::move(all));
  MergeReport rep;
  rep.lines = lines.size();
  if (expected_points) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < *expected_points; ++i) {
      while (k < lines.size() && lines[k].index < i) ++k;
      if (k >= lines.size() || lines[k].index != i) rep.missing.push_back(i);
    }
    if (!lines.empty() && lines.back().index >= *expected_points) {
      throw ConfigError(lines.back().from, "index",
                        "result for point " + std::to_string(lines.back().index) + " but the sweep has only " +
                            std::to_string(*expected_points) + " points (a results file of another sweep?)");
    }
  }
  if (!rep.missing.empty() && holds_every_point(output, *expected_points)) {
    rep.written = false;
    return rep;
  }
  write_canonical_file(output, lines);
  return rep;
}

fs::path results_path(const fs::path& dir) { return dir / "results.jsonl"; }

fs::path shard_results_path(const fs::path& dir, int index, int count) {
  if (count <= 1) return results_path(dir);
  return dir / ("results.shard-" + std::to_string(index) + "-of-" + std::to_string(count) + ".jsonl");
}

std::vector<fs::path> find_shard_files(const fs::path& dir, int count) {
  std::vector<fs::path> out;
  for (int i = 0; i < count; ++i) {
    const fs::path p = shard_results_path(dir, i, count);
    if (fs::exists(p)) out.push_back(p);
  }
  return out;
}

}  // namespace engramsim::planner
