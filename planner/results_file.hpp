// The results.jsonl format: one JSON object per line, one line per sweep point.
//
//   {"assignments":{...},"id":"<16 hex>","index":N,"result":{...},"status":"ok"}
//   {"assignments":{...},"id":"...","index":N,"reason":"...","status":"infeasible"}
//   {"assignments":{...},"id":"...","error":"...","index":N,"status":"error"}
//
// Keys are sorted (nlohmann::json's default object order), numbers use the shortest text that
// round-trips, and nothing in a line depends on timing, thread or process, so a point's line is a
// pure function of the point and its evaluation.
//
// Life of a file: while a sweep runs, lines are appended in completion order, each written with a
// single write(2) and followed by fdatasync, so after a crash the file holds every finished point
// plus at most one torn last line. When every point of the run is present, the file is rewritten
// in canonical form: lines sorted by index, duplicates (same index, same content) collapsed,
// written to a temporary file, fsync'd and renamed over the original. The canonical file is
// therefore byte-identical for any --jobs, any order of completion, any resume history, any
// sharding after merge, and MPI or not.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "planner/sweep_manifest.hpp"

namespace engramsim::planner {

enum class PointStatus { ok, infeasible, error };
inline constexpr EnumNames<PointStatus, 3> kPointStatusNames{{{
    {PointStatus::ok, "ok"},
    {PointStatus::infeasible, "infeasible"},
    {PointStatus::error, "error"},
}}};
const char* to_string(PointStatus s);

struct ResultLine {
  std::size_t index = 0;
  std::string id;
  nlohmann::json assignments = nlohmann::json::object();
  PointStatus status = PointStatus::ok;
  nlohmann::json result;  // status ok
  std::string reason;     // status infeasible: why (pruned points are never run)
  std::string error;      // status error: the exception message
  SourceLocation from;    // the file and line it was read from (not written; empty when computed)

  nlohmann::json to_json() const;
  std::string to_line() const;  // no trailing newline
  // Throws std::runtime_error on a malformed object.
  static ResultLine from_json(const nlohmann::json& j);
};

struct ReadResults {
  std::vector<ResultLine> lines;  // in file order
  std::size_t valid_bytes = 0;    // length of the prefix made of complete, valid lines
  bool torn_tail = false;         // a partial or unparsable last line was ignored
};

// The largest results file read back (a sweep at its point limit writes well under this).
inline constexpr std::size_t kMaxResultsFileBytes = std::size_t{1} << 30;  // 1 GiB

// Reads a results file. A missing file reads as empty. Only the last line may be torn (it is
// ignored and reported); a bad line before it means the file is not one of ours and throws.
ReadResults read_results_file(const std::filesystem::path& file);

// Sorted by index, one line per index. Throws when two lines share an index but differ.
std::vector<ResultLine> canonicalize(std::vector<ResultLine> lines);

// Writes lines as a canonical file atomically (temp file in the same folder, fsync, rename, fsync
// of the folder).
void write_canonical_file(const std::filesystem::path& file, const std::vector<ResultLine>& lines);

struct MergeReport {
  std::size_t lines = 0;
  std::vector<std::size_t> missing;  // indices in [0, expected) with no line; empty if unknown
  bool written = true;               // false: `output` was complete and the merge was not
};

// Merges shard (or any) result files into `output` in canonical form. With expected_points, lists
// the indices still missing; the partial merge is still written, so partial progress can be
// inspected, unless `output` already holds every expected point (a complete result is never
// replaced by a partial one).
MergeReport merge_result_files(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output,
                               std::optional<std::size_t> expected_points = std::nullopt);

// File names inside a sweep output folder.
std::filesystem::path results_path(const std::filesystem::path& dir);  // DIR/results.jsonl
// DIR/results.shard-<i>-of-<N>.jsonl (plain results.jsonl when count == 1).
std::filesystem::path shard_results_path(const std::filesystem::path& dir, int index, int count);
// Every shard file of an N-way split present in dir, in shard order.
std::vector<std::filesystem::path> find_shard_files(const std::filesystem::path& dir, int count);

// Writes `text` to `file` atomically (temp + fsync + rename + fsync of the folder).
void write_file_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace engramsim::planner
